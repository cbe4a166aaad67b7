package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 14's findings, each as it was reported: output files, internal errors, silent mismatches, text rules, messages. */
@Tag("heavy")
class ReliabilityTest {
    @TempDir
    static Path work;

    static Path model;

    @BeforeAll
    static void convert() {
        model = TestModels.bertBaseUncased();
    }

    /** A copy of the real model (its files hard-linked, not copied) with one file replaced. */
    static Path variant(String name, String file, String content) throws IOException {
        Path dir = Files.createDirectories(work.resolve(name));
        try (Stream<Path> files = Files.list(model)) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals(file)) {
                    Files.createLink(dir.resolve(f.getFileName()), f);
                }
            }
        }
        Files.writeString(dir.resolve(file), content);
        return dir;
    }

    static List<Path> partials(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".partial")).toList();
        }
    }

    // ---- Output files ----

    @Test
    void anOutputThatCannotBeWrittenIsRefusedBeforeAnyWork() throws IOException {
        Path dir = Files.createDirectories(work.resolve("out-dir"));
        Path input = Files.write(work.resolve("two.txt"), List.of("one text", "another"));
        for (String pooling : List.of("cls", "none")) {
            assertUserError(run("embed", "--model", model.toString(), "--pooling", pooling, "--file", input.toString(), "--output",
                    dir.toString()), "--output " + dir + " is a directory");
        }
        assertEquals(List.of(), partials(work));
        assertFalse(Files.exists(work.resolve("out-dir.lengths.npy")));
        assertUserError(run("embed", "--model", model.toString(), "--output", work.resolve("nodir/x.npy").toString(), "x"),
                "the directory " + work.resolve("nodir") + " does not exist");
        Path readOnly = Files.writeString(work.resolve("read-only.npy"), "keep");
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r--r--r--"));
        assertUserError(run("embed", "--model", model.toString(), "--output", readOnly.toString(), "x"), "is read-only");
        assertEquals("keep", Files.readString(readOnly));
    }

    @Test
    void aSymlinkStaysALinkAndAReplacedFileKeepsItsMode() throws IOException {
        Path real = Files.writeString(work.resolve("real.npy"), "old");
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-r-----"));
        Path link = Files.createSymbolicLink(work.resolve("link.npy"), real.getFileName());
        TokenizeCommandTest.Run r = run("embed", "--model", model.toString(), "--output", link.toString(), "a text");
        assertEquals(0, r.exit(), r.err());
        assertTrue(Files.isSymbolicLink(link));
        assertEquals(128 + 768 * 4, Files.size(real));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)));
    }

    @Test
    void partialFilesOfRunsNoLongerAliveAreRemoved() throws IOException {
        Path target = work.resolve("stale.npy");
        long dead = deadPid();
        Path stale = Files.writeString(work.resolve("stale.npy." + dead + ".partial"), "left by a killed run");
        Path staleLengths = Files.writeString(work.resolve("stale.lengths.npy." + dead + ".partial"), "also");
        Path alive = Files.writeString(work.resolve("stale.npy." + ProcessHandle.current().parent().orElseThrow().pid() + ".partial"),
                "a run still going");
        TokenizeCommandTest.Run r = run("embed", "--model", model.toString(), "--pooling", "none", "--output", target.toString(), "x");
        assertEquals(0, r.exit(), r.err());
        assertFalse(Files.exists(stale));
        assertFalse(Files.exists(staleLengths));
        assertTrue(Files.exists(alive), "a live process's partial file stays");
        Files.delete(alive);
    }

    private static long deadPid() {
        for (long pid = 4_000_000; ; pid++) {
            if (ProcessHandle.of(pid).isEmpty()) {
                return pid;
            }
        }
    }

    @Test
    void anArrayAndItsLengthsLandBothOrNeither() throws IOException {
        Path target = work.resolve("pair.npy");
        Path lengths = NpyOutput.lengthsPath(target);
        Files.writeString(lengths, "old lengths");
        NpyOutput out = NpyOutput.tokenVectors(target, 2);
        out.add(new float[] {1, 2, 3, 4}, 2);
        out.complete();
        // The final move of the array fails (its place is now a directory that is not empty).
        Files.writeString(Files.createDirectories(target).resolve("in the way"), "x");
        assertThrows(UserError.class, out::close);
        assertEquals("old lengths", Files.readString(lengths), "the old lengths are back beside the old array");
        assertEquals(List.of(), partials(work));
    }

    @Test
    void ctrlCAndSigtermLeaveNoPartialFile(@TempDir Path dir) throws Exception {
        Path input = CliProcess.longInput(dir);
        for (String signal : List.of("INT", "TERM")) {
            Path target = dir.resolve("x-" + signal + ".npy");
            Process p = CliProcess.start(dir, List.of("embed", "--model", model.toString(), "--file", input.toString(), "--output",
                    target.toString(), "--batch-size", "16"));
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (partials(dir).isEmpty() && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertFalse(partials(dir).isEmpty(), "the run started writing: " + CliProcess.stderr(dir));
            Thread.sleep(500);
            CliProcess.signal(p, signal);
            assertEquals(signal.equals("INT") ? 130 : 143, CliProcess.waitFor(p), CliProcess.stderr(dir));
            assertEquals(List.of(), partials(dir));
            assertFalse(Files.exists(target));
        }
    }

    // ---- Internal errors and silent mismatches ----

    @Test
    void aVocabularyLargerThanTheWeightsIsRefusedAtLoad() throws IOException {
        List<String> vocab = new ArrayList<>(Files.readAllLines(model.resolve("vocab.txt")));
        for (int i = 0; i < 5; i++) {
            vocab.add("zzqtok" + i);
        }
        Path dir = variant("big-vocab", "vocab.txt", String.join("\n", vocab) + "\n");
        assertUserError(run("fill-mask", "--model", dir.toString(), "--targets", "zzqtok4,hello", "hello [MASK]"),
                "the tokenizer's vocabulary has 30527 tokens but the model's word embeddings have 30522 rows");
        TokenizeCommandTest.Run inspect = run("inspect", "--model", dir.toString());
        assertTrue(inspect.out().contains("problem:    the tokenizer's vocabulary has 30527 tokens but the model's word embeddings have 30522 rows (vocab_size)"),
                inspect.out());
    }

    @Test
    void aConfigThatDoesNotDescribeTheWeightsIsRefused() throws IOException {
        String config = Files.readString(model.resolve("config.json"));
        Path six = variant("six-layers", "config.json", config.replaceAll("\"num_hidden_layers\"\\s*:\\s*12", "\"num_hidden_layers\": 6"));
        assertUserError(run("fill-mask", "--model", six.toString(), "Paris is the [MASK] of France."),
                "config.json says num_hidden_layers 6 but the checkpoint has 12 layers");
        Path hundred = variant("hundred-layers", "config.json",
                config.replaceAll("\"num_hidden_layers\"\\s*:\\s*12", "\"num_hidden_layers\": 100"));
        assertUserError(run("embed", "--model", hundred.toString(), "x"), "config.json says num_hidden_layers 100 but the checkpoint has 12 layers");
        Path vocab = variant("vocab-size", "config.json", config.replaceAll("\"vocab_size\"\\s*:\\s*30522", "\"vocab_size\": 30000"));
        TokenizeCommandTest.Run inspect = run("inspect", "--model", vocab.toString());
        assertEquals(0, inspect.exit(), inspect.err());
        assertTrue(inspect.out().contains("problem:    config.json says vocab_size 30000 but bert.embeddings.word_embeddings.weight has 30522 rows"),
                inspect.out());
    }

    // ---- One rule for each kind of text ----

    @Test
    void textsThatGiveNoTokensAreEmbeddedAlikeAndSaid() throws IOException {
        // As sentence-transformers and Hugging Face do: [CLS] [SEP] alone, whether the text is empty or only spaces.
        TokenizeCommandTest.Run empty = run("embed", "--model", model.toString(), "--json", "fine", "");
        TokenizeCommandTest.Run spaces = run("embed", "--model", model.toString(), "--json", "fine", "  \t\u00a0\u200b ");
        assertEquals(0, empty.exit(), empty.err());
        assertEquals(empty.out(), spaces.out());
        assertTrue(empty.err().contains("embed: argument 2 gave no tokens (empty or only spaces): embedded as [CLS] [SEP] alone"),
                empty.err());
        Path input = Files.write(work.resolve("blank-line.txt"), List.of("fine", "also fine", "   ", ""));
        TokenizeCommandTest.Run file = run("embed", "--model", model.toString(), "--json", "--file", input.toString());
        assertEquals(0, file.exit(), file.err());
        assertEquals(4, file.out().lines().count(), "one vector a line, so rows stay aligned with lines");
        assertTrue(file.err().contains("; 2 texts gave no tokens (line 3 of " + input + " the first: empty or only spaces)"), file.err());
    }

    @Test
    void targetsAreWordsAndSayWhenTheyAreSeveralPieces() {
        assertUserError(run("fill-mask", "--model", model.toString(), "--targets", ",,", "a [MASK]"), "--targets has an empty word");
        assertUserError(run("fill-mask", "--model", model.toString(), "--targets", "nurse,,doctor", "a [MASK]"), "--targets has an empty word");
        TokenizeCommandTest.Run r = run("fill-mask", "--model", model.toString(), "--json", "--targets", "nurse,zzqtok", "she is a [MASK].");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("fill-mask: target 'zzqtok' is not one token of the vocabulary but "), r.err());
        assertTrue(r.err().contains("ranking its first"), r.err());
    }

    @Test
    void anArgumentThatIsNotUtf8IsRefusedAsAFileLineIs(@TempDir Path dir) throws Exception {
        // Bytes a shell passes as they are: a lone surrogate's three bytes (ED A0 80), as in the file case.
        List<String> command = new ArrayList<>(List.of("bash", "-c", "exec \"$@\" \"$(printf 'a \\355\\240\\200 b')\"", "bash"));
        command.addAll(CliProcess.command());
        command.addAll(List.of("embed", "--model", model.toString()));
        Process p = new ProcessBuilder(command).redirectError(dir.resolve("stderr").toFile()).redirectOutput(dir.resolve("stdout").toFile())
                .start();
        assertEquals(2, CliProcess.waitFor(p), CliProcess.stderr(dir));
        assertTrue(CliProcess.stderr(dir).contains("given as an argument is not valid UTF-8"), CliProcess.stderr(dir));
        Path file = Files.write(dir.resolve("bad.txt"), new byte[] {'a', ' ', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '\n'});
        assertUserError(run("embed", "--model", model.toString(), "--file", file.toString()), "is not valid UTF-8 (at line 1)");
        // An option's text too (--targets, --pair, --query, --question, --context), as a separate word or after '='.
        for (String form : List.of("--targets \"$(printf 'n\\355\\240\\200')\"", "--targets=\"$(printf 'n\\355\\240\\200')\"")) {
            List<String> option = new ArrayList<>(List.of("bash", "-c", "exec \"$@\" " + form + " 'a [MASK]'", "bash"));
            option.addAll(CliProcess.command());
            option.addAll(List.of("fill-mask", "--model", model.toString()));
            Process q = new ProcessBuilder(option).redirectError(dir.resolve("stderr").toFile()).redirectOutput(dir.resolve("stdout").toFile())
                    .start();
            assertEquals(2, CliProcess.waitFor(q), form + ": " + CliProcess.stderr(dir));
            assertTrue(CliProcess.stderr(dir).contains("--targets \"n\uFFFD") && CliProcess.stderr(dir).contains("is not valid UTF-8"),
                    form + ": " + CliProcess.stderr(dir));
        }
    }

    // ---- Messages ----

    @Test
    void messagesQuoteTextsShortAndEscaped() throws IOException {
        String huge = "word ".repeat(200_000);
        TokenizeCommandTest.Run r = run("fill-mask", "--model", model.toString(), huge);
        assertUserError(r, "no [MASK] token in the text \"word word");
        assertTrue(r.err().length() < 300, "the message quotes an excerpt, not the text: " + r.err().length() + " chars");
        TokenizeCommandTest.Run tooLong = run("fill-mask", "--model", model.toString(), "[MASK] " + "word ".repeat(600));
        assertUserError(tooLong, "tokens, longer than the model's 512; shorten it");
        assertFalse(tooLong.err().contains("--max-length") || tooLong.err().contains("--truncate"), tooLong.err());
        TokenizeCommandTest.Run nul = run("fill-mask", "--model", model.toString(), "a\u0000b is a [MASK].");
        assertEquals(0, nul.exit(), nul.err());
        assertTrue(nul.out().startsWith("\"a\\u0000b is a [MASK].\""), nul.out());
        assertFalse(nul.out().contains("\u0000"));
    }

    @Test
    void aLineTooLongToBeUsefulIsRefusedWhileItIsRead() throws IOException {
        Path input = work.resolve("one-huge-line.txt");
        Files.writeString(input, "fine\n" + "x".repeat(TextInput.MAX_LINE_BYTES + 10) + "\n", StandardCharsets.US_ASCII);
        assertUserError(run("embed", "--model", model.toString(), "--file", input.toString()), "line 2 of " + input + " is over 1 MB");
    }

    @Test
    void aTextTooLongForTheModelIsNamedByItsLineInAFile() throws IOException {
        Path input = Files.write(work.resolve("one-too-long.txt"), List.of("fine", "also fine", "word ".repeat(600).trim(), "fine again"));
        assertUserError(run("embed", "--model", model.toString(), "--no-truncate", "--file", input.toString()),
                "line 3 of " + input + ": the text \"word word");
        Path masks = Files.write(work.resolve("masks-too-long.txt"), List.of("a [MASK].", "word ".repeat(600) + "[MASK]."));
        TokenizeCommandTest.Run r = run("fill-mask", "--model", model.toString(), "--file", masks.toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.out().startsWith("\"a [MASK].\""), "line 1 answered: " + r.out());
        assertTrue(r.err().startsWith("vectorbert: line 2 of " + masks + ": the text \"word word") && r.err().lines().count() == 1, r.err());
    }

    @Test
    void optionsOutOfRangeAreSaidNotSilentlyChanged() {
        int cores = Runtime.getRuntime().availableProcessors();
        assertUserError(run("fill-mask", "--model", model.toString(), "--threads", "999", "a [MASK]"),
                "--threads 999 is more than the " + cores + " cores");
        TokenizeCommandTest.Run r = run("fill-mask", "--model", model.toString(), "--json", "--top-k", "100000", "a [MASK]");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("--top-k 100000 is more than the 30522 tokens of the vocabulary; showing all 30522"), r.err());
        TokenizeCommandTest.Run targets = run("fill-mask", "--model", model.toString(), "--top-k", "9", "--targets", "nurse,doctor", "a [MASK]");
        assertTrue(targets.err().contains("--top-k 9 is more than the 2 targets; showing all 2"), targets.err());
        // The default --top-k (5) is more than two targets too, but the user asked for no number: nothing to say.
        TokenizeCommandTest.Run unasked = run("fill-mask", "--model", model.toString(), "--targets", "nurse,doctor", "a [MASK]");
        assertEquals(0, unasked.exit(), unasked.err());
        assertFalse(unasked.err().contains("--top-k"), unasked.err());
    }

    @Test
    void bareVectorbertListsItsCommands() {
        TokenizeCommandTest.Run r = run();
        assertEquals(2, r.exit());
        for (String command : List.of("fill-mask", "embed", "tokenize", "convert", "inspect")) {
            assertTrue(r.err().contains(command), r.err());
        }
        assertArrayEquals(new byte[0], r.out().getBytes(StandardCharsets.UTF_8));
    }
}
