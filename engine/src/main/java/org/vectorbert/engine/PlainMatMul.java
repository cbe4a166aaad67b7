package org.vectorbert.engine;

import static org.vectorbert.engine.Lanes.L;
import static org.vectorbert.engine.PackedMatrix.PANEL;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The matrix product's plain twin ({@link PanelTiles}): the same FMA chains from the bias, for the plain first pass ({@link PlainKernels}). */
final class PlainMatMul {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Per thread, a panel's weights copied out of the segment: plain loops read arrays far faster than segments before C2. */
    private static final ThreadLocal<float[]> PANEL_COPY = ThreadLocal.withInitial(() -> new float[0]);
    private static final ThreadLocal<int[]> PAIRS_COPY = ThreadLocal.withInitial(() -> new int[0]);

    private PlainMatMul() {}

    /** {@link MatMul}'s panel: {@code count} rows of x (from row r0) through panel p of w, plus its bias, into out. */
    static void panel(float[] x, int r0, int count, PackedMatrix w, int p, float[] out, int outOff, int stride) {
        int in = w.in;
        float[] panel = PANEL_COPY.get();
        if (panel.length < PANEL * in) {
            panel = new float[PANEL * in];
            PANEL_COPY.set(panel);
        }
        if (w.bf16) {
            widenBf16(w, p, panel);
        } else {
            MemorySegment.copy(w.weights, PackedMatrix.F32, (long) p * PANEL * in * Float.BYTES, panel, 0, PANEL * in);
        }
        int end = r0 + count;
        int r = r0;
        for (; r + 3 <= end; r += 3) {
            for (int c = 0; c < PANEL; c += 4) {
                rows3x4(x, r * in, in, panel, c, w.bias, p * PANEL + c, out, outOff + r * stride + c, stride);
            }
        }
        for (; r < end; r++) {
            if (PANEL % 16 == 0) {
                for (int c = 0; c < PANEL; c += 16) {
                    row16(x, r * in, in, panel, c, w.bias, p * PANEL + c, out, outOff + r * stride + c);
                }
            } else {
                for (int c = 0; c < PANEL; c += 8) {
                    row8(x, r * in, in, panel, c, w.bias, p * PANEL + c, out, outOff + r * stride + c);
                }
            }
        }
    }

    private static void store8(float[] out, int o, float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7) {
        out[o] = a0;
        out[o + 1] = a1;
        out[o + 2] = a2;
        out[o + 3] = a3;
        out[o + 4] = a4;
        out[o + 5] = a5;
        out[o + 6] = a6;
        out[o + 7] = a7;
    }

    /**
     * Sixteen columns of one row: sixteen FMA chains over k, each started from its bias, as a tile's lanes run.
     * Locals, not an array, so the chains stay in registers and overlap; sixteen beat eight, and eight of two rows,
     * in a one-shot fill-mask's first pass.
     */
    static void row16(float[] x, int x0, int in, float[] panel, int c, float[] bias, int b, float[] out, int o) {
        float a0 = bias[b], a1 = bias[b + 1], a2 = bias[b + 2], a3 = bias[b + 3];
        float a4 = bias[b + 4], a5 = bias[b + 5], a6 = bias[b + 6], a7 = bias[b + 7];
        float a8 = bias[b + 8], a9 = bias[b + 9], a10 = bias[b + 10], a11 = bias[b + 11];
        float a12 = bias[b + 12], a13 = bias[b + 13], a14 = bias[b + 14], a15 = bias[b + 15];
        for (int k = 0, w = c; k < in; k++, w += PANEL) {
            float u = x[x0 + k];
            a0 = Math.fma(panel[w], u, a0);
            a1 = Math.fma(panel[w + 1], u, a1);
            a2 = Math.fma(panel[w + 2], u, a2);
            a3 = Math.fma(panel[w + 3], u, a3);
            a4 = Math.fma(panel[w + 4], u, a4);
            a5 = Math.fma(panel[w + 5], u, a5);
            a6 = Math.fma(panel[w + 6], u, a6);
            a7 = Math.fma(panel[w + 7], u, a7);
            a8 = Math.fma(panel[w + 8], u, a8);
            a9 = Math.fma(panel[w + 9], u, a9);
            a10 = Math.fma(panel[w + 10], u, a10);
            a11 = Math.fma(panel[w + 11], u, a11);
            a12 = Math.fma(panel[w + 12], u, a12);
            a13 = Math.fma(panel[w + 13], u, a13);
            a14 = Math.fma(panel[w + 14], u, a14);
            a15 = Math.fma(panel[w + 15], u, a15);
        }
        store8(out, o, a0, a1, a2, a3, a4, a5, a6, a7);
        store8(out, o + 8, a8, a9, a10, a11, a12, a13, a14, a15);
    }

