package org.vectorbert.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.vectorbert.common.Excerpt;
import org.vectorbert.common.Json;
import org.vectorbert.engine.Pooling;
import picocli.CommandLine;

/**
 * {@code embed --server}: the texts sent to a running server's {@code POST /embed} (or {@code /embed_all} for
 * {@code --pooling none}) in requests of up to its {@code max_client_batch_size}, and its vectors written as the local
 * ones are: the same bits (a float's shortest decimal reads back as the same float), the same ids, the same summary. The
 * ids, the texts cut and those with no tokens come from the server's {@code POST /tokenize}, with the cut the pipeline
 * makes (see {@link #cut}). Options the server cannot honour are refused rather than dropped; normalisation and
 * truncation default to what the model does itself, as they do in the local command, not to TEI's defaults for /embed.
 */
final class EmbedViaServer {
    /**
     * Positions of token vectors one /embed_all answer may hold: such an answer takes about 12 bytes of JSON a float
     * (768 of them a token for bert-base: 9 KB), all read into memory, so 1,024 positions keep it near 10 MB.
     */
    private static final int TOKEN_VECTORS_PER_REQUEST = 1024;

    /**
     * What the server's /info says of its embedding model; {@code hidden} is the floats of a token vector, the dimension
     * of one pooling of several concatenated.
     */
    private record Served(boolean normalize, boolean truncate, int maxTokens, int dimension, int hidden) {}

    /** A text's tokens as the server's /tokenize gives them: ids, which are the template's special tokens, and how many are not. */
    private record Tokens(int[] ids, boolean[] special, int ownTokens) {}

    private final EmbedCommand options;
    private final boolean tokenVectors;
    private final PrintWriter out;
    private final PrintWriter err;
    private final ServeClient client;
    private final Served served;
    /** Whether the texts were one argument: a server's refusal then names no line. */
    private final boolean alone;
    /** Cut texts longer than the model takes, else refuse them; and scale pooled vectors to unit length. */
    private final boolean cutLong;
    private final boolean unit;
    /** The prompt's own tokens, asked for once, when a text may have none of its own; -1 until then. */
    private int promptAlone = -1;
    /** The ids of one space, asked for once, when a text is empty. */
    private int[] blank;

    private EmbedViaServer(EmbedCommand options, List<Pooling> modes, boolean tokenVectors, PrintWriter out, PrintWriter err) {
        this.options = options;
        this.tokenVectors = tokenVectors;
        this.out = out;
        this.err = err;
        refuseWhatTheServerCannotDo();
        // The line naming the server says how it pools and its precision: a server started with --pooling or --dtype pools
        // or computes otherwise than this command would, and only --pooling and --dtype given here are checked against it.
        client = ServeClient.connect(options.server.url, "embed", options.modelOptions, options.spec, err,
                info -> pooling(info) == null ? "" : ", " + pooling(info) + " pooling, " + info.path("model_dtype").asText(""));
        served = served(client.info(), modes);
        alone = options.file == null && options.texts.size() == 1;
        cutLong = options.truncate != null ? options.truncate : served.truncate();
        unit = options.normalize != null ? options.normalize : served.normalize();
    }

    /** Embeds the command's texts through the server at {@code --server}; the command's exit code. */
    static int run(EmbedCommand options, List<Pooling> modes, boolean tokenVectors, PrintWriter out, PrintWriter err) {
        return new EmbedViaServer(options, modes, tokenVectors, out, err).run();
    }

    private void refuseWhatTheServerCannotDo() {
        CommandLine.ParseResult parsed = options.spec.commandLine().getParseResult();
        Map<String, String> unsupported = new LinkedHashMap<>();
        unsupported.put("--pair", "the server's /embed takes single texts");
        unsupported.put("--attentions", "the server's /embed gives no attention probabilities");
        unsupported.put("--prompt", "the server takes a prompt by its name: use --prompt-name, or put the prompt into the texts");
        unsupported.put("--batch-tokens", "the server makes its own passes (serve --max-batch-tokens)");
        unsupported.forEach((option, why) -> {
            if (parsed.hasMatchedOption(option)) {
                throw new UserError(option + " and --server do not go together: " + why);
            }
        });
    }

