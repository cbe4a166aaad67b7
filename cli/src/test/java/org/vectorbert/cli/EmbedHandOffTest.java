package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.loader.testing.TinyTaskModels;
import org.vectorbert.server.ServerOptions;

/**
 * {@code embed --server URL}: a running server (Jetty, in this JVM) answers, and the output is the local model's to the
 * byte: a plain checkpoint (the real bert-base-uncased: [CLS], not normalised, long texts refused), a sentence-transformers
 * model (the real all-MiniLM-L6-v2: mean, normalised, cut at 256) taking fewer texts a request than the tests send, and
 * the same weights with prompts and a short max_seq_length, so that prompts and cuts meet.
 */
@Tag("heavy")
class EmbedHandOffTest {
    @TempDir
    static Path work;

    private static final HandOffServers SERVERS = new HandOffServers();
    private static Path bert;
    private static Path minilm;
    private static Path prompted;
    private static String bertUrl;
    private static String minilmUrl;
    private static String promptedUrl;
    private static String classifierUrl;
    private static String smallUrl;

    private static final String LONG = "word ".repeat(300).trim();

    @BeforeAll
    static void start() throws IOException {
        bert = TestModels.bertBaseUncased();
        minilm = RealModels.allMiniLm();
        prompted = Files.createDirectories(work.resolve("prompted"));
        try (var files = Files.list(minilm)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.createLink(prompted.resolve(f.getFileName()), f);
            }
        }
        Files.createDirectories(prompted.resolve("1_Pooling"));
        Files.copy(minilm.resolve("1_Pooling/config.json"), prompted.resolve("1_Pooling/config.json"));
        Files.delete(prompted.resolve("sentence_bert_config.json"));
        Files.writeString(prompted.resolve("sentence_bert_config.json"), "{\"max_seq_length\": 12, \"do_lower_case\": true}");
        Files.writeString(prompted.resolve("config_sentence_transformers.json"),
                "{\"prompts\": {\"query\": \"query: \", \"passage\": \"passage: \"}, \"default_prompt_name\": \"passage\"}");
        bertUrl = serve(bert, 32);
        minilmUrl = serve(minilm, 3);      // fewer texts a request than the tests send: the CLI sends several
        promptedUrl = serve(prompted, 32);
        smallUrl = SERVERS.serve(minilm, ServerOptions.defaults().withPort(0).withPayloadLimit(2048));   // bodies of 2 KB at most
        classifierUrl = serve(TinyTaskModels.sequenceClassifier(work.resolve("sentiment"), List.of("NEGATIVE", "POSITIVE"), ""), 32);
    }

    private static String serve(Path model, int maxClientBatch) {
        return SERVERS.serve(model, maxClientBatch);
    }

    @AfterAll
    static void stop() {
        SERVERS.close();
    }

    @Test
    void theServersVectorsAreTheLocalModelsToTheByte() {
        List<String> texts = List.of("A sentence to embed.", "Crème brûlée 🙂 東京", "Short", "Another, longer sentence about licenses.", "x");
        List<List<String>> asks = new ArrayList<>();
        asks.add(with(List.of("--json"), texts));
        asks.add(with(List.of(), texts));                                   // the readable summary lines
        asks.add(with(List.of("--json", "--no-normalize"), texts));
        asks.add(with(List.of("--json", "--normalize"), texts));
        asks.add(with(List.of("--json", "--pooling", "none"), texts.subList(0, 4)));
        asks.add(List.of("--json", "", "   ", "Words after an empty text and a blank one."));   // warned of, as here
        for (List<String> ask : asks) {
            assertSameAnswer(bert, bertUrl, ask);
            assertSameAnswer(minilm, minilmUrl, ask);
            assertSameAnswer(prompted, promptedUrl, ask);
        }
        assertSameAnswer(bert, bertUrl, List.of("--json", "--pooling", "cls", "Named as the server pools."));
        assertSameAnswer(minilm, minilmUrl, List.of("--json", "--pooling", "mean", "Named as the server pools."));
        // Texts cut: by the model's own length (MiniLM, 256), or with the prompt in the twelve tokens (and as token vectors).
        assertSameAnswer(minilm, minilmUrl, List.of("--json", LONG, "short"));
        assertSameAnswer(bert, bertUrl, List.of("--json", "--truncate", "word ".repeat(600)));
        // Token vectors of 1,510 positions: sent as more than one request, so that no answer holds over 1,024 of them.
        assertSameAnswer(bert, bertUrl, with(List.of("--json", "--pooling", "none"), java.util.Collections.nCopies(5, "word ".repeat(300))));
        assertSameAnswer(prompted, promptedUrl, List.of("--json", "A text long enough to be cut after the prompt put before it.", "Tiny"));
        assertSameAnswer(prompted, promptedUrl, List.of("--json", "--prompt-name", "query", "A text long enough to be cut after its prompt."));
        assertSameAnswer(prompted, promptedUrl, List.of("--json", "--pooling", "none", "A text long enough to be cut after its prompt."));
        assertSameAnswer(prompted, promptedUrl, List.of("--json", "--no-truncate", "Fits."));
        // Texts of 700 bytes, three to a 2 KB request at most; one alone too large for a request is refused, naming it.
        List<String> long700 = List.of("a".repeat(700), "b ".repeat(350), "c".repeat(699), "d".repeat(700), "short");
        TokenizeCommandTest.Run local = run(with(List.of("embed", "--json", "--model", minilm.toString()), long700).toArray(String[]::new));
        TokenizeCommandTest.Run remote = run(with(List.of("embed", "--json", "--server", smallUrl), long700).toArray(String[]::new));
        assertEquals(0, remote.exit(), remote.err());
        assertEquals(local.out(), remote.out());
        assertUserError(run("embed", "--server", smallUrl, "Fits.", "x".repeat(3000)),
                "argument 2 is 3003 bytes as JSON, more than the server at " + smallUrl
                        + " takes in a request (its payload limit is 2048 bytes: serve --payload-limit); run without --server");
    }

    @Test
    void aFileGivesTheSameVectorsAndSummary(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("lines.txt"), List.of("The first line.", "", LONG, "   ", "...", "The last line, after the rest."),
                StandardCharsets.UTF_8);
        for (Path model : List.of(minilm, prompted)) {
            String url = model == minilm ? minilmUrl : promptedUrl;
            TokenizeCommandTest.Run local = run("embed", "--json", "--model", model.toString(), "--file", file.toString());
            TokenizeCommandTest.Run remote = run("embed", "--json", "--server", url, "--file", file.toString());
            assertEquals(0, remote.exit(), remote.err());
            assertEquals(local.out(), remote.out());
            assertEquals(summary(local.err()), summary(remote.err()));
            assertTrue(summary(remote.err()).contains("; 1 text was cut to ") && summary(remote.err()).contains("; 2 texts gave no tokens (line 2 of "),
                    remote.err());
            for (String pooling : List.of("mean", "none")) {
                Path a = dir.resolve("local-" + pooling + ".npy");
                Path b = dir.resolve("remote-" + pooling + ".npy");
                assertEquals(0, run("embed", "--model", model.toString(), "--pooling", pooling, "--file", file.toString(), "--output", a.toString()).exit());
                TokenizeCommandTest.Run written = run("embed", "--server", url, "--pooling", pooling, "--file", file.toString(), "--output", b.toString());
                assertEquals(0, written.exit(), written.err());
                assertArrayEquals(Files.readAllBytes(a), Files.readAllBytes(b), pooling);
                if (pooling.equals("none")) {
                    assertArrayEquals(Files.readAllBytes(dir.resolve("local-none.lengths.npy")), Files.readAllBytes(dir.resolve("remote-none.lengths.npy")));
                }
            }
        }
    }

    @Test
    void whatTheServerCannotDoIsRefusedInOneLine() {
        String text = "A sentence.";
        assertUserError(run("embed", "--server", bertUrl, "--pair", "Another.", text),
                "--pair and --server do not go together: the server's /embed takes single texts");
        assertUserError(run("embed", "--server", bertUrl, "--json", "--attentions", text), "--attentions and --server do not go together");
        assertUserError(run("embed", "--server", bertUrl, "--prompt", "query: ", text),
                "--prompt and --server do not go together: the server takes a prompt by its name: use --prompt-name");
        assertUserError(run("embed", "--server", bertUrl, "--batch-tokens", "64", text), "--batch-tokens and --server do not go together");
        assertUserError(run("embed", "--server", bertUrl, "--threads", "1", text), "--threads and --server do not go together");
        assertUserError(run("embed", "--server", bertUrl, "--pooling", "mean", text),
                "--pooling mean, but the server at " + bertUrl + " pools with cls: drop --pooling to use the server's, or --server to pool here");
        assertUserError(run("embed", "--server", minilmUrl, "--model", bert.toString(), text),
                "--model " + bert + ", but the server at " + minilmUrl + " serves " + minilm);
        assertUserError(run("embed", "--server", classifierUrl, text), "as a classifier, not an embedding model; run without --server");
        // A text too long where the model refuses it, as the local command says it (and before any vector is written).
        TokenizeCommandTest.Run local = run("embed", "--model", bert.toString(), "Fits.", "word ".repeat(600));
        TokenizeCommandTest.Run remote = run("embed", "--server", bertUrl, "Fits.", "word ".repeat(600));
        assertUserError(remote, "is 602 tokens, longer than the model's 512; shorten it or turn truncation on (--truncate cuts it to fit)");
        assertEquals(local.err(), remote.err().lines().skip(1).map(l -> l + "\n").reduce("", String::concat));
        assertUserError(run("embed", "--server", minilmUrl, "--no-truncate", LONG), "is 302 tokens, longer than the model's 256");
        // What the server refuses, with where the texts came from.
        assertUserError(run("embed", "--server", promptedUrl, "--prompt-name", "title", text),
                "the server at " + promptedUrl + " answered 422: the model has no prompt named 'title'");
    }

    private static void assertSameAnswer(Path model, String url, List<String> ask) {
        List<String> local = new ArrayList<>(List.of("embed", "--model", model.toString()));
        local.addAll(ask);
        TokenizeCommandTest.Run expected = run(local.toArray(String[]::new));
        assertEquals(0, expected.exit(), expected.err());
        List<String> remote = new ArrayList<>(List.of("embed", "--server", url));
        remote.addAll(ask);
        TokenizeCommandTest.Run answered = run(remote.toArray(String[]::new));
        assertEquals(0, answered.exit(), answered.err());
        assertEquals(expected.out(), answered.out(), model.getFileName() + " " + String.join(" ", ask));
        assertTrue(answered.err().startsWith("embed: answered by the server at " + url + " (" + model + ", "
                + (model == bert ? "cls" : "mean") + " pooling, float32)\n"), answered.err());
        assertEquals(summary(expected.err()), summary(answered.err()));     // the warnings, such as texts with no tokens
    }

    /** The summary lines of a run's stderr, without the line naming the server and the times, which differ. */
    private static String summary(String err) {
        return err.lines().filter(l -> !l.startsWith("embed: answered by"))
                .map(l -> l.replaceAll(" in [0-9.]+ s \\([0-9]+ tokens/s\\)", "")).reduce("", (a, b) -> a + b + "\n");
    }

    private static List<String> with(List<String> options, List<String> texts) {
        List<String> all = new ArrayList<>(options);
        all.addAll(texts);
        return all;
    }
}
