package org.vectorbert.engine;

import org.vectorbert.loader.BertConfig;

/**
 * {@code bert.encoder.layer.N}: self-attention, then the feed-forward block, each with a residual
 * connection and a LayerNorm. BERT normalises after each sub-layer (post-LN); a config with
 * vectorbert's {@code pre_layer_norm} normalises before it, with the same weights.
 *
 * @param attention       attention.self
 * @param attentionOutput attention.output: dense [hidden -> hidden], LayerNorm
 * @param intermediate    intermediate.dense [hidden -> intermediate]
 * @param activation      hidden_act, after intermediate.dense
 * @param output          output: dense [intermediate -> hidden], LayerNorm
 * @param preLayerNorm    config.json's pre_layer_norm
 * @param hidden          hidden_size
 */
record BertLayer(BertSelfAttention attention, DenseAndNorm attentionOutput, PackedMatrix intermediate, Activation activation,
                 DenseAndNorm output, boolean preLayerNorm, int hidden) {
    /**
     * A projection and a LayerNorm: the checkpoint's {@code attention.output} and {@code output}
     * (transformers' BertSelfOutput and BertOutput).
     *
     * @param dense     dense [in -> hidden]
     * @param layerNorm LayerNorm [hidden]
     */
    record DenseAndNorm(PackedMatrix dense, LayerNorm layerNorm) {
        static DenseAndNorm load(Scope scope, int in, BertConfig c) {
            return new DenseAndNorm(scope.child("dense").linear(in, c.hiddenSize()), LayerNorm.load(scope.child("LayerNorm"), c.hiddenSize(), c.layerNormEps()));
        }

        long bytes() {
            return dense.bytes() + layerNorm.bytes();
        }
    }

    static BertLayer load(Scope scope, BertConfig c, RelativePositionBias bias) {
        return new BertLayer(BertSelfAttention.load(scope.child("attention.self"), c, bias),
                DenseAndNorm.load(scope.child("attention.output"), c.hiddenSize(), c),
                scope.child("intermediate.dense").linear(c.hiddenSize(), c.intermediateSize()), Activation.of(c.hiddenAct()),
                DenseAndNorm.load(scope.child("output"), c.intermediateSize(), c), c.preLayerNorm(), c.hiddenSize());
    }

    /** Runs the layer over x ([layout.rows(), hidden]) in place; attention probabilities go to {@code probabilities} when not null. */
    void forward(float[] x, RowLayout layout, Workspace ws, float[] probabilities) {
        if (preLayerNorm) {
            forwardPreLn(x, layout, ws, probabilities);
        } else {
            forwardPostLn(x, layout, ws, probabilities);
        }
    }

    /** BERT: x = LN(x + attention(x)); x = LN(x + W2·act(W1·x)), with attention.output's and output's LayerNorms. */
    private void forwardPostLn(float[] x, RowLayout layout, Workspace ws, float[] probabilities) {
        int rows = layout.rows();
        attention.forward(x, layout, ws, probabilities);        // context of every head -> ws.ctx
        attentionOutput.dense().apply(ws.ctx, rows, ws.t);
        Kernels.addInPlace(ws.t, 0, x, rows * hidden);      // the residual
        attentionOutput.layerNorm().apply(ws.t, rows, x);
        feedForward(x, rows, ws, ws.t);
        Kernels.addInPlace(ws.t, 0, x, rows * hidden);
        output.layerNorm().apply(ws.t, rows, x);
    }

    /**
     * Pre-LN: x = x + attention(LN1(x)); x = x + W2·act(W1·LN2(x)). The checkpoint keeps BERT's names, so
     * LN1 is attention.output.LayerNorm and LN2 is output.LayerNorm, each now in front of its sub-layer.
     */
    private void forwardPreLn(float[] x, RowLayout layout, Workspace ws, float[] probabilities) {
        int rows = layout.rows();
        attentionOutput.layerNorm().apply(x, rows, ws.t);
        attention.forward(ws.t, layout, ws, probabilities);
        attentionOutput.dense().apply(ws.ctx, rows, ws.t);
        Kernels.addInPlace(x, 0, ws.t, rows * hidden);
        output.layerNorm().apply(x, rows, ws.t);
        feedForward(ws.t, rows, ws, ws.ctx);
        Kernels.addInPlace(x, 0, ws.ctx, rows * hidden);
    }

    /**
     * The layer at the selected rows only, then {@code after} (a pre-LN encoder's final LayerNorm) when not null: those
     * rows of x get the floats {@link #forward} gives them (each sum and norm works row by row, and attention's keys and
     * values come from every row); the other rows of x are left as they were. For the last layer of a pass whose reader
     * reads a few rows ({@link RowSelection}).
     */
    void forwardAt(float[] x, RowLayout layout, RowSelection selection, Workspace ws, LayerNorm after) {
        int n = selection.size();
        float[] result;
        if (preLayerNorm) {
            attentionOutput.layerNorm().apply(x, layout.rows(), ws.t);   // LN1 of every row: the keys and values need them
            selection.gather(ws.t, hidden, ws.ctx);
            attention.forwardAt(ws.t, ws.ctx, layout, selection, ws);
            attentionOutput.dense().apply(ws.ctx, n, ws.t);
            selection.gather(x, hidden, ws.q);
            Kernels.addInPlace(ws.q, 0, ws.t, n * hidden);
            output.layerNorm().apply(ws.q, n, ws.t);
            feedForward(ws.t, n, ws, ws.ctx);
            Kernels.addInPlace(ws.q, 0, ws.ctx, n * hidden);
            result = ws.q;
        } else {
            selection.gather(x, hidden, ws.t);
            attention.forwardAt(x, ws.t, layout, selection, ws);
            attentionOutput.dense().apply(ws.ctx, n, ws.q);
            Kernels.addInPlace(ws.q, 0, ws.t, n * hidden);
            attentionOutput.layerNorm().apply(ws.q, n, ws.t);
            feedForward(ws.t, n, ws, ws.q);
            Kernels.addInPlace(ws.q, 0, ws.t, n * hidden);
            output.layerNorm().apply(ws.q, n, ws.t);
            result = ws.t;
        }
        if (after != null) {
            after.apply(result, n, result);
        }
        selection.scatter(result, hidden, x);
    }

    /**
     * W2·act(W1·in + b1) + b2 for {@code rows} rows of {@code in} into {@code out}, {@link Workspace#FEED_FORWARD_ROWS}
     * rows at a time, so the [rows, intermediate] inside is never whole (50 MB for bert-base at 4,096 positions).
     * Each row's arithmetic is the same whatever rows go with it.
     */
    private void feedForward(float[] in, int rows, Workspace ws, float[] out) {
        feedForward(intermediate, activation, output.dense(), in, rows, ws, out);
    }

    /** {@link #feedForward(float[], int, Workspace, float[])} with the given matrices: DeBERTa's layers have BERT's block. */
    static void feedForward(PackedMatrix up, Activation activation, PackedMatrix down, float[] in, int rows, Workspace ws, float[] out) {
        for (int r0 = 0; r0 < rows; r0 += Workspace.FEED_FORWARD_ROWS) {
            int n = Math.min(Workspace.FEED_FORWARD_ROWS, rows - r0);
            MatMul.linear(in, r0, n, up, ws.inner, 0);
            Kernels.activate(activation, ws.inner, n * up.out);
            MatMul.linear(ws.inner, 0, n, down, out, r0);
        }
    }

    long bytes() {
        return attention.bytes() + attentionOutput.bytes() + intermediate.bytes() + output.bytes();
    }
}
