package org.vectorbert.engine;

import org.vectorbert.loader.ModernBertConfig;
import org.vectorbert.loader.Tensor;

/**
 * {@code layers.N}: ModernBERT's pre-LN layer, bias-free unless the config says otherwise:
 * x += attn(attn_norm(x)); x += mlp.Wo(act(input) · gate) with input and gate the halves of mlp.Wi(mlp_norm(x)).
 * {@code attn_norm} is the identity on layer 0 (the checkpoint has none).
 *
 * @param attnNorm     attn_norm, or null on layer 0
 * @param attention    attn
 * @param mlpNorm      mlp_norm
 * @param mlp          mlp: Wi's rows 0 .. I−1 activated (hidden_activation), rows I .. 2I−1 its gate, then Wo
 * @param hidden       hidden_size
 */
record ModernBertLayer(LayerNorm attnNorm, ModernBertAttention attention, LayerNorm mlpNorm, GatedFeedForward mlp, int hidden) {
    /** Layer {@code index}, with the rotary table of its base and the half-width of its window (0 for a global layer). */
    static ModernBertLayer load(Scope scope, int index, ModernBertConfig c, Rotary rotary, int window) {
        int h = c.hiddenSize();
        int inner = c.intermediateSize();
        Scope wi = scope.child("mlp.Wi");
        Tensor w = wi.tensor("weight", 2L * inner, h);
        Tensor b = c.mlpBias() ? wi.tensor("bias", 2L * inner) : null;
        GatedFeedForward mlp = new GatedFeedForward(
                wi.packed(ModernBertAttention.rows(w, 0, inner), b == null ? null : ModernBertAttention.rows(b, 0, inner), wi.precision()),
                wi.packed(ModernBertAttention.rows(w, inner, inner), b == null ? null : ModernBertAttention.rows(b, inner, inner),
                        wi.precision()),
                scope.child("mlp.Wo").linear(inner, h, c.mlpBias()), Activation.of(c.hiddenActivation()));
        return new ModernBertLayer(index == 0 ? null : ModernBertModel.norm(scope.child("attn_norm"), c),
                ModernBertAttention.load(scope.child("attn"), c, rotary, window),
                ModernBertModel.norm(scope.child("mlp_norm"), c), mlp, h);
    }

    /** Runs the layer over x ([layout.rows(), hidden]) in place; attention probabilities go to {@code probabilities} when not null. */
    void forward(float[] x, RowLayout layout, Workspace ws, float[] probabilities) {
        int rows = layout.rows();
        float[] normed = x;
        if (attnNorm != null) {
            attnNorm.apply(x, rows, ws.t);
            normed = ws.t;
        }
        attention.forward(normed, layout, ws, probabilities, ws.t);     // normed is read before ws.t is written
        Kernels.addInPlace(x, 0, ws.t, rows * hidden);
        mlpNorm.apply(x, rows, ws.t);
        mlp.apply(ws.t, rows, ws, ws.ctx);
        Kernels.addInPlace(x, 0, ws.ctx, rows * hidden);
    }

    long bytes() {
        return (attnNorm == null ? 0 : attnNorm.bytes()) + attention.bytes() + mlpNorm.bytes() + mlp.bytes();
    }
}
