package org.vectorbert.engine;

import static org.vectorbert.engine.PackedMatrix.PANEL;

/**
 * The encoder's one matrix product, {@code out = x · Wᵀ + b}, with W and b packed in panels
 * ({@link PackedMatrix}). Every dense layer goes through it, the MLM decoder too (tied to the word
 * embeddings, it shares their panels).
 *
 * <p>The work is cut into (block of rows, panel) items shared by the threads; each runs its block's rows
 * through the panel in tiles of PANEL columns
 * ({@link PanelTiles}), whose accumulators start from the bias and take broadcast FMAs: 4 rows by
 * 4 vectors with 512-bit vectors (5- or 6-row tiles taking what is left over from the fours), 6
 * rows by 2 vectors with narrower ones (one tile of what is left over).
 * Row blocks of about 256 KiB of input keep a block in L2 while every panel passes over it (larger
 * blocks, and blocks small enough for L1, were both slower). A short last panel goes through a scratch
 * tile, so the tiles need no masks.
 */
final class MatMul {
    private MatMul() {}

    /** About how many bytes of input rows one work item reads (see the class comment for the measurement). */
    private static final int BLOCK_BYTES = 1 << 18;

    /** {@code out[r][o] = Σk x[r][k]·W[o][k] + b[o]} for {@code rows} rows of x ([rows, W.in]); out is [rows, W.out]. */
    static void linear(float[] x, int rows, PackedMatrix w, float[] out) {
        linear(x, 0, rows, w, out, 0);
    }

    /** {@link #linear(float[], int, PackedMatrix, float[])} for rows [xRow, xRow + rows) of x, into out from row {@code outRow}. */
    static void linear(float[] x, int xRow, int rows, PackedMatrix w, float[] out, int outRow) {
        int panels = w.panelCount();
        int step = PackedMatrix.VECTORS == 2 ? 6 : 12;
        int blocks = Math.max(1, (int) ((long) rows * w.in * Float.BYTES / BLOCK_BYTES));
        int blockRows = ((rows + blocks - 1) / blocks + step - 1) / step * step;
        int blockCount = (rows + blockRows - 1) / blockRows;
        boolean plain = PlainKernels.active();
        if (!plain) {
            KernelCompilation.ensure();     // the tiles must never run before C1 is told to leave them alone
        }
        int shift = (outRow - xRow) * w.out;     // out's offset of x's row r is r * w.out + shift
        Parallel.forRange(blockCount * panels, 1, (from, to) -> {
            for (int item = from; item < to; item++) {
                int p = item % panels;
                int r0 = xRow + item / panels * blockRows;
                int n = Math.min(blockRows, xRow + rows - r0);
                int col = p * PANEL;
                if (w.fullPanel(p)) {
                    if (plain) {
                        PlainMatMul.panel(x, r0, n, w, p, out, col + shift, w.out);
                    } else {
                        panel(x, r0, n, w, p, out, col + shift, w.out);
                    }
                } else {
                    // A short last panel goes through a scratch tile, so the tiles need no masks.
                    float[] tile = new float[n * PANEL];
                    if (plain) {
                        PlainMatMul.panel(x, r0, n, w, p, tile, -r0 * PANEL, PANEL);
                    } else {
                        panel(x, r0, n, w, p, tile, -r0 * PANEL, PANEL);
                    }
                    for (int r = 0; r < n; r++) {
                        System.arraycopy(tile, r * PANEL, out, (r0 + r) * w.out + shift + col, w.out - col);
                    }
                }
            }
        });
    }

    /** All rows of x through panel p, into out from {@code outOff} with rows {@code stride} apart. */
    private static void panel(float[] x, int r0, int count, PackedMatrix w, int p, float[] out, int outOff, int stride) {
        int in = w.in;
        int rows = r0 + count;
        int r = r0;
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
        // alone reads the whole panel again.
        int rest = count % 4;
        int fives = rest == 1 && count > 4 || rest == 3 && count > 8 ? 1 : 0;
        int sixes = rest >= 2 && count > 4 ? 1 : 0;
        int fours = (count - 5 * fives - 6 * sixes) / 4;
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
