package org.vectorbert.engine;

/**
 * {@code encoder.layer.N} of DeBERTa-v2: BERT's post-LN layer around {@link DebertaAttention}.
 *
 * @param attention       attention.self
 * @param attentionOutput attention.output: dense, LayerNorm
 * @param intermediate    intermediate.dense
 * @param activation      hidden_act
 * @param output          output: dense, LayerNorm
 * @param hidden          hidden_size
 */
record DebertaLayer(DebertaAttention attention, BertLayer.DenseAndNorm attentionOutput, PackedMatrix intermediate,
                    Activation activation, BertLayer.DenseAndNorm output, int hidden) {
    /** x = LN(x + attention(x)); x = LN(x + W2·act(W1·x)), in place over [layout.rows(), hidden]. */
    void forward(float[] x, RowLayout layout, Workspace ws, float[] probabilities) {
        int rows = layout.rows();
        attention.forward(x, layout, ws, probabilities);
        attentionOutput.dense().apply(ws.ctx, rows, ws.t);
        Kernels.addInPlace(ws.t, 0, x, rows * hidden);
        attentionOutput.layerNorm().apply(ws.t, rows, x);
        BertLayer.feedForward(intermediate, activation, output.dense(), x, rows, ws, ws.t);
        Kernels.addInPlace(ws.t, 0, x, rows * hidden);
        output.layerNorm().apply(ws.t, rows, x);
    }

    long bytes() {
        return attention.bytes() + attentionOutput.bytes() + intermediate.bytes() + output.bytes();
    }
}
