package org.vectorbert.engine;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.vectorbert.loader.PytorchFile;
import org.vectorbert.loader.Tensor;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * bge-m3's three outputs from one pass, as FlagEmbedding's {@code BGEM3FlagModel.encode} gives them: the dense vector (the
 * model's sentence-transformers settings: [CLS], normalised), the lexical weights (ReLU of {@code sparse_linear.pt} on each
 * token's state, the largest per token id, the template's special tokens, padding and unknown tokens dropped, zeros
 * dropped), and the ColBERT vectors ({@code colbert_linear.pt} on every token but the first, each normalised); and the
 * scores bge-m3 defines over them. The two heads are read from their {@code torch.save} files by the safe PyTorch reader.
 * Thread-safe.
 */
public final class M3Embeddings {
    /** The head files bge-m3 ships beside its encoder. */
    public static final String SPARSE_FILE = "sparse_linear.pt";
    /** The ColBERT head's file. */
    public static final String COLBERT_FILE = "colbert_linear.pt";

    private final Embeddings dense;
    private final float[] sparseWeight;
    private final float sparseBias;
    private final PackedMatrix colbert;
    private final Set<Integer> dropped;

    private M3Embeddings(Embeddings dense, float[] sparseWeight, float sparseBias, PackedMatrix colbert) {
        this.dense = dense;
        this.sparseWeight = sparseWeight;
        this.sparseBias = sparseBias;
        this.colbert = colbert;
        Tokenizer t = dense.tokenizer();
        // FlagEmbedding drops cls, eos, pad and unk: the ids the template puts around a text, and those two.
        this.dropped = IntStream.concat(Arrays.stream(t.encode("").ids()), IntStream.of(t.padTokenId(), t.unkTokenId()))
                .boxed().collect(Collectors.toUnmodifiableSet());
    }

    /**
     * Opens a bge-m3 model (a directory, a Hugging Face model id or a cached snapshot) with its two head files.
     *
     * @param model the model
     * @return the pipeline
     * @throws org.vectorbert.common.VectorbertException if the model or a head file is missing or does not fit
     */
    public static M3Embeddings load(String model) {
        EmbeddingOptions options = EmbeddingOptions.defaults().withPooling(Pooling.CLS).withNormalize(true);
        return ModelLoading.load(model, Precision.F32, (encoder, tokenizer) -> of(Embeddings.of(encoder, tokenizer, options)));
    }

    /**
     * The pipeline over an embeddings pipeline of bge-m3's encoder, the heads read from its model directory.
     *
     * @param dense the embeddings pipeline ([CLS], normalised)
     * @return the pipeline
     */
    public static M3Embeddings of(Embeddings dense) {
        Path dir = dense.model().directory();
        int hidden = dense.model().config().hiddenSize();
        try (PytorchFile sparse = PytorchFile.open(head(dir, SPARSE_FILE)); PytorchFile colbert = PytorchFile.open(head(dir, COLBERT_FILE))) {
            Tensor w = linear(sparse, "weight", 1, hidden);
            Tensor b = linear(sparse, "bias", 1);
            Tensor cw = colbert.tensors().get("weight");
            long dim = cw == null || cw.shape().length != 2 ? -1 : cw.shape()[0];
            Tensor colbertWeight = linear(colbert, "weight", dim, hidden);
            Tensor colbertBias = linear(colbert, "bias", dim);
            return new M3Embeddings(dense, w.toFloatArray(), b.toFloatArray()[0],
                    PackedMatrix.pack(colbertWeight, colbertBias, Precision.F32));
        }
    }

    private static Path head(Path dir, String name) {
        Path file = dir.resolve(name);
        if (!Files.isRegularFile(file)) {
            throw new EngineException(dir + " has no " + name + ": sparse and multi-vector outputs need bge-m3's " + SPARSE_FILE
                    + " and " + COLBERT_FILE + " beside the encoder");
        }
        return file;
    }

    /** A Linear layer's tensor of a head file, which must have exactly this shape (nn.Linear's state dict, strict). */
    private static Tensor linear(PytorchFile file, String name, long... shape) {
        Tensor t = file.tensors().get(name);
        if (t == null || !Arrays.equals(t.shape(), shape) || file.tensors().size() != 2) {
            throw new EngineException(file.path() + ": expected an nn.Linear state dict (weight and bias) with " + name + " of shape "
                    + Arrays.toString(shape) + (t == null ? ", but it has no " + name : ", but it is " + t.shapeString())
                    + " (tensors: " + file.tensors().keySet() + ")");
        }
        return t;
    }

    /**
     * One text's outputs.
     *
     * @param ids            its token ids
     * @param dense          the dense vector, normalised
     * @param lexicalWeights the lexical weights by token id, in order of each id's first positive weight
     * @param multiVector    the ColBERT vectors, one per token but the first, each normalised
     */
    public record Output(int[] ids, float[] dense, Map<Integer, Float> lexicalWeights, float[][] multiVector) {}

