package org.vectorbert.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.Pooling;
import org.vectorbert.loader.ModelResolver;
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
        description = {"Serve a model over HTTP: embeddings in the shapes of Hugging Face's text-embeddings-inference "
                + "(/embed, /embed_all, /embed_sparse, /similarity, /tokenize, /decode, /info, /health, /metrics) and, when the "
                + "model has the heads, its /rerank and /predict; OpenAI's /v1/embeddings and /v1/models; and Hugging Face's "
                + "inference API for /fill-mask, /token-classification and /question-answering. /docs describes every route.",
            "Requests from all clients are batched together by a token budget. SIGTERM or Ctrl-C stops accepting, lets requests "
                + "in flight finish (up to --shutdown-timeout) and exits 0."},
        footer = {"", "Examples:",
            "  vectorbert serve",
            "  vectorbert serve --model sentence-transformers/all-MiniLM-L6-v2 --port 8080",
            "  curl -s localhost:8080/embed -H 'Content-Type: application/json' -d '{\"inputs\": \"What is Deep Learning?\"}'",
            "  curl -s localhost:8080/v1/embeddings -H 'Content-Type: application/json' -d '{\"input\": [\"A sentence.\"]}'",
            "  VECTORBERT_API_KEY=secret vectorbert serve --host 0.0.0.0 --served-model-name bert"},
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

    @Option(names = "--served-model-name", paramLabel = "NAME",
            description = "The model's name in /info's model_id, /v1/models and /v1/embeddings' answers (default: --model's "
                    + "Hugging Face id, or its directory's or checkpoint file's name, never its path; bert-base-uncased for the "
                    + "default model).")
    String servedModelName;

    @Option(names = "--max-batch-tokens", paramLabel = "N", defaultValue = "16384",
            description = "Positions (padding included) one round of batched requests may hold; a round runs as forward passes "
                    + "of up to 1,024 positions grouped by length (default: ${DEFAULT-VALUE}, or the model's longest input if that is longer).")
    int maxBatchTokens;

    @Option(names = "--max-client-batch-size", paramLabel = "N", defaultValue = "32",
            description = "Texts one request to TEI's routes may carry (default: ${DEFAULT-VALUE}); /v1/embeddings takes OpenAI's "
                    + ServerOptions.OPENAI_MAX_INPUTS + ".")
    int maxClientBatchSize;

    @Option(names = "--max-concurrent-requests", paramLabel = "N", defaultValue = "512",
            description = "Requests in progress at once; more are answered 429 at once (default: ${DEFAULT-VALUE}).")
    int maxConcurrentRequests;

    @Option(names = "--payload-limit", paramLabel = "BYTES", defaultValue = "2000000",
            description = "Largest request body; larger ones are answered 413 unread (default: ${DEFAULT-VALUE}).")
    long payloadLimit;

    // TEI's spelling takes a value (--auto-truncate false); arity 0..1 keeps the bare flag of TEI before 1.9 meaning true.
    @Option(names = "--auto-truncate", negatable = true, defaultValue = "true", fallbackValue = "true", arity = "0..1",
            paramLabel = "true|false",
            description = "Whether TEI's routes cut texts longer than the model takes when a request does not say \"truncate\" "
                    + "(default: ${DEFAULT-VALUE}, as TEI since 1.9; a long text sent with \"truncate\": false still gets 422). "
                    + "--no-auto-truncate or --auto-truncate=false refuses them with 422 unless a request says \"truncate\": true.")
    boolean autoTruncate;

    @Option(names = "--v1-truncate", paramLabel = "true|false", arity = "1", defaultValue = "true",
            description = "Whether /v1/embeddings cuts texts longer than the model takes, as an OpenAI client cannot ask to "
                    + "(default: ${DEFAULT-VALUE}); false refuses them with 422.")
    boolean v1Truncate;

    @Option(names = "--api-key", paramLabel = "KEY", description = "Every route but /health, /openapi.json and /docs needs "
            + "'Authorization: Bearer KEY' (default: $" + API_KEY_VARIABLE + ", else none).")
    String apiKey;

    @Option(names = "--shutdown-timeout", paramLabel = "SECONDS", defaultValue = "30",
            description = "On SIGTERM, how long requests in flight may take to finish (default: ${DEFAULT-VALUE}).")
    int shutdownTimeout;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        noValueForTheNegatedForm(spec.commandLine().getParseResult().originalArgs());
        String key = apiKey != null ? apiKey : System.getenv(API_KEY_VARIABLE);
        ServerOptions options;
        try {
            options = ServerOptions.defaults().withHost(host != null ? host : "127.0.0.1").withPort(port).withMaxBatchTokens(maxBatchTokens)
                    .withMaxClientBatchSize(maxClientBatchSize).withMaxConcurrentRequests(maxConcurrentRequests)
                    .withPayloadLimit(payloadLimit).withAutoTruncate(autoTruncate).withV1Truncate(v1Truncate)
                    .withApiKey(key == null || key.isEmpty() ? null : key)
                    .withShutdownTimeout(Duration.ofSeconds(Math.max(0, shutdownTimeout)));
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage().replace("max batch tokens", "--max-batch-tokens")
                    .replace("max client batch size", "--max-client-batch-size").replace("max concurrent requests", "--max-concurrent-requests")
                    .replace("payload limit", "--payload-limit").replace("the API key", "--api-key").replace("port must", "--port must"));
        }
        if (servedModelName != null && servedModelName.isBlank()) {
            throw new UserError("--served-model-name must not be blank");
        }
        String id = servedModelName != null ? servedModelName : servedName(modelOptions.model);
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

    /**
     * Refuses a value after --no-auto-truncate: with arity 0..1 picocli would not invert it ({@code --no-auto-truncate=false}
     * would mean false), so only the bare negated form and {@code --auto-truncate[=]true|false} are taken.
     */
    static void noValueForTheNegatedForm(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith("--no-auto-truncate=") || a.equals("--no-auto-truncate") && i + 1 < args.size()
                    && (args.get(i + 1).equalsIgnoreCase("true") || args.get(i + 1).equalsIgnoreCase("false"))) {
                throw new UserError("--no-auto-truncate takes no value; say --auto-truncate=true or --auto-truncate=false");
            }
        }
    }

    /**
     * The name {@code model} (--model; null for the default model) is served under unless --served-model-name says: never a
     * path on this machine, which a client has no use for and should not learn. A Hugging Face id as given (with its
     * {@code @revision}); a directory or checkpoint file by its own name (an archive's without {@code .jar} or {@code .zip}),
     * a snapshot in the Hugging Face cache ({@code models--org--name/snapshots/HASH}) by its {@code org/name}.
     */
    static String servedName(String model) {
        if (model == null || model.isBlank()) {
            return "bert-base-uncased";
        }
        Path path;
        try {
            path = Path.of(model);
        } catch (InvalidPathException e) {
            return model;
        }
        if (!Files.exists(path) && ModelResolver.HubId.parse(model) != null) {
            return model;
        }
        Path absolute = path.toAbsolutePath().normalize();
        Path parent = absolute.getParent();
        if (parent != null && parent.getParent() != null && parent.getFileName().toString().equals("snapshots")) {
            String folder = parent.getParent().getFileName() == null ? "" : parent.getParent().getFileName().toString();
            if (folder.startsWith("models--") && folder.length() > "models--".length()) {
                return folder.substring("models--".length()).replace("--", "/");
            }
        }
        if (absolute.getFileName() == null) {
            return "model";                                  // the file system's root
        }
        String name = absolute.getFileName().toString();
        return Files.isRegularFile(absolute) ? name.replaceFirst("(?i)\\.(jar|zip)$", "") : name;
    }
}