    /** The pooling an embedding server's /info names, or null when it names none (a classifier, an older server). */
    private static String pooling(JsonNode info) {
        JsonNode p = info.path("model_type").path("embedding").path("pooling");
        return p.isTextual() ? p.textValue() : null;
    }

    /** The server's model as /info describes it, refused unless it embeds as asked ({@code modes} null: any pooling). */
    private Served served(JsonNode info, List<Pooling> modes) {
        JsonNode type = info.path("model_type");
        JsonNode model = type.path("embedding");
        String pooling = pooling(info);
        if (pooling == null || !model.path("normalize").isBoolean() || !model.path("truncate").isBoolean()
                || !info.path("dimension").canConvertToInt() || !info.path("max_input_length").canConvertToInt()) {
            throw new UserError("the server at " + options.server.url + " serves " + info.path("model_id").asText()
                    + (type.has("classifier") || type.has("reranker") ? " as a classifier, not an embedding model"
                            : ", but its /info does not say how it pools, normalises and cuts texts")
                    + "; run without --server");
        }
        if (modes != null) {
            String asked = String.join("+", modes.stream().map(p -> p.name().toLowerCase(Locale.ROOT)).toList());
            if (!asked.equals(pooling)) {
                throw new UserError("--pooling " + String.join(",", options.pooling) + ", but the server at " + options.server.url
                        + " pools with " + pooling + ": drop --pooling to use the server's, or --server to pool here");
            }
        }
        int dimension = info.get("dimension").intValue();
        return new Served(model.get("normalize").booleanValue(), model.get("truncate").booleanValue(),
                info.get("max_input_length").intValue(), dimension, dimension / pooling.split("\\+").length);
    }

    private int run() {
        try (NpyOutput npy = options.output == null ? null : tokenVectors
                     ? NpyOutput.tokenVectors(options.output, served.hidden())
                     : NpyOutput.pooled(options.output, served.dimension())) {
            RunProgress progress = new RunProgress(err, "embed:", options.file != null);
            progress.cutAt(served.maxTokens());
            TextInput.forEachBatch(options.texts, options.file, System.in, options.batchSize, (window, windowFirst, read, total) -> {
                List<int[]> requests = requests(window, windowFirst);
                // The whole window tokenized and checked before any of it is embedded: a text too long is refused before
                // the window's first vector is written, as the local command refuses it.
                List<int[]> ids = new ArrayList<>(window.size());
                for (int[] request : requests) {
                    ids.addAll(checkedIds(window.subList(request[0], request[1]), windowFirst + request[0], progress));
                }
                for (int[] request : tokenVectors ? byTokens(requests, ids) : requests) {
                    embed(window.subList(request[0], request[1]), windowFirst + request[0], ids.subList(request[0], request[1]),
                            npy, progress, read, total);
                }
            });
            if (npy != null) {
                npy.complete();
            }
            progress.finish();
        }
        return 0;
    }