    /**
     * Each text's three outputs, in order, from one pass per batch of texts of similar length.
     *
     * @param texts the texts
     * @return their outputs
     */
    public List<Output> encode(List<String> texts) {
        int hidden = dense.model().config().hiddenSize();
        return dense.run(texts, null, Embeddings.Include.TOKEN_VECTORS).stream().map(r -> {
            int n = r.ids().length;
            Map<Integer, Float> lexical = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                double sum = sparseBias;
                for (int c = 0; c < hidden; c++) {
                    sum += (double) r.tokenVectors()[i * hidden + c] * sparseWeight[c];
                }
                float weight = (float) Math.max(sum, 0);
                if (weight > 0 && !dropped.contains(r.ids()[i])) {
                    lexical.merge(r.ids()[i], weight, Math::max);
                }
            }
            float[][] vectors = new float[n - 1][];
            if (n > 1) {
                float[] out = new float[(n - 1) * colbert.out];
                colbert.apply(Arrays.copyOfRange(r.tokenVectors(), hidden, n * hidden), n - 1, out);
                for (int i = 0; i < n - 1; i++) {
                    vectors[i] = Pool.l2Normalize(Arrays.copyOfRange(out, i * colbert.out, (i + 1) * colbert.out));
                }
            }
            return new Output(r.ids(), r.pooled(), Collections.unmodifiableMap(lexical), vectors);
        }).toList();
    }

    /** How {@link #score} and {@link #rerank} score a pair, by FlagEmbedding's {@code compute_score} names. */
    public enum Mode {
        /** The dense vectors' dot product. */
        DENSE("dense"),
        /** The lexical matching score. */
        SPARSE("sparse"),
        /** ColBERT's late-interaction score. */
        COLBERT("colbert"),
        /** (w_sparse·sparse + w_dense·dense) / (w_sparse + w_dense). */
        SPARSE_DENSE("sparse+dense"),
        /** (w_colbert·colbert + w_sparse·sparse + w_dense·dense) / (w_colbert + w_sparse + w_dense). */
        ALL("colbert+sparse+dense");

        private final String label;

        Mode(String label) {
            this.label = label;
        }

        /** {@return its name as compute_score gives it ("sparse+dense")} */
        public String label() {
            return label;
        }

        /**
         * The mode of a name: compute_score's ("colbert+sparse+dense") or the constant's, in any case.
         *
         * @param name the name
         * @return the mode
         * @throws EngineException naming the modes when there is none of that name
         */
        public static Mode of(String name) {
            for (Mode m : values()) {
                if (m.label.equalsIgnoreCase(name) || m.name().equalsIgnoreCase(name)) {
                    return m;
                }
            }
            throw new EngineException("unknown score mode '" + name + "' (dense, sparse, colbert, sparse+dense, colbert+sparse+dense)");
        }
    }

    /** The weights of the combined modes when none are given: [1, 1, 1], as compute_score's default. */
    public static final float[] DEFAULT_WEIGHTS = {1, 1, 1};

    /**
     * A query's score against a document.
     *
     * @param query    the query's outputs
     * @param document the document's
     * @param mode     how to score
     * @param weights  the combined modes' weights of dense, sparse and ColBERT, in that order (compute_score's order)
     * @return the score
     */
    public static float score(Output query, Output document, Mode mode, float[] weights) {
        if (weights.length != 3 || !(weights[0] >= 0 && weights[1] >= 0 && weights[2] >= 0) || weights[0] + weights[1] + weights[2] <= 0) {
            throw new EngineException("weights must be three non-negative numbers, not all 0: dense, sparse, colbert; were "
                    + Arrays.toString(weights));
        }
        double d = denseScore(query.dense(), document.dense());
        double s = lexicalScore(query.lexicalWeights(), document.lexicalWeights());
        return switch (mode) {
            case DENSE -> (float) d;
            case SPARSE -> (float) s;
            case COLBERT -> colbertScore(query.multiVector(), document.multiVector());
            case SPARSE_DENSE -> (float) ((weights[1] * s + weights[0] * d) / (weights[1] + weights[0]));
            case ALL -> (float) ((weights[2] * colbertScore(query.multiVector(), document.multiVector()) + weights[1] * s + weights[0] * d)
                    / (weights[2] + weights[1] + weights[0]));
        };
    }

    /**
     * Scores each document against the query, in the documents' order.
     *
     * @param query     the query
     * @param documents the documents
     * @param mode      how to score
     * @param weights   the combined modes' weights of dense, sparse and ColBERT ({@link #DEFAULT_WEIGHTS} for compute_score's)
     * @return one score per document
     */
    public float[] rerank(String query, List<String> documents, Mode mode, float[] weights) {
        List<String> all = new ArrayList<>(documents.size() + 1);
        all.add(query);
        all.addAll(documents);
        List<Output> out = encode(all);
        float[] scores = new float[documents.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = score(out.getFirst(), out.get(i + 1), mode, weights);
        }
        return scores;
    }

    /** {@return the embeddings pipeline of the dense vectors} */
    public Embeddings dense() {
        return dense;
    }

    /**
     * The lexical matching score: the sum over the token ids both have of the product of their weights.
     *
     * @param query    a query's lexical weights
     * @param document a document's
     * @return the score, 0 when they share no id
     */
    public static float lexicalScore(Map<Integer, Float> query, Map<Integer, Float> document) {
        double sum = 0;
        for (Map.Entry<Integer, Float> e : query.entrySet()) {
            Float d = document.get(e.getKey());
            if (d != null) {
                sum += (double) e.getValue() * d;
            }
        }
        return (float) sum;
    }

    /**
     * ColBERT's late-interaction score as bge-m3 defines it: for each query vector its largest dot product with a document
     * vector, summed and divided by the number of query vectors.
     *
     * @param query    a query's ColBERT vectors
     * @param document a document's
     * @return the score
     */
    public static float colbertScore(float[][] query, float[][] document) {
        if (query.length == 0 || document.length == 0) {
            return 0;
        }
        double sum = 0;
        for (float[] q : query) {
            double best = Double.NEGATIVE_INFINITY;
            for (float[] d : document) {
                best = Math.max(best, dot(q, d));
            }
            sum += best;
        }
        return (float) (sum / query.length);
    }

    /**
     * The dense score: the dot product of two normalised vectors.
     *
     * @param query    a query's dense vector
     * @param document a document's
     * @return the score
     */
    public static float denseScore(float[] query, float[] document) {
        return (float) dot(query, document);
    }

    private static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (double) a[i] * b[i];
        }
        return s;
    }
}
