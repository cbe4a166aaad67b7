package org.vectorbert.server;

import java.time.Duration;

/**
 * How {@link EmbeddingServer} listens and what it accepts. The limits carry text-embeddings-inference's
 * names and defaults, so a deployment tuned for TEI keeps its numbers.
 *
 * @param host                  address to bind (loopback unless asked otherwise)
 * @param port                  port to bind, 0 for any free one
 * @param maxBatchTokens        positions (padding included) one forward pass may hold; requests are batched up to it
 * @param maxClientBatchSize    texts one request may carry
 * @param maxConcurrentRequests requests in progress at once; more are answered 429 at once
 * @param payloadLimit          bytes a request body may have; more are answered 413 without being read
 * @param autoTruncate          whether texts longer than the model takes are cut when a request does not say
 * @param apiKey                the bearer token every route but /health then needs, or null for none
 * @param shutdownTimeout       how long a stop waits for requests in flight before closing their connections
 */
public record ServerOptions(String host, int port, int maxBatchTokens, int maxClientBatchSize, int maxConcurrentRequests,
                            long payloadLimit, boolean autoTruncate, String apiKey, Duration shutdownTimeout) {
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

    /** TEI's defaults: 16384 batch tokens, 32 texts a request, 512 concurrent requests, 2 MB bodies; loopback, port 8080. */
    public static ServerOptions defaults() {
        return new ServerOptions("127.0.0.1", 8080, 16384, 32, 512, 2_000_000, false, null, Duration.ofSeconds(30));
    }

    public ServerOptions withHost(String h) {
        return new ServerOptions(h, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, apiKey,
                shutdownTimeout);
    }

    public ServerOptions withPort(int p) {
        return new ServerOptions(host, p, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, apiKey,
                shutdownTimeout);
    }

    public ServerOptions withMaxBatchTokens(int n) {
        return new ServerOptions(host, port, n, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, apiKey,
                shutdownTimeout);
    }

    public ServerOptions withMaxClientBatchSize(int n) {
        return new ServerOptions(host, port, maxBatchTokens, n, maxConcurrentRequests, payloadLimit, autoTruncate, apiKey,
                shutdownTimeout);
    }

    public ServerOptions withMaxConcurrentRequests(int n) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, n, payloadLimit, autoTruncate, apiKey, shutdownTimeout);
    }

    public ServerOptions withPayloadLimit(long bytes) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, bytes, autoTruncate, apiKey,
                shutdownTimeout);
    }

    public ServerOptions withAutoTruncate(boolean t) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, t, apiKey,
                shutdownTimeout);
    }

    public ServerOptions withApiKey(String key) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, key,
                shutdownTimeout);
    }

    public ServerOptions withShutdownTimeout(Duration d) {
        return new ServerOptions(host, port, maxBatchTokens, maxClientBatchSize, maxConcurrentRequests, payloadLimit, autoTruncate, apiKey,
                d);
    }
}
