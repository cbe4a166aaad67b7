package org.vectorbert.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.common.Json;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.Pooling;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "embed",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = {"Turn texts into vectors: one pooled vector per text, or every token's vector.",
            "A sentence-transformers model's own settings (pooling, normalisation, maximum length, prompts) apply unless an option says otherwise."},
        footer = {"", "Examples:",
            "  vectorbert embed --json --pooling mean --normalize \"A sentence to embed.\"",
            "  vectorbert embed --model sentence-transformers/all-MiniLM-L6-v2 --file corpus.txt --output vectors.npy",
            "  vectorbert embed --model intfloat/e5-small-v2 --prompt-name query --json \"how do I embed text?\"",
            "  vectorbert embed --json --pooling none --attentions \"hello world\"",
            "  vectorbert embed --json --pair \"Where is Paris?\" \"Paris is in France.\"",
            "  vectorbert embed --pooling mean --normalize --file sentences.txt --output vectors.npy",
            "      (numpy: np.load(\"vectors.npy\") has shape [lines, 768])",
            "  vectorbert embed --server http://127.0.0.1:8080 --json \"A sentence to embed.\"   (answered by a running 'vectorbert serve')"},
        sortOptions = false)
final class EmbedCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Mixin
    ServeClient.Option server;

    @Option(names = "--pair", paramLabel = "TEXT_B", description = "Second text of a pair.")
    String pair;

    @Option(names = "--pooling", paramLabel = "MODE", split = ",",
            description = "cls, mean, max, mean_sqrt_len, lasttoken, pooler (BERT's tanh pooler), or none (every token's vector); "
                    + "several, comma-separated, are concatenated. Default: the model's (sentence-transformers' 1_Pooling), else cls.")
    List<String> pooling;

    @Option(names = "--normalize", negatable = true,
            description = "Scale vectors to unit length (--no-normalize: do not). Default: the model's (a Normalize module), else not.")
    Boolean normalize;

    @Option(names = "--truncate", negatable = true,
            description = "Cut texts longer than the model takes (--no-truncate: refuse them). Default: cut for sentence-transformers"
                    + " models (to max_seq_length, as it does), refuse for others.")
    Boolean truncate;

    @Option(names = "--prompt", paramLabel = "TEXT", description = "Text put before every input (for example \"query: \").")
    String prompt;

    @Option(names = "--prompt-name", paramLabel = "NAME",
            description = "A prompt the model's config_sentence_transformers.json names (for example query); default: its default prompt.")
    String promptName;

    @Option(names = "--attentions", description = "Add attention probabilities [layer][head][query][key] (with --json).")
    boolean attentions;

    @Option(names = "--json", description = "One JSON line per text: {input_ids, embedding} or {input_ids, last_hidden_state}.")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

    @Option(names = "--output", paramLabel = "FILE.npy",
            description = "Write a numpy float32 array instead of printing: [n, dim], or [n, seq, dim] zero-padded for --pooling none with each text's length in FILE.lengths.npy.")
    Path output;

    @Option(names = "--batch-size", paramLabel = "N",
            description = "Texts read at a time and grouped by length into forward passes (default: 2048, or 64 with --pooling none"
                    + " or --attentions, whose outputs are large); standard input is answered as lines arrive.")
    Integer batchSize;

    @Option(names = "--batch-tokens", paramLabel = "N", defaultValue = "" + EmbeddingOptions.BATCH_TOKENS,
            description = "Positions (padding included) a forward pass may hold (default: ${DEFAULT-VALUE}).")
    int batchTokens;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Texts to embed.")
    List<String> texts = new ArrayList<>();

    @Override
    public Integer call() {
        boolean tokenVectors = pooling != null && pooling.size() == 1 && pooling.getFirst().equalsIgnoreCase("none");
        List<Pooling> modes = null;
        if (pooling != null && !tokenVectors) {
            modes = new ArrayList<>();
            for (String p : pooling) {
                try {
                    modes.add(Pooling.parse(p.trim()));
                } catch (EngineException e) {
                    throw new UserError("unknown --pooling '" + p + "' (expected " + Pooling.names() + " or none)");
                }
            }
        }
        if (attentions && (!json || output != null)) {
            throw new UserError("--attentions needs --json (and no --output)");
        }
        if (output != null && json) {
            throw new UserError("give --json (lines on standard output) or --output FILE.npy, not both");
        }
        if (batchSize == null) {
            // A large window sorts texts of similar length together: padding went from 20% at 256 texts to 4% at 2048.
            batchSize = tokenVectors || attentions ? 64 : 2048;
        }
        if (batchSize <= 0) {
            throw new UserError("--batch-size must be positive, was " + batchSize);
        }
        if (batchTokens <= 0) {
            throw new UserError("--batch-tokens must be positive, was " + batchTokens);
        }
        if (prompt != null && promptName != null) {
            throw new UserError("give --prompt or --prompt-name, not both");
        }
        if (output != null) {
            // Before any work: a run of hours must not end in "cannot write".
            NpyOutput.checkTarget(output, tokenVectors);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (server.given()) {
            return viaServer(modes, tokenVectors, out, spec.commandLine().getErr());
        }
        EmbeddingOptions options = new EmbeddingOptions(modelOptions.precision(), tokenVectors ? List.of(Pooling.CLS) : modes,
                normalize, truncate, prompt, promptName, batchTokens);
        Embeddings embeddings = Embeddings.load(modelOptions.directory(spec.commandLine().getErr()).toString(), options);
        if (tokenVectors && embeddings.options().pooling().size() > 1) {
            throw new UserError("--pooling none gives token vectors; it goes alone");
        }
        try (NpyOutput npy = output == null ? null : tokenVectors
                     ? NpyOutput.tokenVectors(output, embeddings.dimension())
                     : NpyOutput.pooled(output, embeddings.dimension())) {
            RunProgress progress = new RunProgress(spec.commandLine().getErr(), "embed:", file != null);
            progress.cutAt(embeddings.maxTokens());
            int windowSize = batchSize;
            TextInput.forEachBatch(texts, file, System.in, batchSize, (batch, first, read, total) -> {
                for (int i = 0; i < batch.size(); i++) {
                    if (!embeddings.hasTokens(batch.get(i))) {
                        progress.noTokens(TextInput.where(file, first + i));
                    }
                }
                List<String> seconds = pair == null ? null : java.util.Collections.nCopies(batch.size(), pair);
                List<Embeddings.Include> include = new ArrayList<>();
                if (tokenVectors) {
                    include.add(Embeddings.Include.TOKEN_VECTORS);
                }
                if (attentions) {
                    include.add(Embeddings.Include.ATTENTIONS);
                }
                List<Embeddings.Result> results = embeddings.run(batch, seconds, include.toArray(Embeddings.Include[]::new));
                long tokens = 0;
                for (int i = 0; i < results.size(); i++) {
                    Embeddings.Result result = results.get(i);
                    tokens += result.ids().length;
                    if (result.truncated()) {
                        progress.cut();
                    }
                    if (npy != null) {
                        npy.add(tokenVectors ? result.tokenVectors() : result.pooled(), tokenVectors ? result.ids().length : 1);
                    } else {
                        Map<String, Object> o = object(result.ids(), tokenVectors ? null : result.pooled(),
                                tokenVectors ? result.tokenVectors() : null, embeddings.dimension(), result.attentions());
                        out.println(json ? JsonText.of(o) : summary(batch.get(i), o));
                    }
                }
                out.flush();
                progress.done(batch.size(), tokens, read, total);
                if (batch.size() == windowSize) {
                    // A full window's results lived long enough to be promoted, and the serial collector
                    // grows the old generation to take promotions rather than collect it: a 100,000-line
                    // MiniLM run grew from 310 to 445 MB resident while its live data stayed at 182 MB.
                    // Collecting once a window (2,048 texts: tens of seconds of work; a collection of the
                    // live data takes a fraction of a second) keeps the heap at the weights plus one window.
                    System.gc();
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
     * The JSON object for one text, in Hugging Face's field names: its ids, and its pooled vector or its token vectors
     * ({@code hidden} values a token), plus the attentions when asked.
     */
    private static Map<String, Object> object(int[] ids, float[] pooled, float[] tokenVectors, int hidden, Object attentions) {
        Map<String, Object> o = new LinkedHashMap<>();
        o.put("input_ids", ids);
        if (tokenVectors != null) {
            float[][] rows = new float[ids.length][];
            for (int t = 0; t < rows.length; t++) {
                rows[t] = Arrays.copyOfRange(tokenVectors, t * hidden, (t + 1) * hidden);
            }
            o.put("last_hidden_state", rows);
        } else {
            o.put("embedding", pooled);
        }
        if (attentions != null) {
            o.put("attentions", attentions);
        }
        return o;
    }

    /**
     * The texts sent to a running server's {@code POST /embed} (or {@code /embed_all} for {@code --pooling none}) in
     * requests of up to its {@code max_client_batch_size}, and its vectors written as the local ones are: the same bits (a
     * float's shortest decimal reads back as the same float), the same ids, the same summary. The ids, the texts cut and
     * those with no tokens come from the server's {@code POST /tokenize}, with the cut the pipeline makes (see {@link #cut}).
     * Options the server cannot honour are refused rather than dropped; normalisation and truncation default to what the
     * model does itself, as they do in the local command, not to TEI's defaults for /embed.
     */
    private int viaServer(List<Pooling> modes, boolean tokenVectors, PrintWriter out, PrintWriter err) {
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
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
        // The line naming the server says how it pools and its precision: a server started with --pooling or --dtype pools
        // or computes otherwise than this command would, and only --pooling and --dtype given here are checked against it.
        ServeClient client = ServeClient.connect(server.url, "embed", modelOptions, spec, err,
                info -> info.path("model_type").path("embedding").path("pooling").isTextual()
                        ? ", " + info.get("model_type").get("embedding").get("pooling").textValue() + " pooling, "
                                + info.path("model_dtype").asText("") : "");
        JsonNode info = client.info();
        JsonNode type = info.path("model_type");
        JsonNode model = type.path("embedding");
        if (!model.path("pooling").isTextual() || !model.path("normalize").isBoolean() || !model.path("truncate").isBoolean()
                || !info.path("dimension").canConvertToInt() || !info.path("max_input_length").canConvertToInt()) {
            throw new UserError("the server at " + server.url + " serves " + info.path("model_id").asText()
                    + (type.has("classifier") || type.has("reranker") ? " as a classifier, not an embedding model"
                            : ", but its /info does not say how it pools, normalises and cuts texts")
                    + "; run without --server");
        }
        String served = model.get("pooling").textValue();
        if (modes != null) {
            String asked = String.join("+", modes.stream().map(p -> p.name().toLowerCase(Locale.ROOT)).toList());
            if (!asked.equals(served)) {
                throw new UserError("--pooling " + String.join(",", pooling) + ", but the server at " + server.url + " pools with "
                        + served + ": drop --pooling to use the server's, or --server to pool here");
            }
        }
        boolean cutLong = truncate != null ? truncate : model.get("truncate").booleanValue();
        boolean unit = normalize != null ? normalize : model.get("normalize").booleanValue();
        int maxTokens = info.get("max_input_length").intValue();
        int dimension = info.get("dimension").intValue();
        int hidden = dimension / served.split("\\+").length;
        try (NpyOutput npy = output == null ? null : tokenVectors
                     ? NpyOutput.tokenVectors(output, hidden)
                     : NpyOutput.pooled(output, dimension)) {
            RunProgress progress = new RunProgress(err, "embed:", file != null);
            progress.cutAt(maxTokens);
            int[] promptAlone = {-1};       // the prompt's own tokens, asked for once, when a text may have none of its own
            int[][] blank = {null};         // the ids of one space, asked for once, when a text is empty
            boolean alone = file == null && texts.size() == 1;
            TextInput.forEachBatch(texts, file, System.in, batchSize, (window, windowFirst, read, total) -> {
                List<int[]> requests = requests(window, windowFirst, client);
                // The whole window tokenized and checked before any of it is embedded: a text too long is refused before
                // the window's first vector is written, as the local command refuses it.
                List<int[]> ids = new ArrayList<>(window.size());
                for (int[] request : requests) {
                    int from = request[0];
                    List<String> batch = window.subList(from, request[1]);
                    List<Tokens> tokens = tokens(client, batch, windowFirst + from, alone);
                    for (int i = 0; i < batch.size(); i++) {
                        Tokens t = tokens.get(i);
                        if (t.ids().length <= maxTokens) {
                            ids.add(t.ids());
                        } else if (cutLong) {
                            ids.add(cut(t, maxTokens));
                            progress.cut();
                        } else {
                            throw new UserError("the text \"" + Excerpt.of(batch.get(i)) + "\" is " + t.ids().length
                                    + " tokens, longer than the model's " + maxTokens
                                    + "; shorten it or turn truncation on (--truncate cuts it to fit)");
                        }
                        if (batch.get(i).isEmpty()) {
                            // /embed refuses an empty text, as TEI's does; one space is sent in its place where it gives the
                            // same ids (WordPiece's normaliser drops it), so the same vector, and the line is refused where not.
                            if (blank[0] == null) {
                                blank[0] = tokens(client, List.of(" "), windowFirst + from + i, true).getFirst().ids();
                            }
                            if (!Arrays.equals(blank[0], t.ids())) {
                                throw new UserError(TextInput.where(file, windowFirst + from + i) + " is empty, and the server's /embed takes"
                                        + " no empty text (as TEI's does not); leave it out, or run without --server");
                            }
                        }
                        if (batch.get(i).codePoints().noneMatch(Character::isLetterOrDigit)) {
                            // The rule of Embeddings.hasTokens, with the prompt's own tokens (if any) not counted.
                            if (promptAlone[0] < 0) {
                                promptAlone[0] = tokens(client, List.of(""), windowFirst + from + i, true).getFirst().ownTokens();
                            }
                            if (t.ownTokens() <= promptAlone[0]) {
                                progress.noTokens(TextInput.where(file, windowFirst + from + i));
                            }
                        }
                    }
                }
                for (int[] request : tokenVectors ? byTokens(requests, ids) : requests) {
                    int from = request[0];
                    List<String> batch = window.subList(from, request[1]);
                    ObjectNode body = JsonText.object();
                    ArrayNode inputs = body.putArray("inputs");
                    batch.forEach(text -> inputs.add(text.isEmpty() ? " " : text));
                    body.put("truncate", cutLong);
                    if (!tokenVectors) {
                        body.put("normalize", unit);
                    }
                    if (promptName != null) {
                        body.put("prompt_name", promptName);
                    }
                    JsonNode answer = client.post(tokenVectors ? "embed_all" : "embed", body, file, windowFirst + from, batch.size(), alone);
                    if (!answer.isArray() || answer.size() != batch.size()) {
                        throw new UserError("the server's answer is not " + batch.size() + " vectors: " + Excerpt.of(answer.toString()));
                    }
                    long count = 0;
                    for (int i = 0; i < batch.size(); i++) {
                        int[] textIds = ids.get(from + i);
                        count += textIds.length;
                        float[] pooled = tokenVectors ? null : floats(answer.get(i), dimension);
                        float[] tokenRows = tokenVectors ? tokenRows(answer.get(i), textIds.length, hidden) : null;
                        if (npy != null) {
                            npy.add(tokenVectors ? tokenRows : pooled, tokenVectors ? textIds.length : 1);
                        } else {
                            Map<String, Object> o = object(textIds, pooled, tokenRows, hidden, null);
                            out.println(json ? JsonText.of(o) : summary(batch.get(i), o));
                        }
                    }
                    out.flush();
                    progress.done(batch.size(), count, read, total);
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
     * The window cut into requests, each [from, to): at most the server's {@code max_client_batch_size} texts, and a body
     * within its {@code payload_limit} (a larger one is answered 413 unread); a text too large alone is refused, naming it.
     */
    private List<int[]> requests(List<String> window, int windowFirst, ServeClient client) {
        int size = client.batchSize(window.size());
        // The body's other fields (truncate, normalize, prompt_name) and its brackets, generously.
        long room = client.payloadLimit() - 128 - (promptName == null ? 0 : Json.text(TextNode.valueOf(promptName)).length() * 4L);
        List<int[]> out = new ArrayList<>();
        int from = 0;
        long bytes = 0;
        for (int i = 0; i < window.size(); i++) {
            String text = window.get(i).isEmpty() ? " " : window.get(i);
            long cost = Json.text(TextNode.valueOf(text)).getBytes(StandardCharsets.UTF_8).length + 1;
            if (cost > room) {
                throw new UserError(TextInput.where(file, windowFirst + i) + " is " + cost + " bytes as JSON, more than the server at "
                        + server.url + " takes in a request (its payload limit is " + client.payloadLimit()
                        + " bytes: serve --payload-limit); run without --server");
            }
            if (i - from == size || bytes + cost > room) {
                out.add(new int[] {from, i});
                from = i;
                bytes = 0;
            }
            bytes += cost;
        }
        out.add(new int[] {from, window.size()});
        return out;
    }

    /**
     * Positions of token vectors one /embed_all answer may hold: such an answer takes about 12 bytes of JSON a float
     * (768 of them a token for bert-base: 9 KB), all read into memory, so 1,024 positions keep it near 10 MB.
     */
    private static final int TOKEN_VECTORS_PER_REQUEST = 1024;

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

    /** A text's tokens as the server's /tokenize gives them: ids, which are the template's special tokens, and how many are not. */
    private record Tokens(int[] ids, boolean[] special, int ownTokens) {}

    /** The texts' tokens, with the prompt and special tokens the server's pipeline adds. */
    private List<Tokens> tokens(ServeClient client, List<String> batch, int first, boolean alone) {
        ObjectNode body = JsonText.object();
        ArrayNode inputs = body.putArray("inputs");
        batch.forEach(inputs::add);
        if (promptName != null) {
            body.put("prompt_name", promptName);
        }
        JsonNode answer = client.post("tokenize", body, file, first, batch.size(), alone);
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

    /** A readable line: the text, the vector's size, its first values and its norm. */
    private static String summary(String text, Map<String, Object> o) {
        float[] v = o.containsKey("embedding") ? (float[]) o.get("embedding") : ((float[][]) o.get("last_hidden_state"))[0];
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        StringBuilder b = new StringBuilder("\"").append(Excerpt.of(text)).append("\"  ");
        b.append(o.containsKey("embedding") ? "[" + v.length + "]" : "[" + ((float[][]) o.get("last_hidden_state")).length + " x " + v.length + "], first token");
        for (int i = 0; i < Math.min(6, v.length); i++) {
            b.append(String.format(" %.4f", v[i]));
        }
        return b.append(String.format(" ... (norm %.4f)", Math.sqrt(norm))).toString();
    }
}
