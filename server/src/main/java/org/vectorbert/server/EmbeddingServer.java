package org.vectorbert.server;

import java.net.URI;
import java.util.concurrent.Executors;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * An HTTP server for one model's embeddings and fill-mask, in the shapes of text-embeddings-inference,
 * OpenAI's embeddings API and Hugging Face's inference API. It listens as soon as it starts and
 * answers 503 until {@link #ready} hands it the loaded model, so a load balancer can watch /health.
 *
 * <pre>{@code
 * try (EmbeddingServer server = EmbeddingServer.start(ServerOptions.defaults().withPort(0))) {
 *     server.ready(Models.of("bert-base-uncased", Embeddings.load()));
 *     System.out.println(server.uri());   // POST {uri}embed {"inputs": "A sentence."}
 * }
 * }</pre>
 *
 * <p>Built on Jetty 12 (its core API, no servlets): HTTP/1.1 keep-alive and pipelining, request
 * handling on virtual threads, and a graceful stop that stops accepting and lets requests in flight
 * finish.
 */
public final class EmbeddingServer implements AutoCloseable {
    /** The version /info reports. */
    public static final String VERSION = "0.1.0";
    /** How long {@link #ready} runs forward passes before serving (see {@link Warmup}). */
    static final long WARMUP_MILLIS = 3000;

    private final ServerOptions options;
    private final ServerMetrics metrics = new ServerMetrics();
    private final HttpFront front;
    private final Server server;
    private final ServerConnector connector;
    private volatile Batcher batcher;
    private volatile boolean stopped;

    private EmbeddingServer(ServerOptions options) {
        this.options = options;
        this.front = new HttpFront(options, metrics);
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("vectorbert-http");
        threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("vectorbert-request-", 0).factory()));
        this.server = new Server(threads);
        // A model's name may hold a slash (org/name), which an OpenAI client sends percent-encoded in GET /v1/models/{id}:
        // Jetty refuses such a path (400) unless told that an encoded separator is fine. No route is a file path here.
        HttpConfiguration http = new HttpConfiguration();
        http.setUriCompliance(UriCompliance.DEFAULT.with("DEFAULT+AMBIGUOUS_PATH_SEPARATOR", UriCompliance.Violation.AMBIGUOUS_PATH_SEPARATOR));
        this.connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setHost(options.host());
        connector.setPort(options.port());
        server.addConnector(connector);
        server.setHandler(new GracefulHandler(front));
        server.setStopTimeout(options.shutdownTimeout().toMillis());
        server.setStopAtShutdown(false);
    }

    /**
     * Binds and starts answering (503 for the model's routes until {@link #ready}).
     *
     * @param options how to listen and what to accept
     * @return the running server
     */
    public static EmbeddingServer start(ServerOptions options) {
        EmbeddingServer s = new EmbeddingServer(options);
        try {
            s.server.start();
            return s;
        } catch (java.io.IOException e) {
            s.stopQuietly();
            throw new ServerException("cannot listen on " + options.host() + ":" + options.port() + ": " + e.getMessage(), e);
        } catch (Exception e) {
            s.stopQuietly();
            throw new ServerException("the HTTP server did not start: " + e, e);
        }
    }

    private void stopQuietly() {
        try {
            server.stop();
        } catch (Exception e) {
            // Starting failed already; that failure is the one to report.
        }
    }

    /**
     * Starts serving {@code models}: a few seconds of forward passes first (so the JIT has compiled the
     * kernels before traffic competes with it), then the batcher's inference thread starts and every
     * route answers.
     *
     * @param models what to serve
     */
    public void ready(Models models) {
        int longest = models.embeddings().maxTokens();
        ServerOptions run = options;
        if (options.maxBatchTokens() < longest) {
            if (options.maxBatchTokens() != ServerOptions.DEFAULT_MAX_BATCH_TOKENS) {
                throw new ServerException("--max-batch-tokens " + options.maxBatchTokens() + " is less than the model's longest input ("
                        + longest + " tokens): such a text could never be run");
            }
            // TEI's default budget is shorter than a long-context model's input (Qwen3-Embedding's 32,768): raised to it.
            run = options.withMaxBatchTokens(longest);
        }
        Warmup.run(models.embeddings(), WARMUP_MILLIS);
        Batcher b = new Batcher(models.embeddings(), models.classifier().orElse(null), run.maxBatchTokens(), metrics);
        this.batcher = b;
        front.ready(new Routes(models, run, new Embedder(models.embeddings(), b, metrics, run.autoTruncate()), b));
    }

    /** {@return the port it listens on} The one chosen when the options asked for 0. */
    public int port() {
        return connector.getLocalPort();
    }

    /** {@return its base address, ending in '/'} */
    public URI uri() {
        String host = options.host().contains(":") ? "[" + options.host() + "]" : options.host();
        return URI.create("http://" + host + ":" + port() + "/");
    }

    /**
     * Stops gracefully: /health turns 503, no new connection is accepted, requests in flight finish
     * (for up to the options' shutdown timeout), then the inference thread ends. Idempotent.
     */
    public synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        front.stopping();
        try {
            server.stop();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new ServerException("requests still in flight after the shutdown timeout (" + options.shutdownTimeout().toSeconds()
                    + " s) were cut off", e);
        } catch (Exception e) {
            throw new ServerException("the HTTP server did not stop cleanly: " + e, e);
        } finally {
            if (batcher != null) {
                batcher.close();
            }
        }
    }

    @Override
    public void close() {
        stop();
    }
}
