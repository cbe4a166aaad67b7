package org.vectorbert.cli;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * {@code classify}, {@code rerank}, {@code ner} and {@code qa} with {@code --server URL}: a running server (Jetty, in this JVM) answers, and
 * the output is the local model's to the byte, whatever the options, across more texts than one request may carry.
 */
class TaskHandOffTest {
    @TempDir
    static Path work;

    static Path sentiment;
    static Path multiLabel;
    static Path reranker;
    static Path tagger;
    static Path answerer;
    private static final HandOffServers SERVERS = new HandOffServers();
    private static String sentimentUrl;
    private static String multiLabelUrl;
    private static String rerankerUrl;
    private static String repeatedUrl;
    private static String taggerUrl;
    private static String answererUrl;

    @BeforeAll
    static void start() throws IOException {
        sentiment = TinyTaskModels.sequenceClassifier(work.resolve("sentiment"), List.of("NEGATIVE", "NEUTRAL", "POSITIVE"), "");
        multiLabel = TinyTaskModels.sequenceClassifier(work.resolve("topics"), List.of("geography", "food", "people", "books"),
                ", \"problem_type\": \"multi_label_classification\"");
        reranker = TinyTaskModels.sequenceClassifier(work.resolve("reranker"), List.of("LABEL_0"), "");
        Path repeated = TinyTaskModels.sequenceClassifier(work.resolve("repeated"), List.of("LABEL_0", "LABEL_1"), "");
        // Two labels of one name: its config says so in id2label alone.
        Path config = repeated.resolve("config.json");
        Files.writeString(config, Files.readString(config).replace("\"1\": \"LABEL_1\"", "\"1\": \"LABEL_0\"")
                .replaceAll("\"label2id\": \\{[^}]*}", "\"label2id\": {\"LABEL_0\": 0}"));
        sentimentUrl = serve(sentiment, 32);
        multiLabelUrl = serve(multiLabel, 32);
        rerankerUrl = serve(reranker, 3);          // fewer texts a request than the tests send: the CLI sends several
        repeatedUrl = serve(repeated, 32);
        tagger = TinyTaskModels.tokenClassifier(work.resolve("tagger"), List.of("O", "B-PER", "I-PER", "B-LOC", "I-LOC"));
        taggerUrl = serve(tagger, 4);
        answerer = TinyTaskModels.questionAnswerer(work.resolve("answerer"));
        answererUrl = serve(answerer, 1);
    }

    private static String serve(Path model, int maxClientBatch) {
        return SERVERS.serve(model, maxClientBatch);
    }

    @AfterAll
    static void stop() {
        SERVERS.close();
    }

    private static final List<String> TEXTS = List.of("paris is the capital of france .", "bananas are yellow .",
            "who wrote hamlet ?", "john lives in london .", "berlin is the capital of germany .", "shakespeare wrote hamlet .",
            "what is the capital of france ?", "paris", "londons rivers", "the city of paris is in france .");

    private static List<String> with(List<String> options, List<String> texts) {
        List<String> args = new ArrayList<>(options);
        args.addAll(texts);
        return args;
    }

    private static void sameOutput(String command, Path model, String url, List<String> options) {
        TokenizeCommandTest.Run local = run(with(with(List.of(command, "--model", model.toString()), options), TEXTS).toArray(String[]::new));
        assertEquals(0, local.exit(), local.err());
        TokenizeCommandTest.Run remote = run(with(with(List.of(command, "--server", url), options), TEXTS).toArray(String[]::new));
        assertEquals(0, remote.exit(), remote.err());
        assertEquals(local.out(), remote.out(), command + " " + options);
        assertTrue(remote.err().contains(command + ": answered by the server at " + url + " (" + model + ")"), remote.err());
    }

