package org.vectorbert.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.M3Embeddings;
import org.vectorbert.engine.Pooling;
import org.vectorbert.engine.TruncationSide;
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
            "  vectorbert embed --json --pooling none --layer -2 \"hello world\"   (the second-to-last layer's token vectors)",
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

    @Option(names = "--dimensions", paramLabel = "N", description = "Keep the first N components of each vector (a Matryoshka"
            + " model's shorter embedding), normalised again after the cut when vectors are normalised.")
    Integer dimensions;

    @Option(names = "--attentions", description = "Add attention probabilities [layer][head][query][key] (with --json).")
    boolean attentions;

    @Option(names = "--layer", paramLabel = "N",
            description = "With --pooling none: the token vectors of hidden state N instead of the last, as transformers' "
                    + "hidden_states[N]: 0 the embeddings' output, 1 to L the layers'; negative counts from the end, -1 the last "
                    + "(JSON: {input_ids, layer, hidden_state}).")
    Integer layer;

    @Option(names = "--sparse", description = "bge-m3's lexical weights instead of the dense vector (its sparse_linear.pt): token id to"
            + " weight, as FlagEmbedding's lexical_weights.")
    boolean sparse;

    @Option(names = "--multi-vector", description = "bge-m3's ColBERT vectors instead of the dense vector (its colbert_linear.pt): one per"
            + " token but the first; JSON lines {input_ids, colbert_vecs} with --json, or [n, seq, dim] zero-padded with --output FILE.npy.")
    boolean multiVector;

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
        if (sparse || multiVector) {
            return m3();
        }
        if (attentions && (!json || output != null)) {
            throw new UserError("--attentions needs --json (and no --output)");
        }
        if (output != null && json) {
            throw new UserError("give --json (lines on standard output) or --output FILE.npy, not both");
        }
        if (batchSize == null) {
            // A large window sorts texts of similar length together, so batches hold little padding.
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
        if (layer != null && !tokenVectors) {
            throw new UserError("--layer gives a layer's token vectors: use it with --pooling none");
        }
        if (layer != null && (attentions || server.given())) {
            throw new UserError("--layer goes without " + (attentions ? "--attentions" : "--server"));
        }
        if (dimensions != null && (tokenVectors || server.given())) {
            throw new UserError("--dimensions cuts pooled vectors: it goes without " + (tokenVectors ? "--pooling none" : "--server"));
        }
        if (output != null) {
            // Before any work: a run of hours must not end in "cannot write".
            NpyOutput.checkTarget(output, tokenVectors);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (server.given()) {
            return EmbedViaServer.run(this, modes, tokenVectors, out, spec.commandLine().getErr());
        }
        EmbeddingOptions options = new EmbeddingOptions(modelOptions.precision(), tokenVectors ? List.of(Pooling.CLS) : modes,
                normalize, truncate, prompt, promptName, batchTokens);
        EmbeddingOptions cut = dimensions == null ? options : options.withDimensions(dimensions);
        Embeddings embeddings = modelOptions.load(spec.commandLine().getErr(), dir -> Embeddings.load(dir, cut));
        if (tokenVectors && embeddings.options().pooling().size() > 1) {
            throw new UserError("--pooling none gives token vectors; it goes alone");
        }
        int layers = embeddings.model().config().numHiddenLayers();
        if (layer != null && (layer > layers || layer < -layers - 1)) {
            throw new UserError("--layer " + layer + " is out of range: the model has " + layers + " layers, so hidden states 0 (the"
                    + " embeddings' output) to " + layers + ", or -" + (layers + 1) + " to -1 from the end");
        }
        // The last hidden state is the pipeline's own; another layer's is read from a pass that keeps every layer's.
        Integer hiddenState = layer == null || Math.floorMod(layer, layers + 1) == layers ? null : Math.floorMod(layer, layers + 1);
        String stateKey = layer == null ? "last_hidden_state" : "hidden_state";
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
                List<Embeddings.Result> results = hiddenState != null ? layerVectors(embeddings, batch, seconds, hiddenState)
                        : embeddings.run(batch, seconds, include.toArray(Embeddings.Include[]::new));
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
                        if (layer != null) {
                            o = layerObject(o, stateKey, Math.floorMod(layer, layers + 1));
                        }
                        out.println(json ? JsonText.of(o) : summary(batch.get(i), o));
                    }
                }
                out.flush();
                progress.done(batch.size(), tokens, read, total);
                if (batch.size() == windowSize) {
                    // A full window's results lived long enough to be promoted, and the serial collector
                    // grows the old generation to take promotions rather than collect it, so resident memory
                    // grows while live data does not. Collecting once a window (2,048 texts: tens of seconds of
                    // work; a collection of the live data takes a fraction of a second) keeps the heap at the
                    // weights plus one window.
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

    /** --sparse or --multi-vector: bge-m3's other two outputs, with the options that apply to them. */
    private int m3() {
        if (sparse && multiVector) {
            throw new UserError("give --sparse or --multi-vector, not both");
        }
        String alone = pooling != null ? "--pooling" : pair != null ? "--pair" : attentions ? "--attentions" : layer != null ? "--layer"
                : server.given() ? "--server" : prompt != null || promptName != null ? "--prompt" : dimensions != null ? "--dimensions" : null;
        if (alone != null) {
            throw new UserError((sparse ? "--sparse" : "--multi-vector") + " goes without " + alone);
        }
        if (output != null && (sparse || json)) {
            throw new UserError(sparse ? "--sparse writes JSON lines or a summary, not --output" : "give --json or --output FILE.npy, not both");
        }
        if (output != null) {
            NpyOutput.checkTarget(output, true);
        }
        M3Embeddings m3 = modelOptions.load(spec.commandLine().getErr(), M3Embeddings::load);
        return M3Embed.run(m3, sparse, json, output, texts, file, batchSize == null ? 64 : batchSize, spec.commandLine().getOut());
    }

    /**
     * The JSON object for one text, in Hugging Face's field names: its ids, and its pooled vector or its token vectors
     * ({@code hidden} values a token), plus the attentions when asked.
     */
    static Map<String, Object> object(int[] ids, float[] pooled, float[] tokenVectors, int hidden, Object attentions) {
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
     * Each text's token vectors from hidden state {@code index} (transformers' {@code hidden_states[index]}: 0 the embeddings'
     * output, then each layer's), tokenized as the pipeline tokenizes (prompt, pair, truncation), in forward passes that keep
     * every layer's output, of at most --batch-tokens positions with padding.
     */
    private List<Embeddings.Result> layerVectors(Embeddings embeddings, List<String> texts, List<String> pairs, int index) {
        List<Embeddings.Prepared> prepared = embeddings.prepare(texts, pairs, TruncationSide.RIGHT);
        int hidden = embeddings.model().config().hiddenSize();
        List<Embeddings.Result> results = new ArrayList<>(prepared.size());
        for (int from = 0; from < prepared.size(); ) {
            int to = from + 1;
            int longest = prepared.get(from).length();
            while (to < prepared.size() && Math.max(longest, prepared.get(to).length()) * (to - from + 1) <= batchTokens) {
                longest = Math.max(longest, prepared.get(to++).length());
            }
            List<Embeddings.Prepared> pass = prepared.subList(from, to);
            Batch ids = Batch.of(pass.stream().map(Embeddings.Prepared::ids).toList(), pass.stream().map(Embeddings.Prepared::typeIds).toList(),
                    embeddings.tokenizer().padTokenId());
            float[] state = embeddings.model().forward(ids, Encoder.Request.lastHiddenState().withAllHiddenStates()).hiddenStates().get(index);
            for (int b = 0; b < pass.size(); b++) {
                Embeddings.Prepared p = pass.get(b);
                int start = b * ids.length() * hidden;
                results.add(new Embeddings.Result(p.ids(), null, Arrays.copyOfRange(state, start, start + p.length() * hidden), null, null,
                        null, p.truncated(), ids.length(), p.secondStart()));
            }
            from = to;
        }
        return results;
    }

    /** {@code o} with its token vectors under {@code key}, after the hidden state's index (--layer, counted from 0). */
    private static Map<String, Object> layerObject(Map<String, Object> o, String key, int index) {
        Map<String, Object> layered = new LinkedHashMap<>();
        layered.put("input_ids", o.get("input_ids"));
        layered.put("layer", index);
        layered.put(key, o.get("last_hidden_state"));
        return layered;
    }

    /** A readable line: the text, the vector's size, its first values and its norm. */
    static String summary(String text, Map<String, Object> o) {
        String key = o.containsKey("hidden_state") ? "hidden_state" : "last_hidden_state";
        float[] v = o.containsKey("embedding") ? (float[]) o.get("embedding") : ((float[][]) o.get(key))[0];
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        StringBuilder b = new StringBuilder("\"").append(Excerpt.of(text)).append("\"  ");
        b.append(o.containsKey("embedding") ? "[" + v.length + "]" : "[" + ((float[][]) o.get(key)).length + " x " + v.length + "], first token");
        for (int i = 0; i < Math.min(6, v.length); i++) {
            b.append(String.format(" %.4f", v[i]));
        }
        return b.append(String.format(" ... (norm %.4f)", Math.sqrt(norm))).toString();
    }
}
