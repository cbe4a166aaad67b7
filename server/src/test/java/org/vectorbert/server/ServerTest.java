package org.vectorbert.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.FillMask;

/**
 * The server on loopback with the real bert-base-uncased, spoken to over HTTP as clients would:
 * every answer is checked against the library's own for the same texts.
 */
@Tag("heavy")
class ServerTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP = HttpClient.newHttpClient();
    static Embeddings embeddings;
    static EmbeddingServer server;

    @BeforeAll
    static void start() {
        embeddings = Embeddings.load(RealModels.bertBaseUncased().toString());
        server = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        server.ready(Models.of("bert-base-uncased", embeddings));
    }

    @AfterAll
    static void stop() {
        server.stop();
    }

    static HttpResponse<String> post(EmbeddingServer s, String path, String body) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(s.uri().resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(EmbeddingServer s, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(s.uri().resolve(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    static float[] floats(JsonNode array) {
        float[] v = new float[array.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = array.get(i).floatValue();
        }
        return v;
    }

    static JsonNode json(HttpResponse<String> r) throws IOException {
        return JSON.readTree(r.body());
    }

    static void assertError(HttpResponse<String> r, int status, String type, String message) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        assertEquals(type, json(r).get("error_type").asText(), r.body());
        assertTrue(json(r).get("error").asText().contains(message), r.body());
    }

    @Test
    void embedGivesTheLibrarysVectorsBitForBit() throws Exception {
        List<String> texts = List.of("short", "A somewhat longer sentence than the first one.", "middle length text");
        HttpResponse<String> r = post(server, "embed", JSON.writeValueAsString(java.util.Map.of("inputs", texts)));
        assertEquals(200, r.statusCode(), r.body());
        List<float[]> expected = embeddings.with(embeddings.options().withNormalize(true)).embed(texts);
        for (int i = 0; i < texts.size(); i++) {
            assertArrayEquals(expected.get(i), floats(json(r).get(i)), texts.get(i));
        }
        HttpResponse<String> raw = post(server, "embed", "{\"inputs\": \"short\", \"normalize\": false}");
        assertArrayEquals(embeddings.embed("short"), floats(json(raw).get(0)));
    }

    @Test
    void embedAllGivesEveryTokensVector() throws Exception {
        HttpResponse<String> r = post(server, "embed_all", "{\"inputs\": [\"hello world\"]}");
        assertEquals(200, r.statusCode(), r.body());
        float[] tokens = embeddings.run(List.of("hello world"), null, Embeddings.Include.TOKEN_VECTORS).getFirst().tokenVectors();
        JsonNode first = json(r).get(0);
        assertEquals(4, first.size());
        for (int t = 0; t < 4; t++) {
            assertArrayEquals(java.util.Arrays.copyOfRange(tokens, t * 768, (t + 1) * 768), floats(first.get(t)));
        }
    }

    @Test
    void requestsFromManyClientsShareForwardPassesAndEachGetsItsOwnVector() throws Exception {
        double passesBefore = metric("te_batch_size_count");
        // One long text first keeps the inference thread busy while the others queue behind it.
        CompletableFuture<HttpResponse<String>> longOne = CompletableFuture.supplyAsync(() -> call("{\"inputs\": \"" + "word ".repeat(500) + "\"}"));
        Thread.sleep(100);
        List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            String text = "client number " + i + " says" + " hello".repeat(i % 5);
            texts.add(text);
            calls.add(CompletableFuture.supplyAsync(() -> call("{\"inputs\": \"" + text + "\", \"normalize\": false}")));
        }
        assertEquals(200, longOne.get().statusCode());
        for (int i = 0; i < 16; i++) {
            HttpResponse<String> r = calls.get(i).get();
            assertEquals(200, r.statusCode(), r.body());
            assertArrayEquals(embeddings.embed(texts.get(i)), floats(json(r).get(0)), texts.get(i));
        }
        double passes = metric("te_batch_size_count") - passesBefore;
        assertTrue(passes < 17, "17 requests took " + passes + " passes");
    }

    private static HttpResponse<String> call(String body) {
        try {
            return post(server, "embed", body);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    static double metric(String name) throws Exception {
        return metric(server, name);
    }

    /** A metric's value as {@code s}'s /metrics gives it, 0 when it has none yet. */
    static double metric(EmbeddingServer s, String name) throws Exception {
        for (String line : get(s, "metrics").body().split("\n")) {
            if (line.startsWith(name + " ")) {
                return Double.parseDouble(line.substring(name.length() + 1));
            }
        }
        return 0;
    }

    @Test
    void embedSparseAndSimilarityAnswerAsTei() throws Exception {
        List<String> texts = List.of("Paris is the capital of France.", "Bananas are yellow.");
        HttpResponse<String> r = post(server, "embed_sparse", "{\"inputs\": " + JSON.writeValueAsString(texts) + "}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode sparse = JSON.readTree(r.body());
        List<org.vectorbert.engine.SparseEmbeddings.SparseVector> want =
                org.vectorbert.engine.SparseEmbeddings.of(embeddings.model(), embeddings.tokenizer()).embed(texts);
        assertEquals(2, sparse.size());
        for (int i = 0; i < 2; i++) {
            assertEquals(want.get(i).size(), sparse.get(i).size());
            assertTrue(want.get(i).size() > 10 && want.get(i).size() < embeddings.model().config().vocabSize(), "sparse: " + want.get(i).size());
            for (int k = 0; k < want.get(i).size(); k++) {
                assertEquals(want.get(i).indices()[k], sparse.get(i).get(k).get("index").asInt());
                assertEquals(want.get(i).values()[k], sparse.get(i).get(k).get("value").floatValue());
            }
        }
        int paris = embeddings.tokenizer().tokenToId("paris");
        assertTrue(java.util.stream.IntStream.of(want.getFirst().indices()).anyMatch(i -> i == paris), "the text's own words are in its vector");

        HttpResponse<String> sim = post(server, "similarity", "{\"inputs\": {\"source_sentence\": \"The capital of France.\", "
                + "\"sentences\": " + JSON.writeValueAsString(texts) + "}}");
        assertEquals(200, sim.statusCode(), sim.body());
        JsonNode cosines = JSON.readTree(sim.body());
        Embeddings raw = embeddings.with(embeddings.options().withNormalize(false));
        float[] a = raw.embed("The capital of France.");
        for (int i = 0; i < 2; i++) {
            float[] b = raw.embed(texts.get(i));
            double dot = 0;
            double na = 0;
            double nb = 0;
            for (int d = 0; d < a.length; d++) {
                dot += a[d] * b[d];
                na += a[d] * a[d];
                nb += b[d] * b[d];
            }
            assertEquals(dot / Math.sqrt(na * nb), cosines.get(i).asDouble(), 1e-5, texts.get(i));
        }
        assertTrue(cosines.get(0).asDouble() > cosines.get(1).asDouble(), cosines.toString());
        assertEquals(422, post(server, "similarity", "{\"inputs\": {\"sentences\": [\"a\"]}}").statusCode());
        assertEquals(400, post(server, "similarity", "{\"inputs\": {\"source_sentence\": \"a\", \"sentences\": []}}").statusCode());
        assertEquals(422, post(server, "embed_sparse", "{\"inputs\": [\"a\"], \"prompt_name\": \"nope\"}").statusCode());
    }

    @Test
    void tokenizeDecodeAndInfoHaveTeisShapes() throws Exception {
        JsonNode tokens = json(post(server, "tokenize", "{\"inputs\": \"héllo world\"}"));
        assertEquals("[[{\"id\":101,\"text\":\"[CLS]\",\"special\":true,\"start\":null,\"stop\":null},"
                + "{\"id\":7592,\"text\":\"héllo\",\"special\":false,\"start\":0,\"stop\":5},"
                + "{\"id\":2088,\"text\":\"world\",\"special\":false,\"start\":6,\"stop\":11},"
                + "{\"id\":102,\"text\":\"[SEP]\",\"special\":true,\"start\":null,\"stop\":null}]]", tokens.toString());
        // An empty text: the template's special tokens, as Hugging Face's tokenizer gives them (the embed routes refuse it).
        assertEquals("[[{\"id\":101,\"text\":\"[CLS]\",\"special\":true,\"start\":null,\"stop\":null},"
                + "{\"id\":102,\"text\":\"[SEP]\",\"special\":true,\"start\":null,\"stop\":null}]]",
                json(post(server, "tokenize", "{\"inputs\": \"\"}")).toString());
        assertEquals("[[],[]]", json(post(server, "tokenize", "{\"inputs\": [\"\", \"\"], \"add_special_tokens\": false}")).toString());
        assertEquals("[\"hello world\"]", post(server, "decode", "{\"ids\": [101, 7592, 2088, 102]}").body());
        assertEquals("[\"[CLS] hello\",\"world\"]",
                post(server, "decode", "{\"ids\": [[101, 7592], [2088]], \"skip_special_tokens\": false}").body());
        JsonNode info = json(get(server, "info"));
        assertEquals("bert-base-uncased", info.get("model_id").asText());
        assertEquals(512, info.get("max_input_length").asInt());
        assertEquals(16384, info.get("max_batch_tokens").asInt());
        assertEquals(32, info.get("max_client_batch_size").asInt());
        assertEquals(ServerOptions.defaults().payloadLimit(), info.get("payload_limit").asLong());
        assertEquals(512, info.get("max_concurrent_requests").asInt());
        assertEquals("cls", info.get("model_type").get("embedding").get("pooling").asText());
        // A plain checkpoint neither normalises nor cuts its texts itself (a sentence-transformers model does: EmbedHandOffTest).
        assertEquals(false, info.get("model_type").get("embedding").get("normalize").asBoolean(true));
        assertEquals(false, info.get("model_type").get("embedding").get("truncate").asBoolean(true));
        assertEquals(200, get(server, "health").statusCode());
    }

    @Test
    void fillMaskAnswersAsHuggingFacesInferenceApi() throws Exception {
        JsonNode one = json(post(server, "fill-mask", "{\"inputs\": \"Paris is the [MASK] of France.\", \"parameters\": {\"top_k\": 3}}"));
        FillMask.Prediction expected = FillMask.of(embeddings.model(), embeddings.tokenizer(),
                org.vectorbert.engine.FillMaskOptions.defaults().withTopK(3)).predict("Paris is the [MASK] of France.");
        assertEquals(3, one.size());
        for (int i = 0; i < 3; i++) {
            FillMask.Candidate c = expected.candidates().get(i);
            assertEquals(c.tokenStr(), one.get(i).get("token_str").asText());
            assertEquals(c.token(), one.get(i).get("token").asInt());
            assertEquals(c.score(), one.get(i).get("score").floatValue());
            assertEquals(c.sequence(), one.get(i).get("sequence").asText());
        }
        JsonNode targeted = json(post(server, "fill-mask",
                "{\"inputs\": [\"The man worked as a [MASK].\"], \"parameters\": {\"targets\": [\"nurse\", \"doctor\"]}}"));
        assertEquals(1, targeted.size());
        assertEquals(2, targeted.get(0).size());
        JsonNode twoMasks = json(post(server, "fill-mask", "{\"inputs\": \"[MASK] is the [MASK] of France.\"}"));
        assertEquals(2, twoMasks.size());
        assertEquals(5, twoMasks.get(1).size());
        assertError(post(server, "fill-mask", "{\"inputs\": \"no mask here\"}"), 422, "Validation", "no [MASK] token");
    }

    @Test
    void openAiEmbeddingsAsFloatsAndBase64() throws Exception {
        List<float[]> expected = embeddings.with(embeddings.options().withNormalize(true)).embed(List.of("one", "two words"));
        JsonNode floats = json(post(server, "v1/embeddings", "{\"input\": [\"one\", \"two words\"], \"model\": \"anything\"}"));
        assertEquals("list", floats.get("object").asText());
        assertEquals("bert-base-uncased", floats.get("model").asText());
        assertEquals(7, floats.get("usage").get("prompt_tokens").asInt());
        assertEquals(1, floats.get("data").get(1).get("index").asInt());
        assertArrayEquals(expected.get(1), floats(floats.get("data").get(1).get("embedding")));
        JsonNode base64 = json(post(server, "v1/embeddings", "{\"input\": \"one\", \"encoding_format\": \"base64\"}"));
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64.get("data").get(0).get("embedding").asText()))
                .order(ByteOrder.LITTLE_ENDIAN);
        float[] decoded = new float[768];
        bytes.asFloatBuffer().get(decoded);
        assertArrayEquals(expected.get(0), decoded);
        // Matryoshka truncation: the first components, normalised after the cut.
        JsonNode cut = json(post(server, "v1/embeddings", "{\"input\": \"one\", \"dimensions\": 256}"));
        float[] short256 = floats(cut.get("data").get(0).get("embedding"));
        assertArrayEquals(embeddings.with(embeddings.options().withNormalize(true).withDimensions(256)).embed("one"), short256);
        double norm = 0;
        for (float x : short256) {
            norm += x * x;
        }
        assertEquals(1.0, norm, 1e-5);
        JsonNode teiCut = json(post(server, "embed", "{\"inputs\": [\"one\", \"two\"], \"dimensions\": 64, \"normalize\": false}"));
        assertArrayEquals(java.util.Arrays.copyOf(embeddings.with(embeddings.options().withNormalize(false)).embed("two"), 64),
                floats(teiCut.get(1)));
        HttpResponse<String> tooMany = post(server, "v1/embeddings", "{\"input\": \"one\", \"dimensions\": 1000}");
        assertEquals(422, tooMany.statusCode());
        assertTrue(json(tooMany).get("error").get("message").asText().contains("768"), tooMany.body());
        assertError(post(server, "embed", "{\"inputs\": \"one\", \"dimensions\": 0}"), 422, "Validation", "dimensions must be from 1");
    }

    /** An OpenAI error: the status, {@code error.code} (TEI's error type) and words of {@code error.message}. */
    static void assertOpenAiError(HttpResponse<String> r, int status, String code, String message) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        assertEquals(code, json(r).path("error").path("code").asText(), r.body());
        assertEquals("invalid_request_error", json(r).path("error").path("type").asText(), r.body());
        assertTrue(json(r).path("error").path("message").asText().contains(message), r.body());
    }

    @Test
    void openAiEmbeddingsCutLongTextsAndTakeOpenAisBatchLimit() throws Exception {
        // A text over the model's 512 tokens is cut, as the library cuts it: an OpenAI client has no way to ask.
        String longText = "word ".repeat(600);
        JsonNode cut = json(post(server, "v1/embeddings", JSON.writeValueAsString(java.util.Map.of("input", List.of(longText, "one")))));
        assertArrayEquals(embeddings.with(embeddings.options().withNormalize(true).withTruncate(true)).embed(longText),
                floats(cut.get("data").get(0).get("embedding")));
        assertEquals(512 + 3, cut.get("usage").get("prompt_tokens").asInt());
        // OpenAI's 2,048 inputs a request, not TEI's 32 (which /embed keeps); more are refused in OpenAI's error shape.
        assertOpenAiError(post(server, "v1/embeddings", JSON.writeValueAsString(java.util.Map.of("input",
                java.util.Collections.nCopies(2049, "x")))), 422, "Validation", "batch size 2049 > maximum allowed batch size 2048");
        // 2,048 texts of 900 characters (about 180 tokens each, 370,000 in all: more than the 300,000 OpenAI takes in one
        // request) fit under the default 2 MB payload limit: the body is read and the refusal is for its dimensions.
        String big = JSON.writeValueAsString(java.util.Map.of("input", java.util.Collections.nCopies(2048, "word ".repeat(180)), "dimensions",
                100_000));
        assertTrue(big.length() > 1_800_000 && big.length() < ServerOptions.defaults().payloadLimit(), big.length() + " bytes");
        assertOpenAiError(post(server, "v1/embeddings", big), 422, "Validation", "768");
        assertEquals(2048, json(get(server, "info")).get("v1_max_inputs").asInt());
        assertEquals(true, json(get(server, "info")).get("v1_truncate").asBoolean(false));
    }

    @Test
    void openAiEmbeddingsRefuseLongTextsWhenTheServerIsToldNotToCut() throws Exception {
        try (EmbeddingServer strict = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withV1Truncate(false))) {
            strict.ready(Models.of("bert-base-uncased", embeddings));
            String tooLong = JSON.writeValueAsString(java.util.Map.of("input", List.of("ok", "word ".repeat(600))));
            assertOpenAiError(post(strict, "v1/embeddings", tooLong), 422, "Validation",
                    "input 1 is 602 tokens, longer than the model's 512; shorten it: this server was started not to cut texts sent to "
                            + "/v1/embeddings (serve --v1-truncate false)");
            assertEquals(false, json(get(strict, "info")).get("v1_truncate").asBoolean(true));
        }
    }

    @Test
    void teisRoutesCutLongTextsByDefaultAsTeiDoesSince19() throws Exception {
        // TEI's --auto-truncate is true by default since TEI 1.9: a request that does not say "truncate" has its long text cut.
        String longText = "word ".repeat(600);
        assertEquals(true, json(get(server, "info")).get("auto_truncate").asBoolean(false));
        JsonNode cut = json(post(server, "embed", JSON.writeValueAsString(java.util.Map.of("inputs", List.of(longText, "ok")))));
        assertArrayEquals(embeddings.with(embeddings.options().withNormalize(true).withTruncate(true)).embed(longText), floats(cut.get(0)));
        assertEquals(200, post(server, "similarity", JSON.writeValueAsString(java.util.Map.of("inputs",
                java.util.Map.of("source_sentence", longText, "sentences", List.of("ok"))))).statusCode());
        // --no-auto-truncate: TEI's routes refuse it unless the request says "truncate": true; /v1/embeddings still cuts.
        try (EmbeddingServer strict = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withAutoTruncate(false))) {
            strict.ready(Models.of("bert-base-uncased", embeddings));
            assertEquals(false, json(get(strict, "info")).get("auto_truncate").asBoolean(true));
            assertError(post(strict, "embed", JSON.writeValueAsString(java.util.Map.of("inputs", List.of("ok", longText)))), 422,
                    "Validation", "input 1 is 602 tokens, longer than the model's 512; shorten it or send \"truncate\": true");
            assertError(post(strict, "similarity", JSON.writeValueAsString(java.util.Map.of("inputs",
                    java.util.Map.of("source_sentence", longText, "sentences", List.of("ok"))))), 422, "Validation", "longer than the model's 512");
            assertEquals(200, post(strict, "embed", JSON.writeValueAsString(java.util.Map.of("inputs", longText, "truncate", true))).statusCode());
            assertEquals(200, post(strict, "v1/embeddings", JSON.writeValueAsString(java.util.Map.of("input", longText))).statusCode());
        }
    }

    @Test
    void badRequestsGetTeisErrors() throws Exception {
        assertError(post(server, "embed", "{\"inputs\": []}"), 400, "Empty", "`inputs` cannot be empty");
        String many = JSON.writeValueAsString(java.util.Map.of("inputs", java.util.Collections.nCopies(33, "x")));
        assertError(post(server, "embed", many), 422, "Validation", "batch size 33 > maximum allowed batch size 32");
        assertError(post(server, "embed", "{\"inputs\": [\"a\", \"\"]}"), 422, "Validation", "`inputs[1]` is an empty string");
        // A request's own "truncate": false refuses a long text even though the server cuts by default.
        String tooLong = "{\"inputs\": [\"ok\", \"" + "word ".repeat(600) + "\"], \"truncate\": false}";
        assertError(post(server, "embed", tooLong), 422, "Validation",
                "input 1 is 602 tokens, longer than the model's 512; shorten it or send \"truncate\": true");
        String cut = "{\"inputs\": \"" + "word ".repeat(600) + "\", \"truncate\": true, \"truncation_direction\": \"Left\"}";
        assertEquals(200, post(server, "embed", cut).statusCode());
        assertError(post(server, "embed", "{\"inputs\": \"a\", \"truncation_direction\": \"up\"}"), 422, "Validation", "`truncation_direction`");
        assertError(post(server, "embed", "{\"inputs\": \"a\", \"prompt_name\": \"query\"}"), 422, "Validation", "no prompt named 'query'");
        assertError(post(server, "embed", "{\"inputs\": [1, 2]}"), 422, "Validation", "token ids are not accepted");
        assertError(post(server, "embed", "{\"inputs\": "), 422, "Validation", "not valid JSON");
        assertError(post(server, "embed", "[1]"), 422, "Validation", "must be a JSON object");
        assertError(post(server, "decode", "{\"ids\": [999999]}"), 422, "Validation", "not a token id");
        assertError(get(server, "embed"), 405, "Validation", "/embed takes POST");
        assertError(get(server, "nowhere"), 404, "NotFound", "no route /nowhere");
    }

    @Test
    void bodiesOverThePayloadLimitAreRefusedWith413() throws Exception {
        try (EmbeddingServer small = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withPayloadLimit(1000))) {
            small.ready(Models.of("bert-base-uncased", embeddings));
            String big = "{\"inputs\": \"" + "a".repeat(2000) + "\"}";
            assertError(post(small, "embed", big), 413, "Validation", "over the payload limit of 1000 bytes");
            // Without a length up front (chunked), the body is read up to the limit and no further.
            HttpResponse<String> chunked = HTTP.send(HttpRequest.newBuilder(small.uri().resolve("embed"))
                    .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big.getBytes()))).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertError(chunked, 413, "Validation", "more than 1000 bytes");
            // A declared length over the limit is answered before the body is sent.
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", small.port())) {
                socket.getOutputStream().write(("POST /embed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n")
                        .getBytes());
                socket.getOutputStream().flush();
                socket.setSoTimeout(10_000);
                String head = new String(socket.getInputStream().readNBytes(12));
                assertEquals("HTTP/1.1 413", head);
            }
        }
    }

    @Test
    void theModelsRoutesAnswer503UntilItIsLoaded() throws Exception {
        try (EmbeddingServer loading = EmbeddingServer.start(ServerOptions.defaults().withPort(0))) {
            assertError(get(loading, "health"), 503, "Unhealthy", "still loading");
            assertError(post(loading, "embed", "{\"inputs\": \"a\"}"), 503, "Unhealthy", "still loading");
            assertEquals(200, get(loading, "metrics").statusCode());
            loading.ready(Models.of("bert-base-uncased", embeddings));
            assertEquals(200, get(loading, "health").statusCode());
            assertEquals(200, post(loading, "embed", "{\"inputs\": \"a\"}").statusCode());
        }
    }

    @Test
    void anApiKeyGuardsEveryRouteButHealthAndTheDescription() throws Exception {
        try (EmbeddingServer guarded = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withApiKey("s3cret"))) {
            guarded.ready(Models.of("bert-base-uncased", embeddings));
            assertEquals(200, get(guarded, "health").statusCode());
            // What a browser's address bar opens, with no Authorization header: the page, its assets and the document it reads.
            for (String open : List.of("docs", "docs/swagger-ui-bundle.js", "docs/swagger-ui.css", "openapi.json")) {
                assertEquals(200, get(guarded, open).statusCode(), open);
            }
            assertError(post(guarded, "embed", "{\"inputs\": \"a\"}"), 401, "Unauthorized", "Authorization: Bearer");
            assertEquals(401, get(guarded, "metrics").statusCode());
            HttpResponse<String> wrong = HTTP.send(HttpRequest.newBuilder(guarded.uri().resolve("info")).header("Authorization", "Bearer nope")
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(401, wrong.statusCode());
            HttpResponse<String> right = HTTP.send(HttpRequest.newBuilder(guarded.uri().resolve("embed")).header("Authorization", "Bearer s3cret")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"inputs\": \"a\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, right.statusCode());
        }
    }

    @Test
    void requestsOverTheConcurrencyLimitGet429AtOnce() throws Exception {
        try (EmbeddingServer one = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withMaxConcurrentRequests(1))) {
            one.ready(Models.of("bert-base-uncased", embeddings));
            String slow = JSON.writeValueAsString(java.util.Map.of("inputs", java.util.Collections.nCopies(4, "word ".repeat(500))));
            CompletableFuture<HttpResponse<String>> busy = CompletableFuture.supplyAsync(() -> {
                try {
                    return post(one, "embed", slow);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(300);
            long start = System.nanoTime();
            HttpResponse<String> refused = post(one, "embed", "{\"inputs\": \"a\"}");
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertError(refused, 429, "Overloaded", "more than 1 requests at once");
            assertTrue(!busy.isDone(), "the slow request should still be running (it took under 300 ms)");
            assertTrue(millis < 2000, "429 came after " + millis + " ms");
            assertEquals(200, busy.get().statusCode());
        }
    }

    /** A client that waits for each answer before the next request never finds its own finished request holding the place. */
    @Test
    void aSequentialClientIsNeverRefusedByItsOwnLastRequest() throws Exception {
        ServerOptions options = ServerOptions.defaults().withPort(0).withMaxConcurrentRequests(1).withPayloadLimit(64);
        try (EmbeddingServer one = EmbeddingServer.start(options)) {
            one.ready(Models.of("bert-base-uncased", embeddings));
            String tooLarge = "{\"inputs\": \"" + "x".repeat(4096) + "\"}";
            for (int i = 0; i < 300; i++) {
                boolean small = i % 2 == 0;
                HttpResponse<String> r = small ? post(one, "tokenize", "{\"inputs\": \"a\"}") : post(one, "embed", tooLarge);
                assertEquals(small ? 200 : 413, r.statusCode(), "request " + i + ": " + r.body());
            }
        }
    }

    /** GET /attention serves the explorer's own page for the text, with a form filled in for the next one. */
    @Test
    void attentionServesTheExplorersPage() throws Exception {
        String text = "time flies like an arrow";
        String pair = "fruit flies like a banana";
        java.util.function.Function<String, String> q = v -> java.net.URLEncoder.encode(v, java.nio.charset.StandardCharsets.UTF_8);
        HttpResponse<String> page = get(server, "attention?text=" + q.apply(text) + "&pair=" + q.apply(pair) + "&layers=0-1&heads=8&view=neuron");
        assertEquals(200, page.statusCode(), page.body());
        assertEquals("text/html;charset=utf-8", page.headers().firstValue("Content-Type").orElse("").replace(" ", "").toLowerCase());
        org.vectorbert.explorer.AttentionRun run = org.vectorbert.explorer.AttentionRun.capture(embeddings, "bert-base-uncased", text, pair);
        String expected = org.vectorbert.explorer.AttentionPage.html(run, org.vectorbert.explorer.Selection.parse("0-1", "8", 12, 12),
                org.vectorbert.explorer.View.NEURON, new org.vectorbert.explorer.AttentionPage.Form("/attention", text, pair, "0-1", "8"));
        assertEquals(expected, page.body(), "the library's page, number for number");
        HttpResponse<String> example = get(server, "attention");
        assertEquals(200, example.statusCode());
        assertTrue(example.body().contains("\"text\":\"time flies like an arrow\""), "bertviz's example in the form");
        assertError(get(server, "attention?text=hi&layers=12"), 422, "Validation", "layer 12 is out of range");
        assertError(get(server, "attention?text=%20"), 422, "Validation", "the text is empty");
        assertError(get(server, "attention?text=" + q.apply("word ".repeat(600))), 422, "Validation", "longer than the model's 512");
    }

    /** /docs is Swagger UI over /openapi.json, its files served from the webjar; OpenApiTest holds the document itself. */
    @Test
    void docsServeSwaggerUi() throws Exception {
        HttpResponse<String> docs = get(server, "docs");
        assertTrue(docs.body().contains("SwaggerUIBundle") && docs.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
        assertEquals(200, get(server, "docs/swagger-ui-bundle.js").statusCode());
        assertEquals(200, get(server, "docs/swagger-ui.css").statusCode());
        assertTrue(get(server, "docs/..%2Fopenapi.json").statusCode() >= 400);
        assertEquals(404, get(server, "docs/nothing.js").statusCode());
    }
}