    /**
     * Four columns of three rows (x from x0, x0 + in and x0 + 2·in; out from o, o + stride and o + 2·stride): twelve FMA
     * chains over k, each started from its bias, each weight loaded once for three rows. Rows go three at a time through
     * this, the rest one at a time through {@link #row16}. C1 spends four instructions on each array load, which this
     * spreads over three FMAs, and its twelve chains, a weight and three inputs fit AVX2's sixteen registers, where
     * row16 spills two chains: the faster of the two under C1.
     */
    static void rows3x4(float[] x, int x0, int in, float[] panel, int c, float[] bias, int b, float[] out, int o, int stride) {
        float a0 = bias[b], a1 = bias[b + 1], a2 = bias[b + 2], a3 = bias[b + 3];
        float b0 = a0, b1 = a1, b2 = a2, b3 = a3;
        float c0 = a0, c1 = a1, c2 = a2, c3 = a3;
        int x1 = x0 + in;
        int x2 = x1 + in;
        for (int k = 0, w = c; k < in; k++, w += PANEL) {
            float u = x[x0 + k];
            float v = x[x1 + k];
            float t = x[x2 + k];
            float q = panel[w];
            a0 = Math.fma(q, u, a0);
            b0 = Math.fma(q, v, b0);
            c0 = Math.fma(q, t, c0);
            q = panel[w + 1];
            a1 = Math.fma(q, u, a1);
            b1 = Math.fma(q, v, b1);
            c1 = Math.fma(q, t, c1);
            q = panel[w + 2];
            a2 = Math.fma(q, u, a2);
            b2 = Math.fma(q, v, b2);
            c2 = Math.fma(q, t, c2);
            q = panel[w + 3];
            a3 = Math.fma(q, u, a3);
            b3 = Math.fma(q, v, b3);
            c3 = Math.fma(q, t, c3);
        }
        store4(out, o, a0, a1, a2, a3);
        store4(out, o + stride, b0, b1, b2, b3);
        store4(out, o + 2 * stride, c0, c1, c2, c3);
    }

    private static void store4(float[] out, int o, float a0, float a1, float a2, float a3) {
        out[o] = a0;
        out[o + 1] = a1;
        out[o + 2] = a2;
        out[o + 3] = a3;
    }

    /** {@link #row16} for eight columns: the panel of 128-bit vectors is eight wide. */
    static void row8(float[] x, int x0, int in, float[] panel, int c, float[] bias, int b, float[] out, int o) {
        float a0 = bias[b], a1 = bias[b + 1], a2 = bias[b + 2], a3 = bias[b + 3];
        float a4 = bias[b + 4], a5 = bias[b + 5], a6 = bias[b + 6], a7 = bias[b + 7];
        for (int k = 0, w = c; k < in; k++, w += PANEL) {
            float u = x[x0 + k];
            a0 = Math.fma(panel[w], u, a0);
            a1 = Math.fma(panel[w + 1], u, a1);
            a2 = Math.fma(panel[w + 2], u, a2);
            a3 = Math.fma(panel[w + 3], u, a3);
            a4 = Math.fma(panel[w + 4], u, a4);
            a5 = Math.fma(panel[w + 5], u, a5);
            a6 = Math.fma(panel[w + 6], u, a6);
            a7 = Math.fma(panel[w + 7], u, a7);
        }
        store8(out, o, a0, a1, a2, a3, a4, a5, a6, a7);
    }

    /** Panel p of a bfloat16 matrix as floats ([in][PANEL]), widened as the tiles widen them (see {@link PackedMatrix}). */
    private static void widenBf16(PackedMatrix w, int p, float[] panel) {
        int in = w.in;
        int ints = PANEL / 2;
        int[] pairs = PAIRS_COPY.get();
        if (pairs.length < ints * in) {
            pairs = new int[ints * in];
            PAIRS_COPY.set(pairs);
        }
        MemorySegment.copy(w.weights, I32, (long) p * PANEL * in * 2, pairs, 0, ints * in);
        for (int k = 0; k < in; k++) {
            for (int i = 0; i < ints; i++) {
                int bits = pairs[k * ints + i];
                int col = i / L * 2 * L + i % L;
                panel[k * PANEL + col] = Float.intBitsToFloat(bits << 16);
                panel[k * PANEL + col + L] = Float.intBitsToFloat(bits & VectorMath.HIGH_HALF);
            }
        }
    }
}
