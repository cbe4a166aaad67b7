package org.vectorbert.engine;

import java.util.List;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Tensor;

/**
 * {@code cls.predictions}, the masked-language-model head (each family's under its own names:
 * RoBERTa's {@code lm_head}, DistilBERT's {@code vocab_transform} ..., ELECTRA's generator's
 * {@code generator_predictions} and {@code generator_lm_head}): LayerNorm(act(W·h + b)), then times the
 * decoder matrix plus a bias per vocabulary entry. The decoder is usually tied to the word
 * embeddings (the checkpoint stores it once, under their name); in float32 it then shares their
 * packed panels, in bfloat16 it is packed again at half the size.
 *
 * @param transform            transform.dense [hidden -> embedding_size, which is hidden but for ELECTRA's]
 * @param activation           after transform.dense: hidden_act for BERT and DistilBERT, GELU for RoBERTa and ELECTRA
 * @param layerNorm            transform.LayerNorm [embedding_size]
 * @param decoder              decoder [embedding_size -> vocab], with the output bias [vocab]
 * @param sharesWordEmbeddings whether the decoder's panels are the word embeddings'
 */
record BertMlmHead(PackedMatrix transform, Activation activation, LayerNorm layerNorm, PackedMatrix decoder,
                   boolean sharesWordEmbeddings) implements Head {
    /** The head's own weights, below cls.predictions: any of them present makes the head present, and then all must be. */
    static final List<String> OWN = List.of("transform.dense.weight", "transform.dense.bias",
            "transform.LayerNorm.weight", "transform.LayerNorm.bias", "bias");

    /** The head at {@code scope} ({@code cls.predictions}), all its weights required. */
    static BertMlmHead load(Scope scope, BertConfig c, BertEmbeddings embeddings) {
        int h = c.hiddenSize();
        int e = c.embeddingSize();
        Tensor decoderWeight = scope.tensor("decoder.weight", c.vocabSize(), e);
        Tensor bias = scope.tensor("bias", c.vocabSize());
        boolean tied = embeddings.isWordEmbeddings(decoderWeight);
        boolean share = tied && scope.precision() == Precision.F32;
        PackedMatrix decoder = share ? embeddings.words().withBias(bias.toFloatArray())
                : scope.packed(decoderWeight, bias, scope.precision());
        return new BertMlmHead(scope.child("transform.dense").linear(h, e), Activation.of(c.mlmActivation()),
                LayerNorm.load(scope.child("transform.LayerNorm"), e, c.layerNormEps()), decoder, share);
    }

    @Override
    public int width() {
        return decoder.out;
    }

    /** Logits over the vocabulary for the given rows of x ([rows of the batch, hidden]): [rows asked, vocab]. */
    @Override
    public float[] forward(float[] x, int[] rowsAsked) {
        int n = rowsAsked.length;
        float[] h = Head.gather(x, rowsAsked, transform.in);
        float[] t = new float[n * transform.out];
        transform.apply(h, n, t);
        Kernels.activate(activation, t, t.length);
        layerNorm.apply(t, n, t);
        float[] logits = new float[n * decoder.out];
        decoder.apply(t, n, logits);
        return logits;
    }

    /** Bytes of its own: a decoder shared with the word embeddings counts its bias only. */
    @Override
    public long bytes() {
        long shared = sharesWordEmbeddings ? 4L * decoder.bias.length : decoder.bytes();
        return transform.bytes() + layerNorm.bytes() + shared;
    }
}