    @Test
    void classifyThroughTheServerPrintsTheLocalOutput() throws IOException {
        for (List<String> options : List.of(List.<String>of(), List.of("--json"), List.of("--json", "--top-k", "3"),
                List.of("--top-k", "2", "--function-to-apply", "none"), List.of("--json", "--function-to-apply", "sigmoid", "--top-k", "9"),
                List.of("--json", "--pair", "paris is in france ."))) {
            sameOutput("classify", sentiment, sentimentUrl, options);
        }
        // The server's /info says the labels are multi-label, so the default is the sigmoid here too (softmax would differ).
        sameOutput("classify", multiLabel, multiLabelUrl, List.of("--json", "--top-k", "4"));
        TokenizeCommandTest.Run multi = run("classify", "--server", multiLabelUrl, "--json", "--top-k", "4", "paris");
        double sum = 0;
        for (var label : multi.jsonLines().getFirst()) {
            sum += label.get("score").doubleValue();
        }
        assertTrue(Math.abs(sum - 1) > 1e-3, "sigmoids, not a softmax: they sum to " + sum);
    }

    @Test
    void rerankThroughTheServerPrintsTheLocalOutput() {
        for (List<String> options : List.of(List.of("--query", "capital of france"), List.of("--json", "--query", "capital of france"),
                List.of("--json", "--raw-scores", "--top-k", "4", "--query", "who wrote hamlet ?"))) {
            sameOutput("rerank", reranker, rerankerUrl, options);
        }
        // Equal texts score equally: the local order (the texts' own) holds across the server's batches of three.
        List<String> same = List.of("--json", "--query", "paris", "bananas", "paris", "bananas", "paris", "bananas", "paris", "bananas");
        TokenizeCommandTest.Run local = run(with(List.of("rerank", "--model", reranker.toString()), same).toArray(String[]::new));
        TokenizeCommandTest.Run remote = run(with(List.of("rerank", "--server", rerankerUrl), same).toArray(String[]::new));
        assertEquals(0, remote.exit(), remote.err());
        assertEquals(local.out(), remote.out());
    }

    @Test
    void nerThroughTheServerPrintsTheLocalOutput() throws IOException {
        for (String strategy : List.of("none", "simple", "first", "average", "max")) {
            sameOutput("ner", tagger, taggerUrl, List.of("--json", "--aggregation-strategy", strategy, "--ignore-labels", ""));
            sameOutput("ner", tagger, taggerUrl, List.of("--aggregation-strategy", strategy));
        }
        TokenizeCommandTest.Run every = run(with(List.of("ner", "--server", taggerUrl, "--json", "--ignore-labels", ""), TEXTS)
                .toArray(String[]::new));
        assertTrue(every.out().lines().allMatch(l -> l.startsWith("[{\"entity\":")), "every token an entity: " + every.out());
        String longText = String.join(" ", TEXTS);
        for (List<String> options : List.of(List.of("--json", "--aggregation-strategy", "first", "--stride", "4"), List.of("--json"))) {
            List<String> local = with(with(List.of("ner", "--model", tagger.toString()), options), List.of(longText));
            List<String> remote = with(with(List.of("ner", "--server", taggerUrl), options), List.of(longText));
            TokenizeCommandTest.Run r = run(remote.toArray(String[]::new));
            assertEquals(0, r.exit(), r.err());
            assertEquals(run(local.toArray(String[]::new)).out(), r.out(), options.toString());
        }
        assertUserError(run("ner", "--server", sentimentUrl, "paris"),
                "the server at " + sentimentUrl + " answered 424: Model is not a token classification model");
    }

    @Test
    void qaThroughTheServerPrintsTheLocalOutput(@TempDir Path dir) throws IOException {
        String context = "paris is the capital of france . berlin is the capital of germany . bananas are yellow . "
                + "shakespeare wrote hamlet . john lives in london .";
        Path file = dir.resolve("questions.jsonl");
        Files.writeString(file, "{\"question\": \"who wrote hamlet ?\", \"context\": \"" + context + "\"}\n"
                + "{\"question\": \"where does john live ?\", \"context\": \"john lives in london .\"}\n"
                + "{\"question\": \"what is the capital of france ?\", \"context\": \"" + context + "\"}\n");
        for (List<String> options : List.of(List.of("--json"), List.<String>of(), List.of("--json", "--top-k", "3"),
                List.of("--json", "--top-k", "2", "--handle-impossible-answer", "--doc-stride", "4"),
                List.of("--top-k", "5", "--max-answer-len", "3", "--no-align-to-words", "--max-seq-len", "24"))) {
            List<String> local = with(List.of("qa", "--model", answerer.toString(), "--file", file.toString()), options);
            List<String> remote = with(List.of("qa", "--server", answererUrl, "--file", file.toString()), options);
            TokenizeCommandTest.Run r = run(remote.toArray(String[]::new));
            assertEquals(0, r.exit(), r.err());
            assertEquals(run(local.toArray(String[]::new)).out(), r.out(), options.toString());
            assertEquals(3, r.out().lines().filter(l -> l.startsWith("[") || l.startsWith("{") || l.startsWith("\"")).count(), r.out());
        }
        TokenizeCommandTest.Run one = run("qa", "--server", answererUrl, "--json", "--question", "who wrote hamlet ?", "--context", context);
        assertEquals(run("qa", "--model", answerer.toString(), "--json", "--question", "who wrote hamlet ?", "--context", context).out(),
                one.out());
        assertUserError(run("qa", "--server", answererUrl, "--top-k", "0", "--question", "q", "--context", "c"), "--top-k");
        assertUserError(run("qa", "--server", sentimentUrl, "--question", "q", "--context", "c"),
                "the server at " + sentimentUrl + " answered 424: Model is not a question answering model");
    }

