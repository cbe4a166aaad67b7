package org.vectorbert.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.URIUtil;

/**
 * The HTTP side: routes by path and method, the API key, the concurrency and payload limits, the
 * not-ready state, errors as TEI's JSON (OpenAI's shape under /v1/), and metrics per route. Jetty
 * calls {@link #handle} on a virtual thread per request, so a request waiting for its batch holds
 * no platform thread.
 */
final class HttpFront extends Handler.Abstract {
    /** What a route does with a request: a value written back as JSON, or a {@link Raw} body. */
    interface Endpoint {
        Object handle(JsonNode body, Client client);
    }

    /** A body written as it is. */
    record Raw(String contentType, byte[] bytes) {}

    /** What a route waits for before it answers. */
    private enum Gate {
        /** Nothing: it answers from the start, whatever else is running. */
        NONE,
        /** The model: 503 until it is loaded (and while stopping), but it does no model work (TEI's /info). */
        LOADED,
        /** The model, and a place among --max-concurrent-requests (429 without one): it runs the model or its tokenizer. */
        LIMITED
    }

    /** @param readBody whether the request has a JSON body */
    private record Route(String method, String name, Gate gate, boolean readBody, Endpoint endpoint) {}

    /**
     * Routes open without the API key: /health for probes, and the API's description with its page (its assets are
     * served before any check), which a browser opens without an Authorization header; Swagger UI then takes the key.
     */
    private static final Set<String> PUBLIC = Set.of("/health", "/openapi.json", "/docs");
    /**
     * OpenAI's GET /v1/models/{model}: every path under /v1/models/ is this route, the rest of the path (percent-decoded)
     * the model's id, which may hold a slash (org/name). The endpoint finds it among the query's parameters.
     */
    private static final String MODEL_ROUTE = "/v1/models/{id}";
    private static final String MODEL_PREFIX = "/v1/models/";
    private static final String MODEL_ID = "id";

    private final ServerOptions options;
    private final ServerMetrics metrics;
    private final Map<String, Route> routes = new LinkedHashMap<>();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final byte[] expectedAuthorization;
    private volatile Routes api;
    private volatile boolean stopping;

    HttpFront(ServerOptions options, ServerMetrics metrics) {
        this.options = options;
        this.metrics = metrics;
        this.expectedAuthorization = options.apiKey() == null ? null : ("Bearer " + options.apiKey()).getBytes(StandardCharsets.UTF_8);
        route("POST", "/embed", "embed", Gate.LIMITED, true, (b, gone) -> api.embed(b, gone));
        route("POST", "/embed_all", "embed_all", Gate.LIMITED, true, (b, gone) -> api.embedAll(b, gone));
        route("POST", "/embed_sparse", "embed_sparse", Gate.LIMITED, true, (b, gone) -> api.embedSparse(b));
        route("POST", "/embed_multi_vector", "embed_multi_vector", Gate.LIMITED, true, (b, gone) -> api.embedMultiVector(b));
        route("POST", "/similarity", "similarity", Gate.LIMITED, true, (b, gone) -> api.similarity(b, gone));
        route("POST", "/v1/embeddings", "openai_embeddings", Gate.LIMITED, true, (b, gone) -> api.openAiEmbeddings(b, gone));
        route("GET", "/v1/models", "openai_models", Gate.LOADED, false, (b, gone) -> api.openAiModels());
        route("GET", MODEL_ROUTE, "openai_model", Gate.LOADED, false, (b, gone) -> api.openAiModel(b.path(MODEL_ID).asText()));
        route("POST", "/fill-mask", "fill_mask", Gate.LIMITED, true, (b, gone) -> api.fillMask(b));
        route("POST", "/rerank", "rerank", Gate.LIMITED, true, (b, gone) -> api.rerank(b, gone));
        route("POST", "/predict", "predict", Gate.LIMITED, true, (b, gone) -> api.predict(b, gone));
        route("POST", "/token-classification", "token_classification", Gate.LIMITED, true, (b, gone) -> api.tokenClassification(b));
        route("POST", "/question-answering", "question_answering", Gate.LIMITED, true, (b, gone) -> api.questionAnswering(b));
        route("POST", "/zero-shot-classification", "zero_shot_classification", Gate.LIMITED, true, (b, gone) -> api.zeroShotClassification(b));
        route("POST", "/tokenize", "tokenize", Gate.LIMITED, true, (b, gone) -> api.tokenize(b));
        route("POST", "/decode", "decode", Gate.LIMITED, true, (b, gone) -> api.decode(b));
        route("GET", "/info", "info", Gate.LOADED, false, (b, gone) -> api.info());
        route("GET", "/attention", "attention", Gate.LIMITED, false, (query, gone) -> new Raw("text/html; charset=utf-8", api.attention(query)));
        route("GET", "/health", "health", Gate.NONE, false, (b, gone) -> health());
        route("GET", "/metrics", "metrics", Gate.NONE, false, (b, gone) -> new Raw(ServerMetrics.contentType(), metrics.scrape()));
        route("GET", "/openapi.json", "openapi", Gate.NONE, false, (b, gone) -> new Raw("application/json", Docs.openApi()));
        route("GET", "/docs", "docs", Gate.NONE, false, (b, gone) -> new Raw("text/html; charset=utf-8", Docs.page()));
    }

