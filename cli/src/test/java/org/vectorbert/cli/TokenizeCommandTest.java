package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.BertBaseUncasedArtifact;
import picocli.CommandLine;

/** {@code vectorbert tokenize} end to end on the real bert-base-uncased vocabulary. */
class TokenizeCommandTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path shared;

    static Path vocab;

    @TempDir
    Path dir;

    @BeforeAll
    static void realVocabulary() throws IOException {
        vocab = shared.resolve("vocab.txt");
        try (InputStream in = TokenizeCommandTest.class.getClassLoader()
                .getResourceAsStream(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY)) {
            BertBaseUncasedArtifact.extractFromSavedModelZip(in, BertBaseUncasedArtifact.VOCAB_ENTRY, vocab, "test classpath");
        }
    }

    record Run(int exit, String out, String err) {
        List<JsonNode> jsonLines() throws IOException {
            List<JsonNode> nodes = new java.util.ArrayList<>();
            for (String line : out.split("\n")) {
                nodes.add(JSON.readTree(line));
            }
            return nodes;
        }
    }

    /** As {@link Main#run} builds it: the tree for the first argument. */
    static Run run(String... args) {
        CommandLine cli = Main.commandLine(args.length > 0 ? args[0] : null);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    static Run tokenize(String... args) {
        String[] all = new String[args.length + 3];
        all[0] = "tokenize";
        all[1] = "--vocab";
        all[2] = vocab.toString();
        System.arraycopy(args, 0, all, 3, args.length);
        return run(all);
    }

    /** A failure: exit 2, one line on stderr naming the problem, no stack trace, nothing on stdout. */
    static void assertUserError(Run r, String expectedMessage) {
        assertEquals(2, r.exit(), r.err());
        assertEquals("", r.out());
        assertTrue(r.err().contains(expectedMessage), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
        assertFalse(r.err().contains("\tat "), r.err());
    }

    @Test
    void jsonHasTheHuggingFaceFields() throws IOException {
        Run r = tokenize("--json", "Hello, I'm a [MASK] model.");
        assertEquals(0, r.exit(), r.err());
        JsonNode line = r.jsonLines().getFirst();
        assertEquals(List.of("tokens", "input_ids", "token_type_ids", "attention_mask", "special_tokens_mask", "offsets"),
                List.copyOf(iterable(line.fieldNames())));
        assertEquals("[101,7592,1010,1045,1005,1049,1037,103,2944,1012,102]", line.get("input_ids").toString());
        assertEquals("[[0,0],[0,5],[5,6],[7,8],[8,9],[9,10],[11,12],[13,19],[20,25],[25,26],[0,0]]",
                line.get("offsets").toString());
        // [MASK] typed in the text is the text's own token: only what the template adds is marked (as tokenizers does).
        assertEquals("[1,0,0,0,0,0,0,0,0,0,1]", line.get("special_tokens_mask").toString());
    }

    @Test
    void pairsTruncationAndNoSpecialTokens() throws IOException {
        Run pair = tokenize("--json", "--pair", "where is it?", "paris is in france");
        assertEquals("[0,0,0,0,0,0,1,1,1,1,1]", pair.jsonLines().getFirst().get("token_type_ids").toString());
        Run cut = tokenize("--json", "--max-length", "6", "--pair", "b c d e", "a");
        assertEquals("[\"[CLS]\",\"a\",\"[SEP]\",\"b\",\"c\",\"[SEP]\"]", cut.jsonLines().getFirst().get("tokens").toString());
        Run bare = tokenize("--json", "--no-special-tokens", "hello world");
        assertEquals("[7592,2088]", bare.jsonLines().getFirst().get("input_ids").toString());
    }

    @Test
    void oneLinePerTextAndAnEmptyTextGivesTheSpecialTokens() throws IOException {
        // As Hugging Face's tokenizers library gives it (tokenizer/src/test/resources/parity: the case {"text": ""}).
        String empty = "{\"tokens\":[\"[CLS]\",\"[SEP]\"],\"input_ids\":[101,102],\"token_type_ids\":[0,0],"
                + "\"attention_mask\":[1,1],\"special_tokens_mask\":[1,1],\"offsets\":[[0,0],[0,0]]}";
        Run r = tokenize("--json", "first", "", "third");
        List<JsonNode> lines = r.jsonLines();
        assertEquals(3, lines.size());
        assertEquals(empty, lines.get(1).toString());

        Path file = Files.writeString(dir.resolve("with-empty-line.txt"), "first\n\nthird\n");
        Run fromFile = tokenize("--json", "--file", file.toString());
        assertEquals(0, fromFile.exit(), fromFile.err());
        assertEquals(empty, fromFile.jsonLines().get(1).toString());

        Run table = tokenize("");
        assertEquals(0, table.exit(), table.err());
        assertEquals(String.join("\n", "\"\"  (2 tokens)",
                "     #  token      id  type  text",
                "     0  [CLS]     101     0  ",
                "     1  [SEP]     102     0  ", "", ""), table.out());

        Run bare = tokenize("--json", "--no-special-tokens", "");
        assertEquals("[]", bare.jsonLines().getFirst().get("input_ids").toString());
        assertEquals("\"\"  (no tokens)\n\n", tokenize("--no-special-tokens", "").out());
    }

    @Test
    void doubleDashAllowsTextsStartingWithADash() throws IOException {
        Run r = tokenize("--json", "--", "-v", "--help");
        assertEquals(0, r.exit(), r.err());
        assertEquals("[\"[CLS]\",\"-\",\"v\",\"[SEP]\"]", r.jsonLines().get(0).get("tokens").toString());
        assertEquals("[\"[CLS]\",\"-\",\"-\",\"help\",\"[SEP]\"]", r.jsonLines().get(1).get("tokens").toString());
    }

    @Test
    void tableShowsTokensIdsAndSourceText() {
        Run r = tokenize("Déjà vu");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("\"Déjà vu\"  (5 tokens)\n"), r.out());
        assertTrue(r.out().matches("(?s).*\\n +1 +de +2139 +0 +Dé\\n.*"), r.out());
        assertTrue(r.out().matches("(?s).*\\n +2 +##ja +3900 +0 +jà\\n.*"), r.out());
    }

    @Test
    void textsFromAFileOneLineEach() throws IOException {
        Path file = Files.writeString(dir.resolve("texts.txt"), "first line\r\nsecond line\n\nfourth\n");
        Run r = tokenize("--json", "--file", file.toString());
        assertEquals(0, r.exit(), r.err());
        List<JsonNode> lines = r.jsonLines();
        assertEquals(4, lines.size());
        assertEquals("[\"[CLS]\",\"second\",\"line\",\"[SEP]\"]", lines.get(1).get("tokens").toString());
        assertEquals("[\"[CLS]\",\"[SEP]\"]", lines.get(2).get("tokens").toString());
    }

    @Test
    void textsFromStandardInput() throws IOException {
        InputStream stdin = System.in;
        try {
            System.setIn(new ByteArrayInputStream("a b\nc\n".getBytes(StandardCharsets.UTF_8)));
            Run r = tokenize("--json", "--file", "-");
            assertEquals(2, r.jsonLines().size(), r.err());
        } finally {
            System.setIn(stdin);
        }
    }

    @Test
    void invalidUtf8InAFileIsRefusedWithItsLine() throws IOException {
        Path file = Files.write(dir.resolve("bad.txt"), new byte[] {'o', 'k', '\n', 'b', (byte) 0xFF, 'd', '\n'});
        Run r = tokenize("--json", "--file", file.toString());
        assertEquals(2, r.exit());
        assertEquals("vectorbert: " + file + " is not valid UTF-8 (at line 2)\n", r.err());
        assertEquals(1, r.jsonLines().size(), "the line before the bad one was answered");
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void brokenInputsEndWithOneLineAndExitCode2() throws IOException {
        assertUserError(run("tokenize", "--vocab", dir.resolve("missing.txt").toString(), "x"),
                "vectorbert: vocabulary file not found: " + dir.resolve("missing.txt"));
        Path empty = Files.writeString(dir.resolve("empty.txt"), "");
        assertUserError(run("tokenize", "--vocab", empty.toString(), "x"), "is empty");
        Path dup = Files.writeString(dir.resolve("dup.txt"), "[UNK]\n[CLS]\n[SEP]\n[UNK]\n");
        assertUserError(run("tokenize", "--vocab", dup.toString(), "x"), "duplicate token '[UNK]' (lines 1 and 4)");
        Path model = Files.createDirectories(dir.resolve("model"));
        Files.writeString(model.resolve("tokenizer.json"), "{not json");
        assertUserError(run("tokenize", "--model", model.toString(), "x"), "cannot parse " + model.resolve("tokenizer.json"));
        assertUserError(run("tokenize", "--model", dir.resolve("nope").toString(), "x"), "model '" + dir.resolve("nope") + "' not found: no directory");
        assertUserError(run("tokenize", "--file", dir.resolve("nope.txt").toString()), "file not found");
        assertUserError(tokenize(), "no text given");
        assertUserError(tokenize("--max-length", "0", "x"), "--max-length must be positive");
        assertUserError(tokenize("--max-length", "3", "--truncation", "only_second", "x y z"), "needs a second text");
        assertUserError(tokenize("--truncation", "sideways", "--max-length", "5", "x"), "unknown truncation strategy 'sideways'");
        assertUserError(tokenize("--bogus", "x"), "Unknown option: '--bogus'");
        assertUserError(run("nonsense"), "Unmatched argument");
    }

    @Test
    void helpAndVersion() {
        Run help = run("tokenize", "--help");
        assertEquals(0, help.exit());
        assertTrue(help.out().contains("Examples:"), help.out());
        Run version = run("--version");
        assertEquals(0, version.exit());
        assertTrue(version.out().startsWith("vectorbert "), version.out());
        assertTrue(version.out().matches("(?s).*, (128|256|512)-bit vectors\\)\\R"), version.out());   // bin/vectorbert reads it
    }

    /**
     * With no --model or --vocab the default model is made on first use: the Maven Central
     * artifact fetched by Maven itself, its vocab.txt extracted into the cache.
     */
    @Tag("heavy")
    @Test
    void defaultModelIsFetchedThroughMavenOnFirstUse() throws IOException {
        String before = System.getProperty("vectorbert.home");
        System.setProperty("vectorbert.home", dir.toString());
        try {
            Run first = run("tokenize", "--json", "Paris is the [MASK] of France.");
            assertEquals(0, first.exit(), first.err());
            assertEquals("[101,3000,2003,1996,103,1997,2605,1012,102]", first.jsonLines().getFirst().get("input_ids").toString());
            Path cached = dir.resolve("models/bert-base-uncased/vocab.txt");
            assertEquals(Files.mismatch(vocab, cached), -1L, "the cached vocab.txt is the real one");
            try (var leftovers = Files.list(dir.resolve("downloads"))) {
                assertEquals(0, leftovers.count(), "the downloaded jar is removed");
            }
            Run second = run("tokenize", "--json", "again");
            assertEquals("", second.err(), "a second run fetches nothing");
        } finally {
            if (before == null) {
                System.clearProperty("vectorbert.home");
            } else {
                System.setProperty("vectorbert.home", before);
            }
        }
    }

    private static <T> List<T> iterable(java.util.Iterator<T> it) {
        List<T> list = new java.util.ArrayList<>();
        it.forEachRemaining(list::add);
        return list;
    }
}
