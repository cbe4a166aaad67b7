package org.vectorbert.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.M3Embeddings;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * {@code embed --sparse} and {@code embed --multi-vector}: bge-m3's lexical weights or ColBERT vectors, printed, as JSON
 * lines in FlagEmbedding's field names ({@code lexical_weights}, {@code colbert_vecs}), or the vectors to a .npy file.
 */
final class M3Embed {
    private M3Embed() {}

    /** Embeds the texts of {@code arguments} or {@code file} and writes what {@code sparse} (else the multi-vectors) asks. */
    static int run(M3Embeddings m3, boolean sparse, boolean json, Path output, List<String> arguments, String file, int batchSize,
                   PrintWriter out) {
        int dim = m3.dense().model().config().hiddenSize();
        try (NpyOutput npy = output == null ? null : NpyOutput.tokenVectors(output, dim)) {
            TextInput.forEachBatch(arguments, file, System.in, batchSize, (batch, first, read, total) -> {
                List<M3Embeddings.Output> outputs = m3.encode(batch);
                for (int i = 0; i < outputs.size(); i++) {
                    M3Embeddings.Output o = outputs.get(i);
                    if (npy != null) {
                        float[] flat = new float[o.multiVector().length * dim];
                        for (int v = 0; v < o.multiVector().length; v++) {
                            System.arraycopy(o.multiVector()[v], 0, flat, v * dim, dim);
                        }
                        npy.add(flat, o.multiVector().length);
                    } else if (json) {
                        Map<String, Object> line = new LinkedHashMap<>();
                        line.put("input_ids", o.ids());
                        if (sparse) {
                            Map<String, Float> weights = new LinkedHashMap<>();
                            o.lexicalWeights().forEach((id, w) -> weights.put(String.valueOf(id), w));
                            line.put("lexical_weights", weights);
                        } else {
                            line.put("colbert_vecs", o.multiVector());
                        }
                        out.println(JsonText.of(line));
                    } else {
                        out.println(sparse ? sparseSummary(batch.get(i), o, m3.dense().tokenizer()) : multiSummary(batch.get(i), o));
                    }
                }
                out.flush();
            });
            if (npy != null) {
                npy.complete();
            }
        }
        return 0;
    }

    /** A text's lexical weights, largest first: {@code "text"  3 weights: ▁paris 0.3120, ▁capital 0.2000, ...}. */
    static String sparseSummary(String text, M3Embeddings.Output o, Tokenizer tokenizer) {
        String top = o.lexicalWeights().entrySet().stream().sorted(Map.Entry.<Integer, Float>comparingByValue(Comparator.reverseOrder()))
                .limit(8).map(e -> Excerpt.printable(tokenizer.idToToken(e.getKey())) + String.format(" %.4f", e.getValue()))
                .collect(Collectors.joining(", "));
        int n = o.lexicalWeights().size();
        return "\"" + Excerpt.of(text) + "\"  " + n + (n == 1 ? " weight" : " weights") + (n == 0 ? "" : ": " + top + (n > 8 ? ", ..." : ""));
    }

    /** A text's ColBERT vectors: {@code "text"  [11 x 1024], first vector 0.0123 ...}. */
    static String multiSummary(String text, M3Embeddings.Output o) {
        StringBuilder b = new StringBuilder("\"").append(Excerpt.of(text)).append("\"  [").append(o.multiVector().length).append(" x ")
                .append(o.dense().length).append("]");
        if (o.multiVector().length > 0) {
            b.append(", first vector");
            Arrays.stream(Arrays.copyOf(toDoubles(o.multiVector()[0]), Math.min(6, o.multiVector()[0].length)))
                    .forEach(x -> b.append(String.format(" %.4f", x)));
            b.append(" ...");
        }
        return b.toString();
    }

    private static double[] toDoubles(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) {
            d[i] = v[i];
        }
        return d;
    }
}
