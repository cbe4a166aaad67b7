package org.vectorbert.cli;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.Pooling;
import org.vectorbert.server.EmbeddingServer;
import org.vectorbert.server.Models;
import org.vectorbert.server.ServerOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "serve",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = {"Serve embeddings and fill-mask over HTTP, in the shapes of Hugging Face's text-embeddings-inference "
                + "(/embed, /embed_all, /tokenize, /decode, /info, /health, /metrics), OpenAI's embeddings API (/v1/embeddings) "
                + "and Hugging Face's inference API (/fill-mask); /docs describes every route.",
            "Requests from all clients are batched together by a token budget. SIGTERM or Ctrl-C stops accepting, lets requests "
                + "in flight finish (up to --shutdown-timeout) and exits 0."},
        footer = {"", "Examples:",
            "  vectorbert serve",
            "  vectorbert serve --model sentence-transformers/all-MiniLM-L6-v2 --port 8080",
            "  curl -s localhost:8080/embed -H 'Content-Type: application/json' -d '{\"inputs\": \"What is Deep Learning?\"}'",
            "  VECTORBERT_API_KEY=secret vectorbert serve --host 0.0.0.0"},
        sortOptions = false)
final class ServeCommand implements Callable<Integer> {
    static final String API_KEY_VARIABLE = "VECTORBERT_API_KEY";

    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--host", paramLabel = "ADDRESS", description = "Address to listen on (default: 127.0.0.1, loopback only).")
    String host;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080", description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--pooling", paramLabel = "MODE", split = ",",
            description = "How token vectors become one vector: cls, mean, max, mean_sqrt_len, lasttoken or pooler, several "
                    + "joined by commas (default: what the model declares, else cls).")
    List<String> pooling;

    @Option(names = "--max-batch-tokens", paramLabel = "N", defaultValue = "16384",
            description = "Positions (padding included) one round of batched requests may hold; a round runs as forward passes "
                    + "of up to 256 positions grouped by length (default: ${DEFAULT-VALUE}).")
    int maxBatchTokens;

    @Option(names = "--max-client-batch-size", paramLabel = "N", defaultValue = "32",
            description = "Texts one request may carry (default: ${DEFAULT-VALUE}).")
    int maxClientBatchSize;

    @Option(names = "--max-concurrent-requests", paramLabel = "N", defaultValue = "512",
            description = "Requests in progress at once; more are answered 429 at once (default: ${DEFAULT-VALUE}).")
    int maxConcurrentRequests;

    @Option(names = "--payload-limit", paramLabel = "BYTES", defaultValue = "2000000",
            description = "Largest request body; larger ones are answered 413 unread (default: ${DEFAULT-VALUE}).")
    long payloadLimit;

    @Option(names = "--auto-truncate", description = "Cut texts longer than the model takes unless a request says \"truncate\": false "
            + "(default: refuse them with 422).")
    boolean autoTruncate;

    @Option(names = "--api-key", paramLabel = "KEY", description = "Every route but /health needs 'Authorization: Bearer KEY' "
            + "(default: $" + API_KEY_VARIABLE + ", else none).")
    String apiKey;

    @Option(names = "--shutdown-timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "On SIGTERM, how long requests in flight may take to finish (default: ${DEFAULT-VALUE}).")
    int shutdownTimeout;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        String key = apiKey != null ? apiKey : System.getenv(API_KEY_VARIABLE);
        ServerOptions options;
        try {
            options = ServerOptions.defaults().withHost(host != null ? host : "127.0.0.1").withPort(port).withMaxBatchTokens(maxBatchTokens)
                    .withMaxClientBatchSize(maxClientBatchSize).withMaxConcurrentRequests(maxConcurrentRequests)
                    .withPayloadLimit(payloadLimit).withAutoTruncate(autoTruncate).withApiKey(key == null || key.isEmpty() ? null : key)
                    .withShutdownTimeout(Duration.ofSeconds(Math.max(0, shutdownTimeout)));
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage().replace("max batch tokens", "--max-batch-tokens")
                    .replace("max client batch size", "--max-client-batch-size").replace("max concurrent requests", "--max-concurrent-requests")
                    .replace("payload limit", "--payload-limit").replace("the API key", "--api-key").replace("port must", "--port must"));
        }
        EmbeddingOptions embedding = EmbeddingOptions.defaults().withPrecision(modelOptions.precision());
        if (pooling != null) {
            List<Pooling> modes = new ArrayList<>();
            for (String p : pooling) {
                try {
                    modes.add(Pooling.parse(p.trim()));
                } catch (EngineException e) {
                    throw new UserError("unknown --pooling '" + p + "' (expected " + Pooling.names() + ")");
                }
            }
            embedding = embedding.withPooling(modes.toArray(Pooling[]::new));
        }
        EmbeddingServer server = EmbeddingServer.start(options);
        StopSignal signal;
        try {
            if (options.apiKey() == null) {
                err.println(host == null ? "serve: no API key, so listening on loopback only (--host ADDRESS to listen elsewhere)"
                        : "serve: no API key: anyone who can reach " + host + ":" + server.port() + " can use it (--api-key KEY)");
            }
            Embeddings embeddings = Embeddings.load(modelOptions.directory(err).toString(), embedding);
            String id = modelOptions.model != null ? modelOptions.model : "bert-base-uncased";
            Models models = Models.of(id, embeddings);
            // Once serving, a signal drains instead of ending the process; while the model loads it ends it, as it
            // ends every other command (130 or 143, partial downloads removed). Installed only once nothing here can
            // fail: the hook holds the JVM open until told the server stopped.
            server.ready(models);
            signal = StopSignal.install();
            err.println("serve: " + id + " (" + embeddings.dimension() + " dimensions, " + String.join("+", embeddings.options().pooling().stream()
                    .map(Pooling::label).toList()) + " pooling"
                    + (models.fillMask().isPresent() ? ", fill-mask" : "") + ") ready on " + server.uri());
            err.flush();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        int status = 0;
        try {
            signal.await();
            err.println("serve: stopping: no new connections; finishing requests in flight (up to " + shutdownTimeout + " s)");
            err.flush();
            server.close();
            err.println("serve: stopped");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            status = Main.report(e, spec.commandLine(), null);   // here, not by picocli: the hook ends the process with it
        } finally {
            err.flush();
            signal.stopped(status);
        }
        return status;
    }
}