    private void route(String method, String path, String name, Gate gate, boolean readBody, Endpoint endpoint) {
        routes.put(path, new Route(method, name, gate, readBody, endpoint));
    }

    /** The paths served, with their methods: what /openapi.json must describe. */
    Map<String, String> paths() {
        Map<String, String> out = new LinkedHashMap<>();
        routes.forEach((path, route) -> out.put(path, route.method()));
        return out;
    }

    void ready(Routes routes) {
        this.api = routes;
    }

    boolean isReady() {
        return api != null && !stopping;
    }

    void stopping() {
        stopping = true;
    }

    private Object health() {
        if (!isReady()) {
            throw new ApiError(503, "Unhealthy", stopping ? "the server is shutting down" : "the model is still loading");
        }
        return new Raw("application/json", new byte[0]);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        long start = System.nanoTime();
        String path = request.getHttpURI().getPath();
        Route route = routes.get(path);
        String modelId = null;
        if (route == null && path.startsWith(MODEL_PREFIX)) {
            route = routes.get(MODEL_ROUTE);
            modelId = URIUtil.decodePath(path.substring(MODEL_PREFIX.length()));
        }
        if (route == null && path.startsWith("/docs/")) {
            byte[] asset = Docs.asset(path.substring("/docs/".length()));
            if (asset != null) {
                write(response, callback, 200, Docs.contentType(path), asset);
                return true;
            }
        }
        String name = route == null ? "unknown" : route.name();
        metrics.request(name);
        boolean counted = false;
        boolean bodyRead = false;
        Answer answer;
        try {
            if (route == null) {
                throw new ApiError(404, "NotFound", "no route " + path + " (the routes are described at /openapi.json and /docs)");
            }
            if (!route.method().equals(request.getMethod())) {
                response.getHeaders().put(HttpHeader.ALLOW, route.method());
                throw new ApiError(405, "Validation", path + " takes " + route.method() + ", not " + request.getMethod());
            }
            if (expectedAuthorization != null && !PUBLIC.contains(path) && !authorized(request)) {
                response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer");
                throw new ApiError(401, "Unauthorized", "this server needs an API key: send the header 'Authorization: Bearer KEY'");
            }
            if (route.gate() != Gate.NONE && !isReady()) {
                throw new ApiError(503, "Unhealthy", stopping ? "the server is shutting down" : "the model is still loading");
            }
            if (route.gate() == Gate.LIMITED) {
                counted = true;
                if (inFlight.incrementAndGet() > options.maxConcurrentRequests()) {
                    throw new ApiError(429, "Overloaded", "Model is overloaded: more than " + options.maxConcurrentRequests()
                            + " requests at once");
                }
            }
            byte[] bytes = route.readBody() ? readBody(request) : null;
            bodyRead = true;
            JsonNode body = bytes != null ? Json.body(bytes) : query(request, modelId);
            // A request waiting for its batch sends nothing, which is not idleness: without this, the connection's idle
            // timeout (and on stop, Jetty's one-second shutdown idle timeout) failed requests still in the queue.
            request.addIdleTimeoutListener(timeout -> false);
            Client client = new Client(request);
            Object out = route.endpoint().handle(body, client);
            if (client.mustClose()) {
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            answer = out instanceof Raw raw ? new Answer(200, raw.contentType(), raw.bytes())
                    : new Answer(200, "application/json", Json.MAPPER.writeValueAsBytes(out));
            metrics.answered(name, 200, null, start);
        } catch (ApiError e) {
            if (!bodyRead && (request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING))) {
                // Refused before its body was read (401, 413, 429, 503, no such route...): Jetty closes the connection after
                // the answer when the rest of the body has not arrived, so say so, or a client may send its next request on it.
                response.getHeaders().put(HttpHeader.CONNECTION, "close");
            }
            answer = new Answer(e.status, "application/json", errorBody(path, e));
            metrics.answered(name, e.status, e.type, start);
        } catch (Embedder.ClientGone e) {
            // Its connection failed (closed, or idle past the timeout) while it waited: its texts left the queue unrun.
            // Jetty discards this answer if nobody is there to read it.
            answer = new Answer(503, "application/json", errorBody(path, new ApiError(503, "Unhealthy",
                    "the request was dropped: its connection failed while it waited")));
            metrics.answered(name, 503, "ClientGone", start);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        } finally {
            // Given back before the answer is written: a client that has read its answer may send the next request at once.
            if (counted) {
                inFlight.decrementAndGet();
            }
        }
        write(response, callback, answer.status(), answer.contentType(), answer.bytes());
        return true;
    }

