package org.vectorbert.engine;

import java.util.Arrays;
import java.util.List;

/** One sequence's per-layer outputs of a padded pass, split by head: what the attention explorer shows. */
final class PerHead {
    private PerHead() {}

    /** Sequence b's probabilities; the batch is padded to its length, so its rows and keys are read as such. */
    static float[][][][] attentions(Encoder.Output out, int b, int heads) {
        int length = out.batch().length();
        int n = out.batch().lengths()[b];
        float[][][][] result = new float[out.attentions().size()][heads][n][n];
        for (int l = 0; l < result.length; l++) {
            float[] p = out.attentions().get(l);
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < n; i++) {
                    System.arraycopy(p, ((b * heads + h) * length + i) * length, result[l][h][i], 0, n);
                }
            }
        }
        return result;
    }

    /** Sequence b's rows of per-layer [size, length, hidden] arrays, split into heads: [layer][head][token][head size]. */
    static float[][][][] split(List<float[]> layers, Batch batch, int b, int heads, int d) {
        int length = batch.length();
        int n = batch.lengths()[b];
        int hidden = heads * d;
        float[][][][] result = new float[layers.size()][heads][n][];
        for (int l = 0; l < result.length; l++) {
            float[] rows = layers.get(l);
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < n; i++) {
                    int from = (b * length + i) * hidden + h * d;
                    result[l][h][i] = Arrays.copyOfRange(rows, from, from + d);
                }
            }
        }
        return result;
    }
}
