package org.vectorbert.engine;

import java.util.List;

/**
 * One sequence's token vectors to one vector, as sentence-transformers' Pooling module does it: the
 * modes concatenated in the order given, each over the sequence's real tokens from {@code first}
 * (a prompt left out of the pooling starts them later; [CLS] pooling always takes token 0).
 */
final class Pool {
    private Pool() {}

    /**
     * @param x      the batch's last hidden state, [size, length, hidden]
     * @param start  where the sequence's first token starts in x
     * @param first  the first token counted (0, or past the prompt)
     * @param n      the sequence's real length
     * @param pooler the pooler's output for this sequence (offset {@code poolerOffset}), or null when not asked
     */
    static float[] pool(List<Pooling> modes, float[] x, int start, int first, int n, int hidden, float[] pooler, int poolerOffset) {
        float[] out = new float[modes.size() * hidden];
        int count = Math.max(n - first, 1);
        for (int m = 0; m < modes.size(); m++) {
            int o = m * hidden;
            switch (modes.get(m)) {
                case CLS -> System.arraycopy(x, start, out, o, hidden);
                case LAST_TOKEN -> System.arraycopy(x, start + (n - 1) * hidden, out, o, hidden);
                case POOLER -> System.arraycopy(pooler, poolerOffset, out, o, hidden);
                case MAX -> {
                    java.util.Arrays.fill(out, o, o + hidden, Float.NEGATIVE_INFINITY);
                    for (int t = first; t < n; t++) {
                        int row = start + t * hidden;
                        for (int i = 0; i < hidden; i++) {
                            out[o + i] = Math.max(out[o + i], x[row + i]);
                        }
                    }
                }
                case MEAN, MEAN_SQRT_LEN -> {
                    for (int t = first; t < n; t++) {
                        int row = start + t * hidden;
                        for (int i = 0; i < hidden; i++) {
                            out[o + i] += x[row + i];
                        }
                    }
                    float divisor = modes.get(m) == Pooling.MEAN ? count : (float) Math.sqrt(count);
                    for (int i = 0; i < hidden; i++) {
                        out[o + i] /= divisor;
                    }
                }
            }
        }
        return out;
    }

    /** v normalised to mean 0 and variance 1 (eps 1e-5, no weight or bias), in place: F.layer_norm over the whole vector. */
    static float[] layerNorm(float[] v) {
        double mean = 0;
        for (float x : v) {
            mean += x;
        }
        mean /= v.length;
        double var = 0;
        for (float x : v) {
            var += (x - mean) * (x - mean);
        }
        double scale = 1 / Math.sqrt(var / v.length + 1e-5);
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) ((v[i] - mean) * scale);
        }
        return v;
    }

    static float[] l2Normalize(float[] v) {
        double norm = 0;
        for (float x : v) {
            norm += (double) x * x;
        }
        norm = Math.sqrt(norm);
        if (norm > 0) {
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (v[i] / norm);
            }
        }
        return v;
    }
}
