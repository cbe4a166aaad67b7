package org.vectorbert.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.vectorbert.common.Excerpt;
import org.vectorbert.common.Json;
import org.vectorbert.loader.Labels;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code --server URL}: a running {@code vectorbert serve} answers the command in place of a model loaded in
 * this process. For repeated use from a shell or a script: each command otherwise pays for a JVM's start, the
 * model's load and a first pass on code just compiled (about twice the time of a call handed over), where the
 * server's model is loaded and warm. Explicit, never
 * silent: only with the option, and the command names the server and its model on stderr.
 *
 * <p>The server's API key, if it has one, comes from {@code $VECTORBERT_API_KEY}, the variable {@code serve}
 * reads its own from (never an argument, which other users of the machine could see in the process list).
 */
final class ServeClient {
    /** The option, for the commands that can hand their texts over (a picocli mixin). */
    static final class Option {
        @picocli.CommandLine.Option(names = "--server", paramLabel = "URL",
                description = "Send the texts to a running 'vectorbert serve' at URL (such as http://127.0.0.1:8080) instead of loading "
                        + "the model here: no start-up wait, the server's model answers (its API key from $"
                        + ServeCommand.API_KEY_VARIABLE + ").")
        String url;

        /** Whether --server was given. */
        boolean given() {
            return url != null;
        }
    }

    /**
     * Milliseconds to wait for a connection, and for /info's answer. A fill-mask or embedding request waits as long as
     * the server takes: a long text queued behind others can take seconds, and Ctrl-C ends the wait.
     */
    private static final int CONNECT_MILLIS = 5_000;
    private static final int INFO_MILLIS = 30_000;

    private final URI base;
    private final String key;
    private final JsonNode info;

    private ServeClient(URI base, String key, JsonNode info) {
        this.base = base;
        this.key = key;
        this.info = info;
    }

    /**
     * Connects to the server at {@code url} ({@link Option}) for {@code verb} ("fill-mask"): reads its {@code /info},
     * checks that it serves the model that {@code --model} and {@code --dtype} ask for (when they are given), refuses
     * {@code --threads} (the server's own threads run its model), and says on {@code err} which server and model answer.
     */
    static ServeClient connect(String url, String verb, ModelOptions model, CommandSpec spec, PrintWriter err) {
        return connect(url, verb, model, spec, err, info -> "");
    }

    /** {@link #connect}, the line on {@code err} naming also what {@code about} says of the server's {@code /info}. */
    static ServeClient connect(String url, String verb, ModelOptions model, CommandSpec spec, PrintWriter err,
                               Function<JsonNode, String> about) {
        URI base = base(url);
        if (spec.commandLine().getParseResult().hasMatchedOption("--threads")) {
            throw new UserError("--threads and --server do not go together: the server's own threads run its model");
        }
        String key = System.getenv(ServeCommand.API_KEY_VARIABLE);
        ServeClient client = new ServeClient(base, key == null || key.isEmpty() ? null : key, null);
        JsonNode info = client.exchange("info", null, INFO_MILLIS);
        JsonNode id = info.get("model_id");
        if (id == null || !id.isTextual() || !info.has("fill_mask")) {
            throw new UserError("--server: " + base + " is not a vectorbert server: its /info has no model_id and fill_mask");
        }
        String served = id.textValue();
        if (model.model != null && !sameModel(model.model, served)) {
            throw new UserError("--model " + model.model + ", but the server at " + base + " serves " + served
                    + ": drop --model to use the server's model, or --server to load " + model.model + " here");
        }
        String dtype = info.path("model_dtype").asText("");
        String asked = switch (model.precision()) {
            case F32 -> "float32";
            case BF16 -> "bfloat16";
        };
        if (spec.commandLine().getParseResult().hasMatchedOption("--dtype") && !asked.equals(dtype)) {
            throw new UserError("--dtype " + model.dtype + ", but the server at " + base + " runs its model in " + dtype);
        }
        err.println(verb + ": answered by the server at " + base + " (" + served + about.apply(info) + ")");
        return new ServeClient(base, client.key, info);
    }

    /** The server's {@code /info}. */
    JsonNode info() {
        return info;
    }

    /** The bytes a request body may have ({@code payload_limit}), or {@code Long.MAX_VALUE} where the server does not say. */
    long payloadLimit() {
        return info.path("payload_limit").canConvertToLong() ? info.get("payload_limit").longValue() : Long.MAX_VALUE;
    }

    /** How many texts one request may carry ({@code max_client_batch_size}), at most {@code wanted}. */
    int batchSize(int wanted) {
        return Math.max(1, Math.min(wanted, info.path("max_client_batch_size").asInt(wanted)));
    }

    /**
     * The labels of the server's sequence classifier, as its {@code /info} gives them (TEI's {@code model_type}, a
     * {@code classifier} or a {@code reranker}, plus its {@code problem_type}), so that logits it sends are scored and
     * ordered here as the local pipeline does; refused when it has none, naming what {@code verb} needs.
     */
    Labels classifierLabels(String verb) {
        JsonNode type = info.path("model_type");
        JsonNode classifier = type.has("classifier") ? type.get("classifier") : type.get("reranker");
        if (classifier == null || !classifier.path("id2label").isObject()) {
            throw new UserError("the server at " + base + " serves " + info.path("model_id").asText()
                    + ", which has no sequence-classification head, so it cannot " + verb);
        }
        JsonNode id2label = classifier.get("id2label");
        String[] names = new String[id2label.size()];
        for (int i = 0; i < names.length; i++) {
            JsonNode name = id2label.get(String.valueOf(i));
            if (name == null || !name.isTextual()) {
                throw new UserError("the server's /info numbers its labels other than 0.." + (names.length - 1) + ": " + Excerpt.of(id2label.toString()));
            }
            names[i] = name.textValue();
        }
        if (new HashSet<>(List.of(names)).size() != names.length) {
            // Its answers name labels, not ids: two of one name could not be told apart.
            throw new UserError("the server at " + base + " serves a classifier whose labels repeat a name " + List.of(names)
                    + ", so its answers cannot be told apart; run without --server");
        }
        String problemType = classifier.path("problem_type").isTextual() ? classifier.get("problem_type").textValue() : null;
        return new Labels(List.of(names), problemType);
    }