    /** What {@link #handle} answers, written once its place among the concurrent requests is given back. */
    private record Answer(int status, String contentType, byte[] bytes) {}

    /**
     * A GET request's query parameters as a JSON object of strings (the last of a repeated name wins), and the model id
     * its path names, if any, under {@link #MODEL_ID} (over a query parameter of that name).
     */
    private static JsonNode query(Request request, String modelId) {
        ObjectNode out = Json.object();
        Request.extractQueryParameters(request).forEach(field -> out.put(field.getName(), field.getValue()));
        if (modelId != null) {
            out.put(MODEL_ID, modelId);
        }
        return out;
    }

    private boolean authorized(Request request) {
        String given = request.getHeaders().get(HttpHeader.AUTHORIZATION);
        return given != null && MessageDigest.isEqual(expectedAuthorization, given.getBytes(StandardCharsets.UTF_8));
    }

    /** The body, refused with 413 when it is, or says it will be, over the payload limit (a declared length is refused unread). */
    private byte[] readBody(Request request) {
        long limit = options.payloadLimit();
        long declared = request.getLength();
        if (declared > limit) {
            throw tooLarge(declared + " bytes");
        }
        try (InputStream in = Request.asInputStream(request)) {
            byte[] bytes = in.readNBytes((int) Math.min(limit + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > limit) {
                throw tooLarge("more than " + limit + " bytes");
            }
            return bytes;
        } catch (IOException e) {
            throw ApiError.validation("the request body could not be read: " + e.getMessage());
        }
    }

    private ApiError tooLarge(String size) {
        return new ApiError(413, "Validation", "the request body is " + size + ", over the payload limit of " + options.payloadLimit()
                + " bytes (--payload-limit)");
    }

    /** TEI's {@code {"error", "error_type"}}, or OpenAI's {@code {"error": {"message", "type", "param", "code"}}} under /v1/. */
    private static byte[] errorBody(String path, ApiError e) {
        ObjectNode body = Json.object();
        if (path.startsWith("/v1/")) {
            ObjectNode error = body.putObject("error");
            error.put("message", e.getMessage());
            error.put("type", e.status == 429 ? "rate_limit_error" : e.status == 401 ? "authentication_error"
                    : e.status >= 500 || e.status == 424 ? "server_error" : "invalid_request_error");
            error.putNull("param");
            error.put("code", e.type);
        } else {
            body.put("error", e.getMessage());
            body.put("error_type", e.type);
        }
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void write(Response response, Callback callback, int status, String contentType, byte[] bytes) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        response.write(true, ByteBuffer.wrap(bytes), callback);
    }
}
