package org.vectorbert.engine;

import java.util.List;
import java.util.Optional;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Tensor;

/**
 * {@code cls.predictions}, the masked-language-model head: LayerNorm(act(W·h + b)), then times the
 * decoder matrix plus a bias per vocabulary entry. The decoder is usually tied to the word
 * embeddings (the checkpoint stores it once, under their name); in float32 it then shares their
 * packed panels, in bfloat16 it is packed again at half the size.
 *
 * @param transform            transform.dense [hidden -> hidden]
 * @param activation           hidden_act, after transform.dense
 * @param layerNorm            transform.LayerNorm [hidden]
 * @param decoder              decoder [hidden -> vocab], with the output bias [vocab]
 * @param sharesWordEmbeddings whether the decoder's panels are the word embeddings'
 */
record BertMlmHead(PackedMatrix transform, Activation activation, LayerNorm layerNorm, PackedMatrix decoder,
                   boolean sharesWordEmbeddings) {
    /** The head's own weights, below cls.predictions: any of them present makes the head present, and then all must be. */
    private static final List<String> OWN = List.of("transform.dense.weight", "transform.dense.bias",
            "transform.LayerNorm.weight", "transform.LayerNorm.bias", "bias");

    /** The head at {@code scope} ({@code cls.predictions}), or empty when the checkpoint has none. */
    static Optional<BertMlmHead> load(Scope scope, BertConfig c, BertEmbeddings embeddings) {
        if (!isIn(scope)) {
            return Optional.empty();
        }
        int h = c.hiddenSize();
        Tensor decoderWeight = scope.tensor("decoder.weight", c.vocabSize(), h);
        Tensor bias = scope.tensor("bias", c.vocabSize());
        boolean tied = embeddings.isWordEmbeddings(decoderWeight);
        boolean share = tied && scope.precision() == Precision.F32;
        PackedMatrix decoder = share ? embeddings.words().withBias(bias.toFloatArray())
                : scope.packed(decoderWeight, bias, scope.precision());
        return Optional.of(new BertMlmHead(scope.child("transform.dense").linear(h, h), Activation.of(c),
                LayerNorm.load(scope.child("transform.LayerNorm"), c), decoder, share));
    }

    /** Whether the checkpoint has an MLM head at {@code scope}: the one rule {@link #load} and {@code inspect} share. */
    static boolean isIn(Scope scope) {
        return OWN.stream().anyMatch(scope::has);
    }

    /** The full names of the head's own weights missing from the checkpoint, for a message. */
    static List<String> missing(Scope scope) {
        return OWN.stream().filter(n -> !scope.has(n)).map(scope::name).toList();
    }

    /** Logits over the vocabulary for the given rows of x ([rows of the batch, hidden]): [rows asked, vocab]. */
    float[] forward(float[] x, int[] rowsAsked) {
        int hidden = transform.in;
        int n = rowsAsked.length;
        float[] h = new float[n * hidden];
        for (int i = 0; i < n; i++) {
            System.arraycopy(x, rowsAsked[i] * hidden, h, i * hidden, hidden);
        }
        float[] t = new float[n * hidden];
        transform.apply(h, n, t);
        RowKernels.activate(activation, t, t.length);
        layerNorm.apply(t, n, t);
        float[] logits = new float[n * decoder.out];
        decoder.apply(t, n, logits);
        return logits;
    }

    /** Bytes of its own: a decoder shared with the word embeddings counts its bias only. */
    long bytes() {
        long shared = sharesWordEmbeddings ? 4L * decoder.bias.length : decoder.bytes();
        return transform.bytes() + layerNorm.bytes() + shared;
    }
}
