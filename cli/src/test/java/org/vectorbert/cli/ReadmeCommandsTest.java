package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The README's command lines as written: every {@code vectorbert} or {@code bin/vectorbert} line of its shell blocks
 * (synopses with [optional] parts aside) names a command and options that exist, with values of the right types; and
 * each one that needs nothing this test does not have (no server, no placeholder model or file, no output file) runs
 * and exits 0 on the default model.
 */
class ReadmeCommandsTest {
    @Test
    void everyCommandLineParsesAndTheSelfContainedOnesRun() throws Exception {
        List<List<String>> lines = commandLines(Files.readString(Path.of("..", "README.md")));
        assertTrue(lines.size() >= 15, lines.size() + " command lines");
        int ran = 0;
        for (List<String> args : lines) {
            try {
                Main.commandLine(args.getFirst()).parseArgs(args.toArray(String[]::new));
            } catch (CommandLine.ParameterException e) {
                fail("README: vectorbert " + String.join(" ", args) + ": " + e.getMessage());
            }
            if (selfContained(args)) {
                TokenizeCommandTest.Run r = TokenizeCommandTest.run(args.toArray(String[]::new));
                assertEquals(0, r.exit(), "README: vectorbert " + String.join(" ", args) + ": " + r.err());
                ran++;
            }
        }
        assertTrue(ran >= 1, ran + " lines ran");
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

    /** Whether a line runs here as written: no server, hub id, placeholder path, input or output file, and not serve. */
    private static boolean selfContained(List<String> args) {
        if (List.of("serve", "convert").contains(args.getFirst())) {
            return false;
        }
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (List.of("--server", "--file", "--output", "--png", "--model", "--vocab").contains(a)) {
                return false;
            }
        }
        return true;
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
