package org.vectorbert.engine;

/** The attention kernel's plain twin ({@link AttentionKernel#head}), for the plain first pass ({@link PlainKernels}). */
final class PlainAttention {
    private PlainAttention() {}

    /** {@link AttentionKernel#head}: scores as FMA chains over the head's columns, scaled, masked, biased, softmax, then the values. */
    static void head(float[] q, int qRow0, int queries, float[] k, float[] v, int hidden, int row0, int seq, int col,
                     int headSize, float[] mask, int maskOff, float[] bias, int[] biasRows, float[] scores, int scoresOff,
                     float[] ctx, float[] lanes) {
        float scale = (float) (1.0 / Math.sqrt(headSize));
        for (int i = 0; i < queries; i++) {
            int qi = (qRow0 + i) * hidden + col;
            int si = scoresOff + i * seq;
            for (int j = 0; j < seq; j++) {
                int kj = (row0 + j) * hidden + col;
                float acc = 0f;
                for (int d = 0; d < headSize; d++) {
                    acc = Math.fma(k[kj + d], q[qi + d], acc);
                }
                scores[si + j] = acc * scale + mask[maskOff + j];
                if (bias != null) {
                    scores[si + j] += bias[biasRows[i] + j];
                }
            }
            PlainRows.softmax(scores, si, seq, lanes);
        }
        for (int i = 0; i < queries; i++) {
            int si = scoresOff + i * seq;
            int out = (qRow0 + i) * hidden + col;
            for (int c = 0; c < headSize; c++) {
                float acc = 0f;
                for (int j = 0; j < seq; j++) {
                    acc = Math.fma(v[(row0 + j) * hidden + col + c], scores[si + j], acc);
                }
                ctx[out + c] = acc;
            }
        }
    }
}
