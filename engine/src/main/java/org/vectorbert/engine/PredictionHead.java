package org.vectorbert.engine;

import java.util.List;
import org.vectorbert.loader.ModernBertConfig;
import org.vectorbert.loader.Tensor;

/**
 * A prediction head, norm(act(dense(x))), then a matrix. The factories here are ModernBERT's: {@code head}
 * (ModernBertPredictionHead) and then the MLM {@code decoder}, tied to the word embeddings, with {@code decoder.bias};
 * or {@code classifier} (sequence and token classification, and question answering's start and end logits), always with
 * a bias. Sequence classification's mean pooling happens before the head ({@link ModernBertModel}). NomicBERT's MLM head
 * ({@code cls.predictions}) is the same shape ({@link NomicBertModel}).
 *
 * @param dense                the dense layer [hidden -> hidden]
 * @param activation           its activation
 * @param norm                 the LayerNorm after it
 * @param out                  the decoder or the classifier
 * @param sharesWordEmbeddings whether out's panels are the word embeddings'
 */
record PredictionHead(PackedMatrix dense, Activation activation, LayerNorm norm, PackedMatrix out, boolean sharesWordEmbeddings)
        implements Head {
    /** The prediction head's weights below the root, any of which makes a head present. */
    static final List<String> PREDICTION = List.of("head.dense.weight", "head.norm.weight");

    /** The masked-language-model head: the decoder's weights are the word embeddings ({@code words}, from {@code wordsTensor}). */
    static PredictionHead masked(Scope root, ModernBertConfig c, PackedMatrix words, Tensor wordsTensor) {
        float[] bias = c.decoderBias() ? root.vector("decoder.bias", c.vocabSize()) : null;
        boolean share = root.precision() == Precision.F32;
        PackedMatrix decoder = share ? words.withBias(bias) : root.packed(wordsTensor, c.decoderBias() ? root.tensor("decoder.bias",
                c.vocabSize()) : null, root.precision());
        return load(root, c, decoder, share);
    }

    /** A classifier head with {@code outputs} logits per row read. */
    static PredictionHead classifier(Scope root, ModernBertConfig c, int outputs) {
        return load(root, c, root.child("classifier").linear(c.hiddenSize(), outputs), false);
    }

    private static PredictionHead load(Scope root, ModernBertConfig c, PackedMatrix out, boolean share) {
        int h = c.hiddenSize();
        return new PredictionHead(root.child("head.dense").linear(h, h, c.classifierBias()), Activation.of(c.classifierActivation()),
                ModernBertModel.norm(root.child("head.norm"), c), out, share);
    }

    @Override
    public int width() {
        return out.out;
    }

    @Override
    public float[] forward(float[] x, int[] rows) {
        int n = rows.length;
        float[] h = Head.gather(x, rows, dense.in);
        float[] t = new float[n * dense.out];
        dense.apply(h, n, t);
        Kernels.activate(activation, t, t.length);
        norm.apply(t, n, t);
        float[] logits = new float[n * out.out];
        out.apply(t, n, logits);
        return logits;
    }

    @Override
    public long bytes() {
        return dense.bytes() + norm.bytes() + (sharesWordEmbeddings ? 4L * out.bias.length : out.bytes());
    }
}
