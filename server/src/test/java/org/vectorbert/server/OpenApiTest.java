package org.vectorbert.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.vectorbert.server.ServerTest.HTTP;
import static org.vectorbert.server.ServerTest.JSON;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.DisallowUnknownKeywordFactory;
import com.networknt.schema.keyword.NonValidationKeyword;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.SpecVersion;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * The served /openapi.json, held to the real OpenAPI parser (swagger-parser), to the router ({@link HttpFront#paths}),
 * and to the servers' own answers: every request below is sent over loopback HTTP to a running server, and each answer's
 * status must be one the document lists for that operation, its content type one the document gives for that status, and
 * its JSON body valid under the document's schema for it (networknt's validator, OpenAPI 3.0 dialect, {@code $ref}s
 * resolved inside the document). The document is read strictly: an object schema that lists its properties is taken as
 * closed, so a field the server sends and the document does not name fails too. And every status the document lists must
 * have been answered by some request here, but for the few no request can cause ({@link #NOT_PROVOKED}).
 *
 * <p>All servers serve one tiny model (hidden 8, 32 positions) that has every head: one as it is; one with an API key and
 * the same weights offered with no heads (401 without the key, 424 for the missing heads with it); one never given its
 * model (503); one taking one request at a time, with a 16-byte payload limit (429, then 413).
 */
class OpenApiTest {
    /** Where the validator is told the (strict) document lives: a name in its own map, never fetched. */
    private static final String DOCUMENT_IRI = "https://openapi.invalid/openapi.json";
    private static final String KEY = "s3cret";
    private static final int PAYLOAD_LIMIT = 16;

    /**
     * Valid requests for each operation the document describes: the JSON body for POST, the query for GET. Each is
     * answered 200 by a server whose model has every head; several where the answer's shape depends on the request.
     */
    private static final Map<String, List<String>> EXAMPLES = Map.ofEntries(
            Map.entry("POST /embed", List.of("{\"inputs\": [\"paris is the capital of france .\", \"bananas are yellow .\"]}",
                    "{\"inputs\": \"paris\", \"normalize\": false, \"truncate\": true, \"truncation_direction\": \"Left\", \"dimensions\": 4}")),
            Map.entry("POST /embed_all", List.of("{\"inputs\": \"paris is the capital of france .\"}")),
            Map.entry("POST /embed_sparse", List.of("{\"inputs\": [\"paris is the capital of france .\", \"bananas are yellow .\"]}")),
            Map.entry("POST /embed_multi_vector", List.of("{\"inputs\": [\"no warranty\", \"warranty\"]}", "{\"inputs\": \"warranty\"}")),
            Map.entry("POST /similarity", List.of("{\"inputs\": {\"source_sentence\": \"the capital of france\", "
                    + "\"sentences\": [\"paris is the capital of france .\", \"bananas are yellow .\"]}, \"parameters\": {\"truncate\": true}}")),
            Map.entry("POST /v1/embeddings", List.of("{\"input\": [\"paris\", \"berlin is in germany .\"], \"model\": \"tiny\"}",
                    "{\"input\": \"paris\", \"encoding_format\": \"base64\", \"dimensions\": 4}")),
            Map.entry("GET /v1/models", List.of("")),
            Map.entry("GET /v1/models/{id}", List.of("tiny")),
            Map.entry("POST /fill-mask", List.of("{\"inputs\": \"paris is the [MASK] of france .\"}",
                    "{\"inputs\": \"[MASK] is the [MASK] of france .\", \"parameters\": {\"top_k\": 2}}",
                    "{\"inputs\": [\"paris is the [MASK] of france .\", \"[MASK] is the [MASK] .\"], \"parameters\": {\"targets\": [\"capital\", \"city\"]}}")),
            Map.entry("POST /rerank", List.of("{\"query\": \"capital of france\", \"texts\": [\"paris is the capital of france .\", "
                    + "\"bananas are yellow .\"], \"return_text\": true}", "{\"query\": \"capital of france\", \"texts\": [\"paris\"], \"raw_scores\": true}")),
            Map.entry("POST /predict", List.of("{\"inputs\": \"who wrote hamlet ?\"}", "{\"inputs\": [\"paris\", \"the capital of france\"]}",
                    "{\"inputs\": [[\"who wrote hamlet ?\"], [\"paris\", \"the capital of france\"]], \"raw_scores\": true}")),
            Map.entry("POST /token-classification", List.of("{\"inputs\": \"john lives in london .\"}",
                    "{\"inputs\": [\"john lives in london .\", \"paris is the capital of france .\"], "
                            + "\"parameters\": {\"aggregation_strategy\": \"simple\", \"ignore_labels\": [], \"stride\": 2}}")),
            Map.entry("POST /question-answering", List.of(
                    "{\"inputs\": {\"question\": \"who wrote hamlet ?\", \"context\": \"shakespeare wrote hamlet . john lives in london .\"}}",
                    "{\"inputs\": [{\"question\": \"who wrote hamlet ?\", \"context\": \"shakespeare wrote hamlet .\"}, "
                            + "{\"question\": \"where ?\", \"context\": \"john lives in london .\"}], \"parameters\": {\"top_k\": 2}}")),
            Map.entry("POST /zero-shot-classification", List.of(
                    "{\"inputs\": \"paris is the capital of france .\", \"parameters\": {\"candidate_labels\": [\"geography\", \"food\"]}}",
                    "{\"inputs\": [\"paris\", \"bananas are yellow .\"], \"parameters\": {\"candidate_labels\": \"geography, food\","
                            + " \"multi_label\": true, \"hypothesis_template\": \"The topic is {}.\"}}")),
            Map.entry("POST /tokenize", List.of("{\"inputs\": [\"paris is the capital of france .\", \"\"], \"add_special_tokens\": true}")),
            Map.entry("POST /decode", List.of("{\"ids\": [2, 11, 10, 3]}", "{\"ids\": [[2, 11], [12]], \"skip_special_tokens\": false}")),
            Map.entry("GET /info", List.of("")),
            Map.entry("GET /attention", List.of("", "?text=paris+is+the+capital&pair=of+france&layers=0&heads=1&view=head")),
            Map.entry("GET /health", List.of("")),
            Map.entry("GET /metrics", List.of("")),
            Map.entry("GET /openapi.json", List.of("")),
            Map.entry("GET /docs", List.of("")));

    /** A request the server with every head refuses, with the status and error type it answers. */
    private record Refusal(String operation, String request, int status, String type) {}

    private static final List<Refusal> REFUSALS = List.of(
            new Refusal("POST /embed", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /embed", "{\"inputs\": [1, 2]}", 422, "Validation"),
            new Refusal("POST /embed_all", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /embed_all", "{\"inputs\": \"paris\", \"truncation_direction\": \"up\"}", 422, "Validation"),
            new Refusal("POST /embed_sparse", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /embed_sparse", "{\"inputs\": \"paris\", \"prompt_name\": \"query\"}", 422, "Validation"),
            new Refusal("POST /embed_multi_vector", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /embed_multi_vector", "{\"inputs\": [1]}", 422, "Validation"),
            new Refusal("POST /similarity", "{\"inputs\": {\"source_sentence\": \"paris\", \"sentences\": []}}", 400, "Empty"),
            new Refusal("POST /similarity", "{\"inputs\": {\"sentences\": [\"paris\"]}}", 422, "Validation"),
            new Refusal("POST /v1/embeddings", "{\"input\": []}", 400, "Empty"),
            new Refusal("POST /v1/embeddings", "{\"input\": \"paris\", \"encoding_format\": \"hex\"}", 422, "Validation"),
            new Refusal("GET /v1/models/{id}", "text-embedding-3-small", 404, "model_not_found"),
            new Refusal("POST /fill-mask", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /fill-mask", "{\"inputs\": \"no mask here\"}", 422, "Validation"),
            new Refusal("POST /rerank", "{\"query\": \"q\", \"texts\": []}", 400, "Empty"),
            new Refusal("POST /rerank", "{\"texts\": [\"paris\"]}", 422, "Validation"),
            new Refusal("POST /predict", "{\"inputs\": [[\"a\", \"b\", \"c\"]]}", 422, "Validation"),
            new Refusal("POST /token-classification", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /token-classification", "{\"inputs\": \"paris\", \"parameters\": {\"aggregation_strategy\": \"longest\"}}", 422,
                    "Validation"),
            new Refusal("POST /question-answering", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /question-answering", "{\"inputs\": {\"question\": \"q\"}}", 422, "Validation"),
            new Refusal("POST /zero-shot-classification", "{\"inputs\": [], \"parameters\": {\"candidate_labels\": [\"a\"]}}", 400, "Empty"),
            new Refusal("POST /zero-shot-classification", "{\"inputs\": \"paris\", \"parameters\": {\"candidate_labels\": \" , \"}}", 422,
                    "Validation"),
            new Refusal("POST /tokenize", "{\"inputs\": []}", 400, "Empty"),
            new Refusal("POST /tokenize", "{\"inputs\": 3}", 422, "Validation"),
            new Refusal("POST /decode", "{\"ids\": [999]}", 422, "Validation"),
            new Refusal("GET /attention", "?text=paris&layers=5", 422, "Validation"));

    /**
     * Statuses the document lists that no request can cause: a forward pass that fails (424) on the routes that embed,
     * whatever the model's heads.
     */
    private static final Set<String> NOT_PROVOKED = Set.of("POST /embed 424", "POST /embed_all 424", "POST /v1/embeddings 424");

    private static Path work;
    private static Embeddings tiny;
    private static EmbeddingServer ready;
    /** An NLI model's server: the zero-shot route's, whose classifier needs an entailment label (ready's has one label). */
    private static EmbeddingServer nli;
    /** A bge-m3 model's server (engine's reference fixture): the multi-vector route's. */
    private static EmbeddingServer m3;
    private static EmbeddingServer guarded;
    private static EmbeddingServer loading;
    private static EmbeddingServer limited;
    private static String document;
    private static OpenAPI api;
    private static SchemaRegistry schemas;

    @BeforeAll
    static void start() throws IOException, InterruptedException {
        work = Files.createTempDirectory("openapi");
        tiny = Embeddings.load(TinyTaskModels.allHeads(work.resolve("tiny")).toString());
        ready = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        ready.ready(Models.of("tiny", tiny));
        nli = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        nli.ready(Models.of("tiny", Embeddings.load(TinyTaskModels.sequenceClassifier(work.resolve("nli"),
                List.of("entailment", "neutral", "contradiction"), "").toString())));
        m3 = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        m3.ready(Models.of("tiny", Embeddings.load(Path.of(System.getProperty("user.dir"))
                .resolve("../engine/src/test/resources/architectures/bgem3/bgem3").normalize().toString())));
        guarded = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withApiKey(KEY));
        // The same name as the others', so that GET /v1/models/tiny finds it.
        guarded.ready(Models.of("tiny", tiny, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
        loading = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        limited = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withMaxConcurrentRequests(1).withPayloadLimit(PAYLOAD_LIMIT));
        limited.ready(Models.of("tiny", tiny));

        HttpResponse<String> served = send(ready, "GET /openapi.json", "", null);
        assertEquals(200, served.statusCode(), served.body());
        document = served.body();
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(document);
        api = parsed.getOpenAPI();
        assertNotNull(api, "swagger-parser read no document: " + parsed.getMessages());
        Map<String, String> strictDocument = Map.of(DOCUMENT_IRI, strict(document));
        // OpenAPI 3.0's schema keywords, and no other: a misspelt one (say "require") fails instead of being ignored. The
        // document's own top-level fields are passed over (its root is read as a schema when a fragment of it is asked for).
        Dialect dialect = Dialect.builder(Dialects.getOpenApi30()).unknownKeywordFactory(DisallowUnknownKeywordFactory.getInstance())
                .keywords(Stream.of("openapi", "info", "components", "security", "paths").map(NonValidationKeyword::new).toList())
                .build();
        schemas = SchemaRegistry.withDefaultDialect(dialect, builder -> builder.schemas(strictDocument));
    }

    @AfterAll
    static void stop() throws IOException {
        for (EmbeddingServer s : new EmbeddingServer[] {ready, nli, m3, guarded, loading, limited}) {
            if (s != null) {
                s.stop();
            }
        }
        try (Stream<Path> files = Files.walk(work)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    @Test
    void theOpenApiParserReadsTheDocumentWithoutAMessage() throws IOException {
        SwaggerParseResult parsed = new OpenAPIV3Parser().readContents(document);
        assertEquals(List.of(), parsed.getMessages(), "swagger-parser's errors and warnings");
        String declared = JSON.readTree(document).path("openapi").asText();
        assertEquals("3.0.3", declared);
        assertEquals(declared, parsed.getOpenAPI().getOpenapi());
        assertEquals(SpecVersion.V30, parsed.getOpenAPI().getSpecVersion());
    }

    @Test
    void theDocumentDescribesEveryRouteTheServerServesAndNoOther() throws Exception {
        Set<String> routed = new TreeSet<>();
        new HttpFront(ServerOptions.defaults(), new ServerMetrics()).paths().forEach((path, method) -> routed.add(method + " " + path));
        assertEquals(routed, operations().keySet(), "the router's routes, and the document's path+method pairs");
        for (String operation : operations().keySet()) {
            HttpResponse<String> r = send(ready, operation, examples(operation).getFirst(), null);
            assertTrue(r.statusCode() != 404 && r.statusCode() != 405, operation + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    @Test
    void everyDocumentedRequestExampleIsValidUnderTheDocumentsRequestSchema() {
        operations().forEach((operation, op) -> {
            if (op.getRequestBody() != null) {
                Schema schema = schemaAt(pointer(operation, "requestBody", "content", "application/json", "schema"));
                for (String body : examples(operation)) {
                    assertEquals(List.of(), messages(schema, body), operation + " request " + body);
                }
            }
        });
    }

    @Test
    void everyAnswerIsOneTheDocumentListsAndMatchesItsSchema() throws Exception {
        Map<String, Set<Integer>> answered = new TreeMap<>();
        Map<String, Operation> operations = operations();
        for (String operation : operations.keySet()) {
            for (String request : examples(operation)) {
                HttpResponse<String> r = send(serving(operation), operation, request, null);
                assertEquals(200, r.statusCode(), operation + " " + request + ": " + r.body());
                check(operation, r, answered);
            }
        }
        for (Refusal refusal : REFUSALS) {
            HttpResponse<String> r = send(serving(refusal.operation()), refusal.operation(), refusal.request(), null);
            assertEquals(refusal.status(), r.statusCode(), refusal + ": " + r.body());
            check(refusal.operation(), r, answered);
            JsonNode error = JSON.readTree(r.body());
            String type = refusal.operation().contains(" /v1/") ? error.path("error").path("code").asText() : error.path("error_type").asText();
            assertEquals(refusal.type(), type, refusal + ": " + r.body());
        }

        // The API key: every route but the ones the document leaves open answers 401 without it.
        for (String operation : operations.keySet()) {
            boolean open = operations.get(operation).getSecurity() != null && operations.get(operation).getSecurity().isEmpty();
            HttpResponse<String> r = send(guarded, operation, examples(operation).getFirst(), null);
            assertEquals(open ? 200 : 401, r.statusCode(), operation + " without the key: " + r.body());
            check(operation, r, answered);
        }
        // With the key, the same weights offered without their heads: those routes answer 424.
        for (String operation : operations.keySet()) {
            HttpResponse<String> r = send(guarded, operation, examples(operation).getFirst(), KEY);
            assertTrue(Set.of(200, 424).contains(r.statusCode()), operation + " on a model without heads: " + r.body());
            check(operation, r, answered);
        }
        // Before the model is given.
        for (String operation : operations.keySet()) {
            HttpResponse<String> r = send(loading, operation, examples(operation).getFirst(), null);
            assertTrue(Set.of(200, 503).contains(r.statusCode()), operation + " while loading: " + r.body());
            check(operation, r, answered);
        }
        // One request at a time: one held unfinished (its body not all sent) takes the only place.
        try (Socket held = new Socket(InetAddress.getLoopbackAddress(), limited.port())) {
            OutputStream out = held.getOutputStream();
            out.write("POST /embed HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 15\r\n\r\n{"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            awaitHeld();
            for (String operation : operations.keySet()) {
                HttpResponse<String> r = send(limited, operation, examples(operation).getFirst(), null);
                assertTrue(Set.of(200, 429).contains(r.statusCode()), operation + " while another holds the only place: " + r.body());
                check(operation, r, answered);
            }
        }
        awaitFree();
        // Bodies over the payload limit.
        for (String operation : operations.keySet()) {
            if (operation.startsWith("POST ")) {
                String body = examples(operation).getFirst();
                assertTrue(body.length() > PAYLOAD_LIMIT, body);
                HttpResponse<String> r = send(limited, operation, body, null);
                assertEquals(413, r.statusCode(), operation + " over the payload limit: " + r.body());
                check(operation, r, answered);
            }
        }

        Set<String> notAnswered = new TreeSet<>();
        operations.forEach((operation, op) -> op.getResponses().keySet().forEach(status -> {
            if (!answered.getOrDefault(operation, Set.of()).contains(Integer.parseInt(status))) {
                notAnswered.add(operation + " " + status);
            }
        }));
        assertEquals(new TreeSet<>(NOT_PROVOKED), notAnswered, "statuses the document lists that no request here was answered");
    }

    /**
     * The server whose model answers {@code operation}'s examples: the NLI model's for zero-shot, bge-m3's for multi-vectors,
     * else the one with every head.
     */
    private static EmbeddingServer serving(String operation) {
        return operation.endsWith(" /zero-shot-classification") ? nli : operation.endsWith(" /embed_multi_vector") ? m3 : ready;
    }

    /** The document's operations, "METHOD /path", as swagger-parser read them. */
    private static Map<String, Operation> operations() {
        Map<String, Operation> out = new TreeMap<>();
        api.getPaths().forEach((path, item) -> item.readOperationsMap().forEach((method, op) -> out.put(method + " " + path, op)));
        return out;
    }

    private static List<String> examples(String operation) {
        List<String> requests = EXAMPLES.get(operation);
        if (requests == null) {
            fail("no example request for " + operation + ", which the document describes: add one to EXAMPLES");
        }
        return requests;
    }

    /**
     * Holds the answer to the document: its status is listed for the operation, its content type is one listed for that
     * status (no body where none is), and a JSON body is valid under that status's schema.
     */
    private static void check(String operation, HttpResponse<String> r, Map<String, Set<Integer>> answered) {
        String status = String.valueOf(r.statusCode());
        Operation op = operations().get(operation);
        assertNotNull(op, operation + " is not in the document");
        ApiResponse documented = op.getResponses().get(status);
        assertNotNull(documented, operation + " answered " + status + ", which the document does not list: " + shorten(r.body()));
        answered.computeIfAbsent(operation, k -> new TreeSet<>()).add(r.statusCode());
        if (r.body().isEmpty()) {
            assertTrue(documented.getContent() == null || documented.getContent().isEmpty(),
                    operation + " " + status + " has no body, but the document gives one");
            return;
        }
        String type = r.headers().firstValue("Content-Type").orElse("").split(";")[0].strip().toLowerCase(Locale.ROOT);
        assertTrue(documented.getContent() != null && documented.getContent().containsKey(type),
                operation + " " + status + " answered " + type + ", the document lists "
                        + (documented.getContent() == null ? "no body" : documented.getContent().keySet()) + ": " + shorten(r.body()));
        if (type.equals("application/json")) {
            Schema schema = schemaAt(pointer(operation, "responses", status, "content", type, "schema"));
            assertEquals(List.of(), messages(schema, r.body()), operation + " " + status + " answered " + shorten(r.body()));
        }
    }

    private static List<String> messages(Schema schema, String json) {
        return schema.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    /** The JSON pointer to a part of an operation in the document: /paths/{path}/{method}/... with each token escaped. */
    private static String pointer(String operation, String... rest) {
        String[] parts = operation.split(" ", 2);
        List<String> tokens = new ArrayList<>(List.of("paths", parts[1], parts[0].toLowerCase(Locale.ROOT)));
        tokens.addAll(List.of(rest));
        StringBuilder out = new StringBuilder();
        for (String token : tokens) {
            out.append('/').append(token.replace("~", "~0").replace("/", "~1"));
        }
        return out.toString();
    }

    private static Schema schemaAt(String pointer) {
        return schemas.getSchema(SchemaLocation.of(DOCUMENT_IRI + "#" + pointer));
    }

    /**
     * The document with every object schema that lists its properties closed ({@code additionalProperties: false}
     * unless it says otherwise): an answer may then hold no field the document does not name. Examples are left as
     * they are.
     */
    private static String strict(String json) throws IOException {
        JsonNode root = JSON.readTree(json);
        close(root);
        return JSON.writeValueAsString(root);
    }

    private static void close(JsonNode node) {
        if (node instanceof ObjectNode object) {
            if (object.path("properties").isObject() && !object.has("additionalProperties")) {
                object.put("additionalProperties", false);
            }
            object.properties().forEach(field -> {
                if (!field.getKey().equals("example") && !field.getKey().equals("examples") && !field.getKey().equals("default")) {
                    close(field.getValue());
                }
            });
        } else if (node != null && node.isArray()) {
            node.forEach(OpenApiTest::close);
        }
    }

    /** Waits until the held request has been taken in (it is counted in /metrics before it takes its place). */
    private static void awaitHeld() throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (ServerTest.metric(limited, "te_request_total{method=\"embed\"}") < 1) {
            if (System.nanoTime() > deadline) {
                fail("the held request never reached the server");
            }
            Thread.sleep(20);
        }
        Thread.sleep(50);
    }

    /** Waits until the held request, its connection closed, has given its place back. */
    private static void awaitFree() throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String small = "{\"inputs\":\"a\"}";
        assertTrue(small.length() <= PAYLOAD_LIMIT);
        while (send(limited, "POST /tokenize", small, null).statusCode() == 429) {
            if (System.nanoTime() > deadline) {
                fail("the held request never gave its place back");
            }
            Thread.sleep(20);
        }
    }

    /**
     * {@code operation} ("METHOD /path") with {@code request}: the JSON body for POST, the query ("?a=b" or "") for GET, or
     * for a GET path with a parameter ("/v1/models/{id}") the parameter's value.
     */
    static HttpResponse<String> send(EmbeddingServer server, String operation, String request, String key)
            throws IOException, InterruptedException {
        String[] parts = operation.split(" ", 2);
        boolean post = parts[0].equals("POST");
        String path = parts[1].substring(1);
        String target = post ? path : path.contains("{id}") ? path.replace("{id}", request) : path + request;
        HttpRequest.Builder builder = HttpRequest.newBuilder(server.uri().resolve(target));
        if (key != null) {
            builder.header("Authorization", "Bearer " + key);
        }
        if (post) {
            builder.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(request));
        } else {
            builder.GET();
        }
        return HTTP.send(builder.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String shorten(String body) {
        return body.length() <= 400 ? body : body.substring(0, 400) + "...";
    }
}
