package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** vectorbert serve as a process: ready line, SIGTERM under load (drained, or cut off at the timeout), and options it refuses. */
class ServeCommandTest {
    private static final Pattern READY = Pattern.compile("ready on (http://127\\.0\\.0\\.1:\\d+/)");

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

    @Test
    void requestsStillInFlightWhenTheShutdownTimeoutEndsAreCutOffAndTheExitIs2(@TempDir Path dir) throws Exception {
        // 24 texts of 402 tokens: 19 s or more at the 500 tokens/s the README measures for BERT-base on 2 cores (128-token texts).
        Process p = CliProcess.start(dir, List.of("serve", "--port", "0", "--shutdown-timeout", "1", "--model",
                TestModels.bertBaseUncased().toString()));
        try {
            URI base = awaitReady(p, dir);
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
    void optionsItCannotServeWithAreRefusedInOneLine() throws Exception {
        assertUserError(run("serve", "--port", "70000"), "--port must be 0 to 65535, was 70000");
        assertUserError(run("serve", "--max-client-batch-size", "0"), "--max-client-batch-size must be positive, was 0");
        assertUserError(run("serve", "--pooling", "median"), "unknown --pooling 'median'");
        assertUserError(run("serve", "--port", "0", "--max-batch-tokens", "100", "--model", TestModels.bertBaseUncased().toString()),
                "--max-batch-tokens 100 is less than the model's longest input (512 tokens)");
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertUserError(run("serve", "--port", Integer.toString(taken.getLocalPort())),
                    "cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }
}
