package org.vectorbert.server;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * The server's request bodies: any body, to every POST route, over loopback HTTP. The answer is 2xx, or a 4xx with
 * TEI's error body {@code {"error", "error_type"}} (OpenAI's {@code {"error": {"message", ...}}} under /v1/); 503 only
 * as a deliberate error with that body; never another 5xx, never no answer within the timeout; and /health still
 * answers 200 after each request. Half the bodies are JSON objects built of the fields the routes read (so the
 * fuzzer gets past the JSON parser into each route's checks), half are the input's bytes as they are.
 *
 * <p>One server for the whole run, on one tiny model (hidden 8, 32 positions) with every head at once: the masked-LM
 * head (/fill-mask, /embed_sparse), a one-label classifier that is both the sequence classifier (/predict, and /rerank, which
 * wants one label) and the token classifier (/token-classification), and the question-answering head.
 */
@Tag("heavy")
class HttpBodyFuzzTest {
    private static final List<String> ROUTES = List.of("embed", "embed_all", "embed_sparse", "similarity", "v1/embeddings", "fill-mask",
            "rerank", "predict", "token-classification", "question-answering", "tokenize", "decode");
    /** Every field a route reads, at the top level or in {@code parameters} and {@code inputs}. */
    private static final List<String> FIELDS = List.of("inputs", "input", "texts", "query", "parameters", "normalize", "truncate",
            "truncation_direction", "prompt_name", "raw_scores", "return_text", "top_k", "ids", "skip_special_tokens",
            "add_special_tokens", "model", "dimensions", "encoding_format", "user", "aggregation_strategy", "ignore_labels", "stride",
            "doc_stride", "max_answer_len", "max_seq_len", "handle_impossible_answer", "align_to_words", "question", "context",
            "source_sentence", "sentences", "targets", "pooling");
    /** Strings the routes give a meaning to, and texts of the model's words. */
    private static final List<String> WORDS = List.of("", "[MASK]", "[CLS]", "[SEP]", "[PAD]", "[UNK]", "left", "right", "none", "simple",
            "first", "average", "max", "float", "base64", "O", "LABEL_0", "LABEL_1", "tiny", "paris is the capital of [MASK] .",
            "who wrote hamlet ?", "shakespeare wrote hamlet . john lives in london .", "the capital of france is paris . ".repeat(12));
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private static Path work;
    private static EmbeddingServer server;
    private static HttpClient http;
    private static boolean connectionsAllowed;

    @BeforeAll
    static void start() throws IOException {
        work = Files.createTempDirectory("fuzz-http");
        Path model = TinyTaskModels.allHeads(work.resolve("tiny"));
        server = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        server.ready(Models.of("tiny", Embeddings.load(model.toString())));
        http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
    }

    @AfterAll
    static void stop() throws IOException {
        if (server != null) {
            server.stop();
        }
        try (Stream<Path> files = Files.walk(work)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @FuzzTest
    void post(FuzzedDataProvider data) throws IOException, InterruptedException {
        if (!connectionsAllowed) {
            // Jazzer's SSRF detector reports any connection an input makes: these go to the server alone. (Set here, not in
            // start(): the detector's class is loaded once fuzzing begins.)
            BugDetectors.allowNetworkConnections((host, port) -> port == server.port());
            connectionsAllowed = true;
        }
        String route = data.pickValue(ROUTES);
        byte[] body = data.consumeBoolean() ? JSON.writeValueAsBytes(object(data, 0)) : data.consumeRemainingAsBytes();
        HttpResponse<String> r = send(HttpRequest.newBuilder(server.uri().resolve(route)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)), route, body);
        int status = r.statusCode();
        if (status / 100 != 2) {
            if (status / 100 != 4 && status != 503) {
                throw new AssertionError("/" + route + " answered " + status + " to " + show(body) + ": " + r.body());
            }
            JsonNode error;
            try {
                error = JSON.readTree(r.body());
            } catch (IOException e) {
                throw new AssertionError("/" + route + " answered " + status + " with a body that is not JSON: " + r.body(), e);
            }
            boolean shaped = route.startsWith("v1/")
                    ? error != null && error.path("error").path("message").isTextual() && error.path("error").path("type").isTextual()
                    : error != null && error.path("error").isTextual() && error.path("error_type").isTextual();
            if (!shaped) {
                throw new AssertionError("/" + route + " answered " + status + " without the error shape: " + r.body());
            }
        }
        HttpResponse<String> health = send(HttpRequest.newBuilder(server.uri().resolve("health")).GET(), route, body);
        if (health.statusCode() != 200) {
            throw new AssertionError("/health answered " + health.statusCode() + " after /" + route + " got " + show(body));
        }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request, String route, byte[] body)
            throws IOException, InterruptedException {
        try {
            return http.send(request.timeout(TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new AssertionError("no answer within " + TIMEOUT.toSeconds() + " s: /" + route + " with " + show(body), e);
        }
    }

    private static String show(byte[] body) {
        String s = new String(body, java.nio.charset.StandardCharsets.UTF_8);
        return s.length() > 500 ? s.substring(0, 500) + "..." : s;
    }

    /** A JSON object of the routes' fields. */
    private static ObjectNode object(FuzzedDataProvider data, int depth) {
        ObjectNode o = NODES.objectNode();
        int fields = data.consumeInt(0, 4);
        for (int i = 0; i < fields; i++) {
            o.set(data.consumeBoolean() ? data.pickValue(FIELDS) : data.consumeString(8), value(data, depth + 1));
        }
        return o;
    }

    private static JsonNode value(FuzzedDataProvider data, int depth) {
        switch (data.consumeInt(0, depth >= 3 ? 5 : 7)) {
            case 0:
                return NODES.textNode(data.pickValue(WORDS));
            case 1:
                return NODES.textNode(data.consumeString(64));
            case 2:
                return NODES.numberNode(data.consumeBoolean() ? data.consumeInt(-2, 40) : data.consumeInt());
            case 3:
                return NODES.numberNode(data.consumeBoolean() ? data.consumeLong() : data.consumeDouble());
            case 4:
                return NODES.booleanNode(data.consumeBoolean());
            case 5:
                return NODES.nullNode();
            case 6: {
                ArrayNode a = NODES.arrayNode();
                int n = data.consumeInt(0, data.consumeBoolean() ? 4 : 40);
                for (int i = 0; i < n; i++) {
                    a.add(value(data, depth + 1));
                }
                return a;
            }
            default:
                return object(data, depth);
        }
    }
}
