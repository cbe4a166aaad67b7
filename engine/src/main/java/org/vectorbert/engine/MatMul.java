package org.vectorbert.engine;

import static org.vectorbert.engine.PackedMatrix.PANEL;

/**
 * The encoder's one matrix product, {@code out = x · Wᵀ + b}, with W and b packed in panels
 * ({@link PackedMatrix}). Every dense layer goes through it, the MLM decoder too (tied to the word
 * embeddings, it shares their panels).
 *
 * <p>Panels are split across the threads; each thread runs a panel's rows in tiles of PANEL columns
 * ({@link PanelTiles}), whose accumulators start from the bias and take broadcast FMAs: 4 rows by
 * 4 vectors with 512-bit vectors (5- or 6-row tiles taking what is left over from the fours), 6
 * rows by 2 vectors with narrower ones (one tile of what is left over).
 * Blocking the inputs so a panel's block stays in L1 measured slower: L2 keeps up. A short last
 * panel goes through a scratch tile, so the tiles need no masks.
 */
final class MatMul {
    private MatMul() {}

    /** {@code out[r][o] = Σk x[r][k]·W[o][k] + b[o]} for {@code rows} rows of x ([rows, W.in]); out is [rows, W.out]. */
    static void linear(float[] x, int rows, PackedMatrix w, float[] out) {
        Parallel.forRange(w.panelCount(), 1, (from, to) -> {
            for (int p = from; p < to; p++) {
                if (w.fullPanel(p)) {
                    panel(x, rows, w, p, out, p * PANEL, w.out);
                } else {
                    int col = p * PANEL;
                    float[] tile = new float[rows * PANEL];
                    panel(x, rows, w, p, tile, 0, PANEL);
                    for (int r = 0; r < rows; r++) {
                        System.arraycopy(tile, r * PANEL, out, r * w.out + col, w.out - col);
                    }
                }
            }
        });
    }

    /** All rows of x through panel p, into out from {@code outOff} with rows {@code stride} apart. */
    private static void panel(float[] x, int rows, PackedMatrix w, int p, float[] out, int outOff, int stride) {
        int in = w.in;
        int r = 0;
        if (PackedMatrix.VECTORS == 2) {
            // Rows in tiles of six (12 accumulators: enough independent FMA chains to hide their latency
            // with 16 registers), and one tile of what is left over.
            for (; r + 6 <= rows; r += 6) {
                PanelTiles.tile(6, x, r * in, in, w, p, out, outOff + r * stride, stride);
            }
            if (r < rows) {
                PanelTiles.tile(rows - r, x, r * in, in, w, p, out, outOff + r * stride, stride);
            }
            return;
        }
        // Rows in tiles of four, and what is left over folded into tiles of five and six: a row through a panel
        // alone reads the whole panel again (a ninth token cost a 1 x 8 pass 20% more).
        int rest = rows % 4;
        int fives = rest == 1 && rows > 4 || rest == 3 && rows > 8 ? 1 : 0;
        int sixes = rest >= 2 && rows > 4 ? 1 : 0;
        int fours = (rows - 5 * fives - 6 * sixes) / 4;
        for (int t = 0; t < fours; t++, r += 4) {
            PanelTiles.tile(4, x, r * in, in, w, p, out, outOff + r * stride, stride);
        }
        if (fives > 0) {
            PanelTiles.tile(5, x, r * in, in, w, p, out, outOff + r * stride, stride);
            r += 5;
        }
        if (sixes > 0) {
            PanelTiles.tile(6, x, r * in, in, w, p, out, outOff + r * stride, stride);
            r += 6;
        }
        for (; r < rows; r++) {
            PanelTiles.tile(1, x, r * in, in, w, p, out, outOff + r * stride, stride);
        }
    }
}