    @Test
    void aFileIsSentInBatchesWithItsSummary(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("texts.txt"), TEXTS, StandardCharsets.UTF_8);
        TokenizeCommandTest.Run local = run("classify", "--json", "--model", sentiment.toString(), "--file", file.toString());
        TokenizeCommandTest.Run remote = run("classify", "--json", "--server", sentimentUrl, "--file", file.toString());
        assertEquals(0, remote.exit(), remote.err());
        assertEquals(local.out(), remote.out());
        assertEquals(TEXTS.size(), remote.out().lines().count());
        assertTrue(remote.err().matches("(?s).*classify: " + TEXTS.size() + " texts in [0-9.]+ s \\([0-9.]+ texts/s\\)\\n"), remote.err());
        TokenizeCommandTest.Run ranked = run("rerank", "--json", "--server", rerankerUrl, "--query", "capital", "--file", file.toString());
        assertEquals(run("rerank", "--json", "--model", reranker.toString(), "--query", "capital", "--file", file.toString()).out(),
                ranked.out());
    }

    @Test
    void whatTheServerCannotDoIsOneLine(@TempDir Path dir) throws IOException {
        assertUserError(run("rerank", "--server", sentimentUrl, "--query", "q", "paris"),
                "the server at " + sentimentUrl + " serves " + sentiment + ", which is not a reranker: its classifier has 3 labels "
                        + "[NEGATIVE, NEUTRAL, POSITIVE], a reranker one score");
        assertUserError(run("classify", "--server", repeatedUrl, "paris"), "labels repeat a name [LABEL_0, LABEL_0]");
        String longText = "paris is the capital of france . ".repeat(8).strip();
        // Too long without --truncate: the server's refusal, naming the text it came from.
        Path file = Files.write(dir.resolve("texts.txt"), List.of("paris", longText), StandardCharsets.UTF_8);
        TokenizeCommandTest.Run refused = run("classify", "--server", sentimentUrl, "--file", file.toString());
        assertEquals(2, refused.exit(), refused.err());
        assertTrue(refused.err().contains("vectorbert: line 1 of " + file + " and the 1 after it: the server at " + sentimentUrl
                + " answered 422: "), refused.err());
        assertUserError(run("classify", "--server", sentimentUrl, longText), "the server at " + sentimentUrl + " answered 422: ");
        TokenizeCommandTest.Run cut = run("classify", "--server", sentimentUrl, "--truncate", "--json", longText);
        assertEquals(run("classify", "--model", sentiment.toString(), "--truncate", "--json", longText).out(), cut.out());
        // A reranker cuts long pairs, locally and through the server.
        assertEquals(run("rerank", "--model", reranker.toString(), "--json", "--query", "capital", longText, "paris").out(),
                run("rerank", "--server", rerankerUrl, "--json", "--query", "capital", longText, "paris").out());
        assertUserError(run("classify", "--server", sentimentUrl, "--threads", "1", "paris"), "--threads and --server do not go together");
        assertUserError(run("rerank", "--server", rerankerUrl, "--model", sentiment.toString(), "--query", "q", "paris"),
                "--model " + sentiment + ", but the server at " + rerankerUrl + " serves " + reranker);
    }
}
