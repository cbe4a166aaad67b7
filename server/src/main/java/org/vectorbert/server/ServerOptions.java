package org.vectorbert.server;

import java.time.Duration;

/**
 * How {@link EmbeddingServer} listens and what it accepts. The limits carry text-embeddings-inference's
 * names and defaults, so a deployment tuned for TEI keeps its numbers.
 *
 * @param host                  address to bind (loopback unless asked otherwise)
 * @param port                  port to bind, 0 for any free one
 * @param maxBatchTokens        positions (padding included) one forward pass may hold; requests are batched up to it
 * @param maxClientBatchSize    texts one request to TEI's routes may carry (/v1/embeddings takes {@link #OPENAI_MAX_INPUTS})
 * @param maxConcurrentRequests requests in progress at once; more are answered 429 at once
 * @param payloadLimit          bytes a request body may have; more are answered 413 without being read
 * @param autoTruncate          whether TEI's routes cut texts longer than the model takes when a request does not say
 *                              (TEI's --auto-truncate: true by default, as since TEI 1.9)
 * @param v1Truncate            whether OpenAI's /v1/embeddings cuts texts longer than the model takes (an OpenAI client
 *                              cannot say; refused with 422 when false)
 * @param apiKey                the bearer token every route but /health, /openapi.json and /docs then needs, or null for none
 * @param shutdownTimeout       how long a stop waits for requests in flight before closing their connections
 */
public record ServerOptions(String host, int port, int maxBatchTokens, int maxClientBatchSize, int maxConcurrentRequests,
                            long payloadLimit, boolean autoTruncate, boolean v1Truncate, String apiKey, Duration shutdownTimeout) {
    /**
     * Inputs one /v1/embeddings request may carry: OpenAI's own limit, which its clients batch up to (langchain4j's
     * OpenAiEmbeddingModel sends 2,048 at once); {@link #maxClientBatchSize} is TEI's routes' limit.
     */
    public static final int OPENAI_MAX_INPUTS = 2048;

    /** Checks every limit: positive, a port in range, no blank API key. */
    public ServerOptions {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0 to 65535, was " + port);
        }
        positive("max batch tokens", maxBatchTokens);
        positive("max client batch size", maxClientBatchSize);
        positive("max concurrent requests", maxConcurrentRequests);
        positive("payload limit", payloadLimit);
        if (apiKey != null && apiKey.isBlank()) {
            throw new IllegalArgumentException("the API key must not be blank");
        }
    }

    private static void positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive, was " + value);
        }
    }

    /**
     * TEI's default positions a round of batched requests may hold; a server raises it to a model's longest input when
     * that is longer.
     */
    public static final int DEFAULT_MAX_BATCH_TOKENS = 16384;

    /**
     * TEI's defaults: 16384 batch tokens, 32 texts a request, 512 concurrent requests, 2 MB bodies; loopback, port 8080;
     * TEI's routes cut a text longer than the model takes unless the request says {@code "truncate": false} (TEI's
     * --auto-truncate, true since TEI 1.9), and /v1/embeddings cuts it.
     *
     * @return the defaults
     */
    public static ServerOptions defaults() {
        return new ServerOptions("127.0.0.1", 8080, DEFAULT_MAX_BATCH_TOKENS, 32, 512, 2_000_000, true, true, null, Duration.ofSeconds(30));
    }

    /**
     * The same options with another value.
     *
     * @param h the address to bind
     * @return new options
     */
    public ServerOptions withHost(String h) {
        return new ServerOptions(h, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate,
                v1Truncate, apiKey, shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param p the port to bind, 0 for any free one
     * @return new options
     */
    public ServerOptions withPort(int p) {
        return new ServerOptions(host, p, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate,
                v1Truncate, apiKey, shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param n positions one forward pass may hold
     * @return new options
     */
    public ServerOptions withMaxBatchTokens(int n) {
        return new ServerOptions(host, port, n, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, v1Truncate,
                apiKey, shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param n texts one request to TEI's routes may carry
     * @return new options
     */
    public ServerOptions withMaxClientBatchSize(int n) {
        return new ServerOptions(host, port, maxBatchTokens, n, maxConcurrentRequests, payloadLimit, autoTruncate, v1Truncate, apiKey,
                shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param n requests in progress at once
     * @return new options
     */
    public ServerOptions withMaxConcurrentRequests(int n) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, n, payloadLimit, autoTruncate, v1Truncate, apiKey,
                shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param bytes bytes a request body may have
     * @return new options
     */
    public ServerOptions withPayloadLimit(long bytes) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, bytes, autoTruncate, v1Truncate,
                apiKey, shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param t whether TEI's routes cut long texts when a request does not say
     * @return new options
     */
    public ServerOptions withAutoTruncate(boolean t) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, t, v1Truncate,
                apiKey, shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param key the bearer token, or null for none
     * @return new options
     */
    public ServerOptions withApiKey(String key) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate,
                v1Truncate, key, shutdownTimeout);
    }

    /**
     * The same options with another value.
     *
     * @param d how long a stop waits for requests in flight
     * @return new options
     */
    public ServerOptions withShutdownTimeout(Duration d) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate,
                v1Truncate, apiKey, d);
    }

    /**
     * The same options with another value.
     *
     * @param t whether /v1/embeddings cuts long texts
     * @return new options
     */
    public ServerOptions withV1Truncate(boolean t) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, t,
                apiKey,
                shutdownTimeout);
    }
}
