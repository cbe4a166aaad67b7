package org.vectorbert.engine;

import java.util.Arrays;

/**
 * The convolution the larger DeBERTa-v2 checkpoints run after the first layer ({@code encoder.conv}, transformers'
 * {@code ConvLayer}): x = LN(x + act(conv1d(embeddings))), the convolution over each sequence's own positions with
 * zeros past its ends. Each tap is a matrix [hidden -> hidden] (zeros between groups), so the convolution is k products
 * of the matrix kernel, each tap's rows added at its shift.
 *
 * @param taps       per tap s, W[:, :, s]
 * @param bias       conv.bias [hidden]
 * @param activation conv_act: "gelu", "relu" or "tanh"
 * @param norm       the LayerNorm
 */
record DebertaConv(PackedMatrix[] taps, float[] bias, String activation, LayerNorm norm) {
    /** Loads {@code encoder.conv}: conv.weight [hidden, hidden / groups, kernel], conv.bias, LayerNorm. */
    static DebertaConv load(Scope scope, int hidden, int kernel, int groups, String activation, double eps) {
        int perGroup = hidden / groups;
        float[] w = scope.tensor("conv.weight", hidden, perGroup, kernel).toFloatArray();
        PackedMatrix[] taps = new PackedMatrix[kernel];
        for (int s = 0; s < kernel; s++) {
            float[] tap = new float[hidden * hidden];
            for (int o = 0; o < hidden; o++) {
                int first = o / perGroup * perGroup;
                for (int i = 0; i < perGroup; i++) {
                    tap[o * hidden + first + i] = w[(o * perGroup + i) * kernel + s];
                }
            }
            taps[s] = PackedMatrix.pack(tap, hidden, hidden, null);
        }
        return new DebertaConv(taps, scope.vector("conv.bias", hidden), activation,
                LayerNorm.load(scope.child("LayerNorm"), hidden, eps));
    }

    /**
     * x = LN(x + act(conv(embedded))) over every sequence of the layout, each seeing its real positions only (zeros past
     * them, as the masked embeddings are in transformers); ws.t and ws.ctx are scratch.
     */
    void apply(float[] embedded, float[] x, Batch batch, RowLayout layout, Workspace ws) {
        int rows = layout.rows();
        int hidden = bias.length;
        int pad = (taps.length - 1) / 2;
        float[] sum = ws.t;
        for (int r = 0; r < rows; r++) {
            System.arraycopy(bias, 0, sum, r * hidden, hidden);
        }
        for (int s = 0; s < taps.length; s++) {
            taps[s].apply(embedded, rows, ws.ctx);
            for (int b = 0; b < layout.starts().length; b++) {
                int start = layout.starts()[b];
                int n = batch.lengths()[b];
                for (int t = Math.max(0, pad - s); t < Math.min(n, n + pad - s); t++) {
                    int to = (start + t) * hidden;
                    int from = (start + t + s - pad) * hidden;
                    for (int c = 0; c < hidden; c++) {
                        sum[to + c] += ws.ctx[from + c];
                    }
                }
            }
        }
        switch (activation) {
            case "gelu" -> Kernels.activate(Activation.GELU, sum, rows * hidden);
            case "relu" -> Kernels.activate(Activation.RELU, sum, rows * hidden);
            default -> Kernels.tanh(sum, 0, rows * hidden);
        }
        Kernels.addInPlace(sum, 0, x, rows * hidden);
        norm.apply(sum, rows, x);
    }

    long bytes() {
        return Arrays.stream(taps).mapToLong(PackedMatrix::bytes).sum() + 4L * bias.length + norm.bytes();
    }
}
