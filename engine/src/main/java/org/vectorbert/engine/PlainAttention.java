package org.vectorbert.engine;

/** The attention kernel's plain twin ({@link AttentionKernel#head}), for the plain first pass ({@link PlainKernels}). */
final class PlainAttention {
    private PlainAttention() {}

    /**
     * {@link AttentionKernel#head}: per query row, scores as FMA chains over the head's columns, scaled, masked, biased,
     * windowed, the softmax's weights, then the weighted values scaled by 1/Σ; the row's weights in {@code row} from
     * {@code rowOff} (seq floats), and its probabilities in {@code scores} unless it is null.
     */
    static void head(float[] q, int qRow0, int queries, float[] k, float[] v, int hidden, int row0, int seq, int col,
                     int headSize, float[] mask, int maskOff, float[] bias, int[] biasRows, int[] positions, int window,
                     float[] scores, int scoresOff, float[] ctx, float[] row, int rowOff, float[] lanes) {
        float scale = (float) (1.0 / Math.sqrt(headSize));
        boolean windowed = window > 0 && window < seq - 1;
        for (int i = 0; i < queries; i++) {
            int qi = (qRow0 + i) * hidden + col;
            int p = positions == null ? i : positions[i];
            for (int j = 0; j < seq; j++) {
                int kj = (row0 + j) * hidden + col;
                float acc = 0f;
                for (int d = 0; d < headSize; d++) {
                    acc = Math.fma(k[kj + d], q[qi + d], acc);
                }
                float s = acc * scale + mask[maskOff + j];
                if (bias != null) {
                    s += bias[biasRows[i] + j];
                }
                boolean unseen = windowed && Math.abs(j - p) > window || window == AttentionKernel.CAUSAL && j > p;
                row[rowOff + j] = unseen ? Float.NEGATIVE_INFINITY : s;
            }
            float inv = PlainRows.softmaxWeights(row, rowOff, seq, lanes);
            if (scores != null) {
                for (int j = 0; j < seq; j++) {
                    scores[scoresOff + i * seq + j] = row[rowOff + j] * inv;
                }
            }
            int out = (qRow0 + i) * hidden + col;
            for (int c = 0; c < headSize; c++) {
                float acc = 0f;
                for (int j = 0; j < seq; j++) {
                    acc = Math.fma(v[(row0 + j) * hidden + col + c], row[rowOff + j], acc);
                }
                ctx[out + c] = acc * inv;
            }
        }
    }
}
