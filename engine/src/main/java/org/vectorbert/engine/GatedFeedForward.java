package org.vectorbert.engine;

/**
 * A gated feed-forward block: output(act(activated·x) ⊙ (linear·x)). ModernBERT's GeGLU (the halves of mlp.Wi), GTE's
 * gated GELU (the halves of up_gate_proj, the gate second) and NomicBERT's SwiGLU (fc12 through SiLU, fc11 linear).
 *
 * @param activated  the projection the activation is applied to [hidden -> inner]
 * @param linear     the projection it multiplies [hidden -> inner]
 * @param output     the projection back [inner -> hidden]
 * @param activation the activation
 */
record GatedFeedForward(PackedMatrix activated, PackedMatrix linear, PackedMatrix output, Activation activation) {
    /** The width of the inside: the workspace's inner rows must hold twice this. */
    int inner() {
        return activated.out;
    }

    /**
     * The block for {@code rows} rows of {@code in} into {@code out}, a slice of rows at a time: the activated projection in
     * the first half of ws.inner, the linear one in the second.
     */
    void apply(float[] in, int rows, Workspace ws, float[] out) {
        int width = activated.out;
        int slice = ws.inner.length / (2 * width);
        for (int r0 = 0; r0 < rows; r0 += slice) {
            int n = Math.min(slice, rows - r0);
            MatMul.linear(in, r0, n, activated, ws.inner, 0);
            MatMul.linear(in, r0, n, linear, ws.inner, slice);
            Kernels.activate(activation, ws.inner, n * width);
            Kernels.multiplyInPlace(ws.inner, ws.inner, slice * width, n * width);
            MatMul.linear(ws.inner, 0, n, output, out, r0);
        }
    }

    long bytes() {
        return activated.bytes() + linear.bytes() + output.bytes();
    }
}
