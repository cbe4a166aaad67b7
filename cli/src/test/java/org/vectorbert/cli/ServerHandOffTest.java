package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.server.EmbeddingServer;
import org.vectorbert.server.Models;
import org.vectorbert.server.ServerOptions;

/**
 * {@code fill-mask --server URL}: a running server (Jetty, in this JVM, with the real bert-base-uncased) answers the
 * command, and its output is the local model's to the byte; what it refuses, and what it says when the server refuses.
 */
@Tag("heavy")
class ServerHandOffTest {
    private static final String KEY = "hand-off-key";
    private static Path model;
    private static EmbeddingServer served;
    private static EmbeddingServer bare;
    private static EmbeddingServer guarded;

    @BeforeAll
    static void start() {
        model = TestModels.bertBaseUncased();
        Embeddings embeddings = Embeddings.load(model.toString());
        served = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        served.ready(Models.of(model.toString(), embeddings));
        bare = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        bare.ready(Models.of("no-mlm-head", embeddings, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()));
        guarded = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withApiKey(KEY));
        guarded.ready(Models.of(model.toString(), embeddings));
    }

    @AfterAll
    static void stop() {
        for (EmbeddingServer s : new EmbeddingServer[] {served, bare, guarded}) {
            if (s != null) {
                s.close();
            }
        }
    }

    private static String url(EmbeddingServer server) {
        return server.uri().toString();
    }

    @Test
    void theServersAnswerIsTheLocalModelsToTheByte() {
        List<List<String>> asks = List.of(
                List.of("Paris is the [MASK] of France.", "The [MASK] [MASK] barked at the postman.", "Crème brûlée is a French [MASK]."),
                List.of("--json", "--top-k", "3", "Paris is the [MASK] of France.", "The [MASK] [MASK] barked."),
                List.of("--json", "--targets", "nurse,doctor", "The woman worked as a [MASK]."),
                List.of("--top-k", "2", "東京は日本の[MASK]です。 🙂"));
        for (List<String> ask : asks) {
            TokenizeCommandTest.Run local = run(fillMask(List.of("--model", model.toString()), ask));
            assertEquals(0, local.exit(), local.err());
            TokenizeCommandTest.Run remote = run(fillMask(List.of("--server", url(served)), ask));
            assertEquals(0, remote.exit(), remote.err());
            assertEquals(local.out(), remote.out(), String.join(" ", ask));
            assertTrue(remote.err().contains("fill-mask: answered by the server at " + url(served) + " (" + model + ")"), remote.err());
            assertFalse(local.err().contains("--top-k") || remote.err().contains("--top-k"), "no --top-k given: " + remote.err());
            // --model naming the server's model, and the URL without its trailing slash, give the same.
            TokenizeCommandTest.Run named = run(fillMask(List.of("--model", model.toString(), "--server", url(served).replaceAll("/$", "")), ask));
            assertEquals(local.out(), named.out(), named.err());
        }
        // More candidates asked than there are: said as the local run says it.
        TokenizeCommandTest.Run few = run("fill-mask", "--server", url(served), "--top-k", "9", "--targets", "nurse,doctor",
                "The woman worked as a [MASK].");
        assertEquals(0, few.exit(), few.err());
        assertTrue(few.err().contains("fill-mask: --top-k 9 is more than the 2 targets; showing all 2"), few.err());
    }

    @Test
    void aFileIsSentLineByLineWithItsSummary(@TempDir Path dir) throws IOException {
        Path file = Files.write(dir.resolve("masks.txt"), List.of("Paris is the [MASK] of France.", "The [MASK] barked.",
                "I drank a cup of [MASK]."), StandardCharsets.UTF_8);
        TokenizeCommandTest.Run local = run("fill-mask", "--json", "--model", model.toString(), "--file", file.toString());
        TokenizeCommandTest.Run remote = run("fill-mask", "--json", "--server", url(served), "--file", file.toString());
        assertEquals(0, remote.exit(), remote.err());
        assertEquals(local.out(), remote.out());
        assertEquals(3, remote.out().lines().count());
        assertTrue(remote.err().matches("(?s).*fill-mask: 3 texts in [0-9.]+ s \\([0-9.]+ texts/s\\)\\n"), remote.err());
    }

    @Test
    void whatTheServerRefusesIsOneLineWithWhereItCameFrom(@TempDir Path dir) throws IOException {
        assertUserError(run("fill-mask", "--server", url(served), "No mask here."),
                "the server at " + url(served) + " answered 422: ");
        Path file = Files.write(dir.resolve("masks.txt"), List.of("The [MASK] barked.", "no mask"), StandardCharsets.UTF_8);
        TokenizeCommandTest.Run r = run("fill-mask", "--server", url(served), "--file", file.toString());
        assertEquals(2, r.exit(), r.err());
        assertTrue(r.out().contains("barked"), r.out());                         // the first line's answer is out
        assertTrue(r.err().contains("vectorbert: line 2 of " + file + ": the server at " + url(served) + " answered 422: "), r.err());
        assertUserError(run("fill-mask", "--server", url(bare), "The [MASK] barked."),
                "the server at " + url(bare) + " serves no-mlm-head, which has no masked-language-model head, so it cannot fill masks");
    }

    @Test
    void optionsThatContradictTheServerAreRefused() throws IOException {
        assertUserError(run("fill-mask", "--server", url(served), "--model", "google-bert/bert-base-cased", "The [MASK] barked."),
                "--model google-bert/bert-base-cased, but the server at " + url(served) + " serves " + model);
        assertUserError(run("fill-mask", "--server", url(served), "--dtype", "bf16", "The [MASK] barked."),
                "--dtype bf16, but the server at " + url(served) + " runs its model in float32");
        assertUserError(run("fill-mask", "--server", url(served), "--threads", "1", "The [MASK] barked."),
                "--threads and --server do not go together");
        assertUserError(run("fill-mask", "--server", "ftp://127.0.0.1/", "The [MASK] barked."),
                "--server: give the server's address as http://HOST:PORT, was ftp://127.0.0.1/");
        int closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = socket.getLocalPort();
        }
        assertUserError(run("fill-mask", "--server", "http://127.0.0.1:" + closed, "The [MASK] barked."),
                "--server: nothing answers at http://127.0.0.1:" + closed + "/ (");
    }

    /** In a process of its own, as a shell runs it: the API key from the environment, and the exit codes. */
    @Test
    void theApiKeyComesFromTheEnvironment(@TempDir Path dir) throws Exception {
        List<String> command = CliProcess.command();
        command.addAll(List.of("fill-mask", "--json", "--server", url(guarded), "Paris is the [MASK] of France."));
        ProcessResult without = runProcess(command, dir, null);
        assertEquals(2, without.exit(), without.err());
        assertTrue(without.err().contains("the server at " + url(guarded) + " answered 401: ")
                && without.err().contains("set $VECTORBERT_API_KEY to its API key"), without.err());
        ProcessResult with = runProcess(command, dir, KEY);
        assertEquals(0, with.exit(), with.err());
        assertEquals(run("fill-mask", "--json", "--model", model.toString(), "Paris is the [MASK] of France.").out(), with.out());
    }

    private record ProcessResult(int exit, String out, String err) {}

    private static ProcessResult runProcess(List<String> command, Path dir, String key) throws Exception {
        ProcessBuilder b = new ProcessBuilder(command).redirectOutput(dir.resolve("out").toFile()).redirectError(dir.resolve("err").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        b.environment().remove("VECTORBERT_API_KEY");
        if (key != null) {
            b.environment().put("VECTORBERT_API_KEY", key);
        }
        Process p = b.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("vectorbert did not end within 120 s");
        }
        return new ProcessResult(p.exitValue(), Files.readString(dir.resolve("out")), Files.readString(dir.resolve("err")));
    }

    private static String[] fillMask(List<String> options, List<String> ask) {
        List<String> all = new ArrayList<>(List.of("fill-mask"));
        all.addAll(options);
        all.addAll(ask);
        return all.toArray(String[]::new);
    }
}