    /**
     * The ids the server will embed for each text of {@code batch} (the first at line {@code first}): cut to the model's
     * length, or refused when too long and not to be cut; an empty text refused where one space does not stand for it;
     * the texts with no tokens of their own reported.
     */
    private List<int[]> checkedIds(List<String> batch, int first, RunProgress progress) {
        List<Tokens> tokens = tokens(batch, first, alone);
        List<int[]> ids = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            Tokens t = tokens.get(i);
            if (t.ids().length <= served.maxTokens()) {
                ids.add(t.ids());
            } else if (cutLong) {
                ids.add(cut(t, served.maxTokens()));
                progress.cut();
            } else {
                throw new UserError("the text \"" + Excerpt.of(batch.get(i)) + "\" is " + t.ids().length
                        + " tokens, longer than the model's " + served.maxTokens()
                        + "; shorten it or turn truncation on (--truncate cuts it to fit)");
            }
            if (batch.get(i).isEmpty()) {
                // /embed refuses an empty text, as TEI's does; one space is sent in its place where it gives the
                // same ids (WordPiece's normaliser drops it), so the same vector, and the line is refused where not.
                if (blank == null) {
                    blank = tokens(List.of(" "), first + i, true).getFirst().ids();
                }
                if (!Arrays.equals(blank, t.ids())) {
                    throw new UserError(TextInput.where(options.file, first + i) + " is empty, and the server's /embed takes"
                            + " no empty text (as TEI's does not); leave it out, or run without --server");
                }
            }
            if (batch.get(i).codePoints().noneMatch(Character::isLetterOrDigit)) {
                // The rule of Embeddings.hasTokens, with the prompt's own tokens (if any) not counted.
                if (promptAlone < 0) {
                    promptAlone = tokens(List.of(""), first + i, true).getFirst().ownTokens();
                }
                if (t.ownTokens() <= promptAlone) {
                    progress.noTokens(TextInput.where(options.file, first + i));
                }
            }
        }
        return ids;
    }

    /** One request: {@code batch} (the first at line {@code first}, with these ids) embedded by the server and written. */
    private void embed(List<String> batch, int first, List<int[]> ids, NpyOutput npy, RunProgress progress, long read, long total) {
        ObjectNode body = JsonText.object();
        ArrayNode inputs = body.putArray("inputs");
        batch.forEach(text -> inputs.add(text.isEmpty() ? " " : text));
        body.put("truncate", cutLong);
        if (!tokenVectors) {
            body.put("normalize", unit);
        }
        if (options.promptName != null) {
            body.put("prompt_name", options.promptName);
        }
        JsonNode answer = client.post(tokenVectors ? "embed_all" : "embed", body, options.file, first, batch.size(), alone);
        if (!answer.isArray() || answer.size() != batch.size()) {
            throw new UserError("the server's answer is not " + batch.size() + " vectors: " + Excerpt.of(answer.toString()));
        }
        long count = 0;
        for (int i = 0; i < batch.size(); i++) {
            int[] textIds = ids.get(i);
            count += textIds.length;
            float[] pooled = tokenVectors ? null : floats(answer.get(i), served.dimension());
            float[] tokenRows = tokenVectors ? tokenRows(answer.get(i), textIds.length, served.hidden()) : null;
            if (npy != null) {
                npy.add(tokenVectors ? tokenRows : pooled, tokenVectors ? textIds.length : 1);
            } else {
                Map<String, Object> o = EmbedCommand.object(textIds, pooled, tokenRows, served.hidden(), null);
                out.println(options.json ? JsonText.of(o) : EmbedCommand.summary(batch.get(i), o));
            }
        }
        out.flush();
        progress.done(batch.size(), count, read, total);
    }

    /**
     * The window cut into requests, each [from, to): at most the server's {@code max_client_batch_size} texts, and a body
     * within its {@code payload_limit} (a larger one is answered 413 unread); a text too large alone is refused, naming it.
     */
    private List<int[]> requests(List<String> window, int windowFirst) {
        int size = client.batchSize(window.size());
        // The body's other fields (truncate, normalize, prompt_name) and its brackets, generously.
        long room = client.payloadLimit() - 128
                - (options.promptName == null ? 0 : Json.text(TextNode.valueOf(options.promptName)).length() * 4L);
        List<int[]> requests = new ArrayList<>();
        int from = 0;
        long bytes = 0;
        for (int i = 0; i < window.size(); i++) {
            String text = window.get(i).isEmpty() ? " " : window.get(i);
            long cost = Json.text(TextNode.valueOf(text)).getBytes(StandardCharsets.UTF_8).length + 1;
            if (cost > room) {
                throw new UserError(TextInput.where(options.file, windowFirst + i) + " is " + cost
                        + " bytes as JSON, more than the server at " + options.server.url + " takes in a request (its payload limit is "
                        + client.payloadLimit() + " bytes: serve --payload-limit); run without --server");
            }
            if (i - from == size || bytes + cost > room) {
                requests.add(new int[] {from, i});
                from = i;
                bytes = 0;
            }
            bytes += cost;
        }
        requests.add(new int[] {from, window.size()});
        return requests;
    }

    /** {@code requests} cut further so that none asks for more than {@link #TOKEN_VECTORS_PER_REQUEST} (but one text). */
    private static List<int[]> byTokens(List<int[]> requests, List<int[]> ids) {
        List<int[]> out = new ArrayList<>();
        for (int[] request : requests) {
            int from = request[0];
            int tokens = 0;
            for (int i = request[0]; i < request[1]; i++) {
                if (i > from && tokens + ids.get(i).length > TOKEN_VECTORS_PER_REQUEST) {
                    out.add(new int[] {from, i});
                    from = i;
                    tokens = 0;
                }
                tokens += ids.get(i).length;
            }
            out.add(new int[] {from, request[1]});
        }
        return out;
    }

    /** The texts' tokens, with the prompt and special tokens the server's pipeline adds. */
    private List<Tokens> tokens(List<String> batch, int first, boolean alone) {
        ObjectNode body = JsonText.object();
        ArrayNode inputs = body.putArray("inputs");
        batch.forEach(inputs::add);
        if (options.promptName != null) {
            body.put("prompt_name", options.promptName);
        }
        JsonNode answer = client.post("tokenize", body, options.file, first, batch.size(), alone);
        if (!answer.isArray() || answer.size() != batch.size()) {
            throw new UserError("the server's /tokenize answer is not " + batch.size() + " token lists: " + Excerpt.of(answer.toString()));
        }
        List<Tokens> out = new ArrayList<>(batch.size());
        for (JsonNode list : answer) {
            int[] ids = new int[list.size()];
            boolean[] special = new boolean[ids.length];
            int own = 0;
            for (int t = 0; t < ids.length; t++) {
                JsonNode token = list.get(t);
                if (!token.path("id").canConvertToInt() || !token.path("special").isBoolean()) {
                    throw new UserError("the server's /tokenize answer has a token without id and special: " + Excerpt.of(token.toString()));
                }
                ids[t] = token.get("id").intValue();
                special[t] = token.get("special").booleanValue();
                own += special[t] ? 0 : 1;
            }
            out.add(new Tokens(ids, special, own));
        }
        return out;
    }

    /**
     * The ids of a text cut to {@code max} tokens as the pipeline cuts one from the right (Hugging Face's truncation of a
     * single sequence): the template's special tokens kept where they are, the text's last tokens dropped.
     */
    private static int[] cut(Tokens t, int max) {
        int specials = t.ids().length - t.ownTokens();
        int keep = Math.max(0, max - specials);
        int[] ids = new int[Math.min(max, t.ids().length)];
        int n = 0;
        int own = 0;
        for (int i = 0; i < t.ids().length && n < ids.length; i++) {
            if (t.special()[i] || own++ < keep) {
                ids[n++] = t.ids()[i];
            }
        }
        return ids;
    }

    /** One vector of the server's answer, {@code length} numbers. */
    private static float[] floats(JsonNode vector, int length) {
        if (!vector.isArray() || vector.size() != length) {
            throw new UserError("the server's answer has a vector that is not " + length + " numbers: " + Excerpt.of(vector.toString()));
        }
        float[] v = new float[length];
        for (int d = 0; d < length; d++) {
            JsonNode x = vector.get(d);
            if (!x.isNumber()) {
                throw new UserError("the server's answer has a vector that is not " + length + " numbers: " + Excerpt.of(vector.toString()));
            }
            v[d] = x.floatValue();
        }
        return v;
    }

    /** One text's token vectors from /embed_all, one row of {@code hidden} numbers for each of its {@code tokens} ids. */
    private static float[] tokenRows(JsonNode rows, int tokens, int hidden) {
        if (!rows.isArray() || rows.size() != tokens) {
            throw new UserError("the server's /embed_all answer does not hold one vector for each of the text's " + tokens + " tokens");
        }
        float[] out = new float[tokens * hidden];
        for (int t = 0; t < tokens; t++) {
            System.arraycopy(floats(rows.get(t), hidden), 0, out, t * hidden, hidden);
        }
        return out;
    }
}
