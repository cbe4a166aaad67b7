package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The README and {@code docs/} as a reference that stays true: every relative link and anchor resolves, every
 * option of every command is documented, and every command line parses as written. {@link DocsExamplesTest}
 * runs the examples.
 */
class DocsTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a (?:name|id)=\"([^\"]+)\"");

    /** README.md and every page under docs/, notes included. */
    static List<Path> pages() {
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            List<Path> pages = new ArrayList<>();
            pages.add(ROOT.resolve("README.md"));
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
            return pages;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The reference pages whose examples must run: README.md and docs/*.md, not the dated notes. */
    static List<Path> referencePages() {
        return pages().stream().filter(p -> !p.startsWith(ROOT.resolve("docs/notes"))).toList();
    }

    static String read(Path page) {
        try {
            return Files.readString(page);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyRelativeLinkAndAnchorResolves() {
        Map<Path, Set<String>> anchors = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages()) {
            Matcher m = LINK.matcher(prose(read(page)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z][a-z0-9+.-]*:.*")) {
                    continue;                                         // http:, https:, mailto:
                }
                links++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = ROOT.relativize(page) + ": (" + target + ")";
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(where + " names no file");
                } else if (hash >= 0) {
                    if (!resolved.toString().endsWith(".md")) {
                        broken.add(where + " has an anchor into a file that is not markdown");
                    } else if (!anchors.computeIfAbsent(resolved, p -> anchors(read(p))).contains(target.substring(hash + 1))) {
                        broken.add(where + " names no heading of " + ROOT.relativize(resolved));
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
        assertTrue(links >= 40, links + " relative links");
    }

    @Test
    void everyOptionOfEveryCommandIsInTheReference() {
        String cli = read(ROOT.resolve("docs/cli.md"));
        String server = read(ROOT.resolve("docs/server.md"));
        List<String> missing = new ArrayList<>();
        for (String name : Main.COMMANDS) {
            String page = name.equals("serve") ? server : cli;
            assertTrue(cli.contains("vectorbert " + name), "docs/cli.md shows vectorbert " + name);
            for (OptionSpec option : Main.commandLine(name).getSubcommands().get(name).getCommandSpec().options()) {
                if (option.usageHelp() || option.versionHelp() || option.hidden()) {
                    continue;
                }
                if (!page.contains(option.longestName())) {
                    missing.add(name + " " + option.longestName());
                }
            }
        }
        assertEquals(List.of(), missing, "options neither docs/cli.md nor docs/server.md names");
    }

    @Test
    void everyCommandLineParsesAsWritten() {
        int lines = 0;
        for (Path page : referencePages()) {
            for (List<String> args : commandLines(read(page))) {
                try {
                    Main.commandLine(args.getFirst()).parseArgs(args.toArray(String[]::new));
                } catch (CommandLine.ParameterException e) {
                    throw new AssertionError(ROOT.relativize(page) + ": vectorbert " + String.join(" ", args) + ": " + e.getMessage());
                }
                lines++;
            }
        }
        assertTrue(lines >= 40, lines + " command lines");
    }

    /** The README's Java snippets are cut from the examples docs/ compiles and runs (LibraryExamplesTest and the adapters'). */
    @Test
    void theReadmesJavaIsCutFromExamplesThatRun() {
        List<String> examples = new ArrayList<>();
        for (String page : List.of("docs/library.md", "docs/integrations.md")) {
            examples.addAll(javaBlocks(read(ROOT.resolve(page))).stream().map(DocsTest::unindented).toList());
        }
        List<String> snippets = javaBlocks(read(ROOT.resolve("README.md")));
        assertTrue(snippets.size() >= 2, snippets.size() + " snippets");
        for (String snippet : snippets) {
            assertTrue(examples.stream().anyMatch(e -> e.contains(unindented(snippet))), "README.md's snippet is in no example:\n" + snippet);
        }
    }

    private static List<String> javaBlocks(String markdown) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** Each line without its leading spaces: a snippet is the example's lines, indented less. */
    private static String unindented(String code) {
        return code.lines().map(String::strip).collect(java.util.stream.Collectors.joining("\n"));
    }

    @Test
    void theReadmeStaysShort() {
        long lines = read(ROOT.resolve("README.md")).lines().count();
        assertTrue(lines <= 320, "README.md has " + lines + " lines: the reference belongs in docs/");
    }

    @Test
    void slugsAreGitHubs() {
        assertEquals(Set.of("langchain4j-vectorbert-langchain4j", "vectorbert-classify-rerank-ner-and-qa", "set-up", "set-up-1",
                "what--why"), anchors("## langchain4j: `vectorbert-langchain4j`\n## `vectorbert classify`, `rerank`, `ner` and `qa`\n"
                + "## Set-up\n### Set-up\n```\n# not a heading\n```\n## What & why\n"));
    }

    /** The anchors GitHub gives a page's headings (lower case, punctuation but - and _ dropped, spaces to -), and HTML ones. */
    static Set<String> anchors(String markdown) {
        Set<String> out = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(markdown).split("\n")) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = h.group(1).toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                out.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) {
                out.add(a.group(1));
            }
        }
        return out;
    }

    /** The page with its fenced blocks and inline code blanked, so that neither yields links nor headings. */
    static String prose(String markdown) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                out.append('\n');
            } else if (fenced) {
                out.append('\n');
            } else {
                out.append(line.matches("^#{1,6}\\s.*") ? line : line.replaceAll("`[^`]*`", "``")).append('\n');
            }
        }
        return out.toString();
    }

    /**
     * Each command line of the shell blocks (```sh, or a fence with no language): continuation lines joined, each
     * part of an {@code &&} chain that runs vectorbert, as words, without the program, a comment or a trailing &.
     */
    static List<List<String>> commandLines(String readme) {
        List<List<String>> out = new ArrayList<>();
        String fence = null;
        StringBuilder block = new StringBuilder();
        for (String line : readme.split("\n", -1)) {
            if (line.startsWith("```")) {
                if (fence == null) {
                    fence = line.substring(3).strip();
                    block.setLength(0);
                } else {
                    if (fence.isEmpty() || fence.equals("sh")) {
                        addCommands(block.toString().replace("\\\n", " "), out);
                    }
                    fence = null;
                }
            } else if (fence != null) {
                block.append(line).append('\n');
            }
        }
        return out;
    }

    private static void addCommands(String block, List<List<String>> out) {
        for (String line : block.split("\n")) {
            for (String part : line.split(" && ")) {
                String l = part.strip();
                if (!(l.startsWith("vectorbert ") || l.startsWith("bin/vectorbert ")) || l.contains("[--")) {
                    continue;                                // not a command line, or a synopsis
                }
                List<String> words = words(l);
                words.removeFirst();
                if (!words.isEmpty() && words.getLast().equals("&")) {
                    words.removeLast();
                }
                out.add(words);
            }
        }
    }

    /** Shell words: single and double quotes group, a # starting a word begins a comment. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (quote == '"' && c == '\\' && i + 1 < line.length() && "\"\\$`".indexOf(line.charAt(i + 1)) >= 0) {
                    word.append(line.charAt(++i));
                } else {
                    word.append(c);
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
                word = word == null ? new StringBuilder() : word;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else if (c == '#' && word == null) {
                break;
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }
}
