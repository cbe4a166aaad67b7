package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;

/**
 * Sparse lexical vectors with SPLADE pooling over a model's masked-language-model head, as TEI's
 * {@code /embed_sparse} and sentence-transformers' SpladePooling compute them: for every vocabulary entry,
 * the largest {@code log(1 + relu(logit))} over the text's positions (special tokens included, padding not).
 * Only the nonzero entries are kept. A SPLADE checkpoint (naver/splade-*) is a {@code *ForMaskedLM}; any model
 * with an MLM head gives such vectors. Thread-safe.
 *
 * <pre>{@code
 * SparseEmbeddings splade = SparseEmbeddings.load("path/to/splade-model");
 * SparseEmbeddings.SparseVector v = splade.embed(List.of("the capital of france")).getFirst();
 * }</pre>
 */
public final class SparseEmbeddings {
    /**
     * Positions one forward pass holds: the head's logits are [positions, vocabulary], 31 MB at 256 positions of
     * bert-base's 30,522 entries, against 125 MB at the 1,024 the other pipelines use.
     */
    static final int PASS_TOKENS = 256;

    /**
     * A sparse vector: vocabulary ids in increasing order and their values, all nonzero.
     *
     * @param indices vocabulary ids, increasing
     * @param values  their values, all nonzero
     */
    public record SparseVector(int[] indices, float[] values) {
        /** {@return the number of nonzero components} */
        public int size() {
            return indices.length;
        }
    }

    private final Encoder model;
    private final Tokenizer tokenizer;
    private final int maxTokens;

    private SparseEmbeddings(Encoder model, Tokenizer tokenizer) {
        model.requireMlmHead();
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.maxTokens = Math.min(model.config().maxTokens(), tokenizer.modelMaxLength());
    }

    /**
     * The model {@code model} names, in float32.
     *
     * @param model what {@code --model} accepts
     * @return the pipeline
     */
    public static SparseEmbeddings load(String model) {
        return load(model, Precision.F32);
    }

    /**
     * The model {@code model} names, its matrices held at {@code precision}.
     *
     * @param model     what {@code --model} accepts
     * @param precision F32 or BF16
     * @return the pipeline
     */
    public static SparseEmbeddings load(String model, Precision precision) {
        return ModelLoading.load(model, precision, SparseEmbeddings::of);
    }

    /**
     * A pipeline over a model and tokenizer already loaded.
     *
     * @param model     a model with a masked-LM head
     * @param tokenizer its tokenizer
     * @return the pipeline
     */
    public static SparseEmbeddings of(Encoder model, Tokenizer tokenizer) {
        return new SparseEmbeddings(model, tokenizer);
    }

    /** {@return the vocabulary size: the dimension of the vectors} */
    public int dimension() {
        return model.config().vocabSize();
    }

    /** {@return the longest text in tokens, special tokens included; longer texts are cut or refused} */
    public int maxTokens() {
        return maxTokens;
    }

    /**
     * Each text's sparse vector, texts longer than the model takes refused.
     *
     * @param texts the texts
     * @return one vector per text, in order
     */
    public List<SparseVector> embed(List<String> texts) {
        return embed(texts, false, TruncationSide.RIGHT);
    }

    /**
     * Each text's sparse vector, the texts grouped by length into forward passes.
     *
     * @param truncate whether texts longer than {@link #maxTokens()} are cut (from {@code side}), else refused
     * @param texts    the texts
     * @param side     which end long texts are cut from
     * @return one vector per text, in order
     */
    public List<SparseVector> embed(List<String> texts, boolean truncate, TruncationSide side) {
        EncodeOptions options = EncodeOptions.defaults().withPadding(Padding.NONE);
        if (truncate) {
            options = options.withTruncation(Truncation.LONGEST_FIRST).withMaxLength(maxTokens)
                    .withTruncationSide(side == TruncationSide.LEFT ? EncodeOptions.Side.LEFT : EncodeOptions.Side.RIGHT);
        } else {
            options = options.withTruncation(Truncation.NONE);
        }
        List<Encoding> encodings = tokenizer.encodeBatch(texts, options);
        int[] lengths = new int[encodings.size()];
        for (int i = 0; i < encodings.size(); i++) {
            lengths[i] = encodings.get(i).length();
            if (lengths[i] > maxTokens) {
                throw new TextTooLongException(texts.get(i), lengths[i], maxTokens, true);
            }
        }
        SparseVector[] out = new SparseVector[texts.size()];
        for (List<Integer> members : LengthBatches.of(lengths, PASS_TOKENS)) {
            List<SparseVector> vectors = pool(Batch.of(members.stream().map(encodings::get).toList(), tokenizer.padTokenId()));
            for (int b = 0; b < members.size(); b++) {
                out[members.get(b)] = vectors.get(b);
            }
        }
        return Arrays.asList(out);
    }

    /** SPLADE pooling of one forward pass: per sequence, the maximum of log(1 + relu(logit)) over its real positions. */
    List<SparseVector> pool(Batch batch) {
        int[] rows = batch.realRows();
        int vocab = dimension();
        return model.forward(batch, Encoder.Request.lastHiddenState().withMlmLogitsAt(rows), o -> {
            float[] logits = o.mlmLogits();
            List<SparseVector> vectors = new ArrayList<>(batch.size());
            float[] max = new float[vocab];
            int at = 0;
            for (int b = 0; b < batch.size(); b++) {
                Arrays.fill(max, 0);
                for (int p = 0; p < batch.lengths()[b]; p++, at++) {
                    int base = at * vocab;
                    for (int v = 0; v < vocab; v++) {
                        float x = logits[base + v];
                        if (x > 0) {
                            max[v] = Math.max(max[v], (float) Math.log1p(x));
                        }
                    }
                }
                vectors.add(sparse(max));
            }
            return vectors;
        });
    }

    private static SparseVector sparse(float[] dense) {
        int n = 0;
        for (float x : dense) {
            n += x != 0 ? 1 : 0;
        }
        int[] indices = new int[n];
        float[] values = new float[n];
        for (int v = 0, k = 0; v < dense.length; v++) {
            if (dense[v] != 0) {
                indices[k] = v;
                values[k++] = dense[v];
            }
        }
        return new SparseVector(indices, values);
    }
}