    /** POSTs {@code body} as JSON to {@code route} (relative, such as "fill-mask") and returns the answer. */
    JsonNode post(String route, JsonNode body) {
        return exchange(route, body, 0);
    }

    /**
     * {@link #post} for {@code count} texts read from {@code file} (null: the arguments) from text number {@code first}:
     * a refusal names where those texts came from, unless they are the command's only text ({@code alone}).
     */
    JsonNode post(String route, JsonNode body, String file, int first, int count, boolean alone) {
        try {
            return post(route, body);
        } catch (UserError e) {
            if (alone) {
                throw e;
            }
            String where = TextInput.where(file, first) + (count > 1 ? " and the " + (count - 1) + " after it" : "");
            throw new UserError(where + ": " + e.getMessage());
        }
    }

    /**
     * GETs {@code route}, or POSTs {@code body} to it: the JSON answer of a 200, else one line saying what the server
     * answered or why no answer came. {@code HttpURLConnection} rather than {@code java.net.http}, for the start-up this
     * option is for: building an {@code HttpClient} initialises TLS whether or not it is used, a quarter of a call's time.
     * The connection is not closed: an answer read to its end leaves it open for the next request (keep-alive).
     */
    private JsonNode exchange(String route, JsonNode body, int readMillis) {
        try {
            HttpURLConnection c = (HttpURLConnection) base.resolve(route).toURL().openConnection();
            c.setConnectTimeout(CONNECT_MILLIS);
            c.setReadTimeout(readMillis);
            c.setRequestProperty("Accept", "application/json");
            if (key != null) {
                c.setRequestProperty("Authorization", "Bearer " + key);
            }
            byte[] bytes = body == null ? null : Json.text(body).getBytes(StandardCharsets.UTF_8);
            if (bytes != null) {
                c.setRequestMethod("POST");
                c.setRequestProperty("Content-Type", "application/json");
                c.setDoOutput(true);
                c.setFixedLengthStreamingMode(bytes.length);
            }
            try {
                c.connect();
            } catch (IOException e) {
                throw new UserError("--server: nothing answers at " + base + " (" + describe(e) + "); start one with 'vectorbert serve'");
            }
            if (bytes != null) {
                try (OutputStream out = c.getOutputStream()) {
                    out.write(bytes);
                }
            }
            int status = c.getResponseCode();
            byte[] answer;
            try (InputStream in = status >= 400 ? c.getErrorStream() : c.getInputStream()) {
                answer = in == null ? new byte[0] : in.readAllBytes();
            }
            return answer(status, answer);
        } catch (SocketTimeoutException e) {
            throw new UserError("--server: the server at " + base + " did not answer within " + readMillis / 1000 + " s");
        } catch (IOException e) {
            throw new UserError("--server: no answer from " + base + " (" + describe(e) + ")");
        }
    }

    /** The JSON of a 200 answer, else the error it gives (TEI's shape, {"error": "...", "error_type": "..."}). */
    private JsonNode answer(int status, byte[] bytes) {
        JsonNode json;
        try {
            json = Json.parse(bytes, "the answer", IllegalArgumentException::new);
        } catch (IllegalArgumentException e) {
            json = null;
        }
        if (status == 200 && json != null) {
            return json;
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        String message = json != null && json.path("error").isTextual() ? json.get("error").textValue()
                : text.isBlank() ? "no message" : Excerpt.of(text.strip());
        String hint = switch (status) {
            case 401 -> "; set $" + ServeCommand.API_KEY_VARIABLE + " to its API key";
            case 404 -> "; is it a vectorbert server?";
            default -> "";
        };
        throw new UserError("the server at " + base + " answered " + status + ": " + message + hint);
    }

    private static String describe(IOException e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** {@code url} as the base that routes resolve against (a trailing slash added), or a usage error. */
    static URI base(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new UserError("--server: not a URL: " + url + " (" + e.getReason() + ")");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getQuery() != null
                || uri.getFragment() != null) {
            throw new UserError("--server: give the server's address as http://HOST:PORT, was " + url);
        }
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        try {
            return new URI(scheme + "://" + uri.getRawAuthority() + (path.endsWith("/") ? path : path + "/"));
        } catch (URISyntaxException e) {
            throw new UserError("--server: not a URL: " + url + " (" + e.getReason() + ")");
        }
    }

    /**
     * Whether {@code --model asked} names the model the server reports as {@code served}: the same text, the name serve
     * gives a model it was started with by that argument ({@link ServeCommand#servedName}: a directory's name, not its path),
     * or two paths to the same directory (a server that reports its path).
     */
    static boolean sameModel(String asked, String served) {
        if (asked.equals(served) || ServeCommand.servedName(asked).equals(served)) {
            return true;                                     // a served model is named, not given by its path (serve)
        }
        try {
            Path a = Path.of(asked);
            Path b = Path.of(served);
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
        } catch (InvalidPathException | IOException e) {
            return false;
        }
    }
}
