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
            return EmbedViaServer.run(this, modes, tokenVectors, out, spec.commandLine().getErr());
        }
        EmbeddingOptions options = new EmbeddingOptions(modelOptions.precision(), tokenVectors ? List.of(Pooling.CLS) : modes,
                normalize, truncate, prompt, promptName, batchTokens);
        Embeddings embeddings = modelOptions.load(spec.commandLine().getErr(), dir -> Embeddings.load(dir, options));
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

    /** A readable line: the text, the vector's size, its first values and its norm. */
    static String summary(String text, Map<String, Object> o) {
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
