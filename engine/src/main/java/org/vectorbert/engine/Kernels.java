package org.vectorbert.engine;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD kernels of the encoder, on {@code FloatVector.SPECIES_PREFERRED}. Activations and
 * weights are row-major {@code float[]}, weights laid out as Hugging Face stores them
 * ({@code [out, in]}). (Heap arrays, not the mapped segments: C2 compiles vector loads from arrays
 * to about twice the throughput here.) Every kernel has a scalar twin in {@code ScalarKernels}
 * (tests) that it is checked against.
 */
final class Kernels {
    static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    static final int L = S.length();

    /*
     * Lane sums in one fixed order. reduceLanes(ADD) may add lanes in any order, and does so
     * differently interpreted and compiled, so the same text gave different last bits before and
     * after the JIT warmed up. Folding halves with lane-wise adds is the same tree either way.
     */
    private static final VectorShuffle<Float> FOLD_32 = fold(32);
    private static final VectorShuffle<Float> FOLD_16 = fold(16);
    private static final VectorShuffle<Float> FOLD_8 = fold(8);
    private static final VectorShuffle<Float> FOLD_4 = fold(4);
    private static final VectorShuffle<Float> FOLD_2 = fold(2);
    private static final VectorShuffle<Float> FOLD_1 = fold(1);

    /** Lane i takes lane i + half (wrapping); only used when half < L. */
    private static VectorShuffle<Float> fold(int half) {
        return VectorShuffle.iota(S, half % L, 1, true);
    }

    /** Σ of v's lanes as a fixed pairwise tree: deterministic whether interpreted or compiled. */
    static float sum(FloatVector v) {
        if (L > 64) {
            throw new IllegalStateException("vectors of " + L + " floats are not supported");
        }
        if (L > 32) {
            v = v.add(v.rearrange(FOLD_32));
        }
        if (L > 16) {
            v = v.add(v.rearrange(FOLD_16));
        }
        if (L > 8) {
            v = v.add(v.rearrange(FOLD_8));
        }
        if (L > 4) {
            v = v.add(v.rearrange(FOLD_4));
        }
        if (L > 2) {
            v = v.add(v.rearrange(FOLD_2));
        }
        if (L > 1) {
            v = v.add(v.rearrange(FOLD_1));
        }
        return v.lane(0);
    }

    private Kernels() {}

    // ---- x · Wᵀ + b ----

    /**
     * {@code out[r][o] = Σk x[r][k]·W[o][k] + b[o]} for {@code rows} rows of {@code x} ([rows, in])
     * and {@code W} ([outDim, in]); {@code out} is [rows, outDim]. Output columns are split across
     * the pool; each thread computes 4x4 tiles of dot products so a weight row is reused from L1
     * for every input row.
     */
    static void linear(float[] x, int rows, int in, float[] w, float[] bias, int outDim, float[] out) {
        Parallel.forRange(outDim, 16, (from, to) -> linearColumns(x, rows, in, w, bias, outDim, out, from, to));
    }

    private static void linearColumns(float[] x, int rows, int in, float[] w, float[] bias, int outDim,
                                      float[] out, int from, int to) {
        int o = from;
        for (; o + 4 <= to; o += 4) {
            int r = 0;
            for (; r + 4 <= rows; r += 4) {
                tile4x4(x, r, in, w, o, bias, outDim, out);
            }
            for (; r < rows; r++) {
                tile1x4(x, r, in, w, o, bias, outDim, out);
            }
        }
        for (; o < to; o++) {
            float b = bias == null ? 0f : bias[o];
            for (int r = 0; r < rows; r++) {
                out[r * outDim + o] = dot(x, r * in, w, o * in, in) + b;
            }
        }
    }

    private static void tile4x4(float[] x, int r, int in, float[] w, int o, float[] bias, int outDim, float[] out) {
        int x0 = r * in;
        int x1 = x0 + in;
        int x2 = x1 + in;
        int x3 = x2 + in;
        int w0 = o * in;
        int w1 = w0 + in;
        int w2 = w1 + in;
        int w3 = w2 + in;
        FloatVector a00 = FloatVector.zero(S), a01 = a00, a02 = a00, a03 = a00;
        FloatVector a10 = a00, a11 = a00, a12 = a00, a13 = a00;
        FloatVector a20 = a00, a21 = a00, a22 = a00, a23 = a00;
        FloatVector a30 = a00, a31 = a00, a32 = a00, a33 = a00;
        int bound = S.loopBound(in);
        int k = 0;
        for (; k < bound; k += L) {
            FloatVector v0 = FloatVector.fromArray(S, w, w0 + k);
            FloatVector v1 = FloatVector.fromArray(S, w, w1 + k);
            FloatVector v2 = FloatVector.fromArray(S, w, w2 + k);
            FloatVector v3 = FloatVector.fromArray(S, w, w3 + k);
            FloatVector u = FloatVector.fromArray(S, x, x0 + k);
            a00 = u.fma(v0, a00);
            a01 = u.fma(v1, a01);
            a02 = u.fma(v2, a02);
            a03 = u.fma(v3, a03);
            u = FloatVector.fromArray(S, x, x1 + k);
            a10 = u.fma(v0, a10);
            a11 = u.fma(v1, a11);
            a12 = u.fma(v2, a12);
            a13 = u.fma(v3, a13);
            u = FloatVector.fromArray(S, x, x2 + k);
            a20 = u.fma(v0, a20);
            a21 = u.fma(v1, a21);
            a22 = u.fma(v2, a22);
            a23 = u.fma(v3, a23);
            u = FloatVector.fromArray(S, x, x3 + k);
            a30 = u.fma(v0, a30);
            a31 = u.fma(v1, a31);
            a32 = u.fma(v2, a32);
            a33 = u.fma(v3, a33);
        }
        float b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        if (bias != null) {
            b0 = bias[o];
            b1 = bias[o + 1];
            b2 = bias[o + 2];
            b3 = bias[o + 3];
        }
        int p = r * outDim + o;
        store4(out, p, a00, a01, a02, a03, b0, b1, b2, b3);
        store4(out, p + outDim, a10, a11, a12, a13, b0, b1, b2, b3);
        store4(out, p + 2 * outDim, a20, a21, a22, a23, b0, b1, b2, b3);
        store4(out, p + 3 * outDim, a30, a31, a32, a33, b0, b1, b2, b3);
        if (bound < in) {
            // Kept out of the loop above so this method stays small enough for the JIT's first tiers.
            for (int i = 0; i < 4; i++) {
                for (int j = 0; j < 4; j++) {
                    out[p + i * outDim + j] += tail(x, (r + i) * in, w, (o + j) * in, bound, in);
                }
            }
        }
    }

    /** Σ x[xOff + k]·W[wOff + k] for k in [from, to), a vector's worth or less. */
    private static float tail(float[] x, int xOff, float[] w, int wOff, int from, int to) {
        VectorMask<Float> m = S.indexInRange(from, to);
        // Lanes outside the mask load as zero, so the plain sum is the masked one.
        return sum(FloatVector.fromArray(S, x, xOff + from, m).mul(FloatVector.fromArray(S, w, wOff + from, m)));
    }

    private static void store4(float[] out, int p, FloatVector a0, FloatVector a1, FloatVector a2, FloatVector a3,
                               float b0, float b1, float b2, float b3) {
        out[p] = sum(a0) + b0;
        out[p + 1] = sum(a1) + b1;
        out[p + 2] = sum(a2) + b2;
        out[p + 3] = sum(a3) + b3;
    }

    private static void tile1x4(float[] x, int r, int in, float[] w, int o, float[] bias, int outDim, float[] out) {
        int x0 = r * in;
        int w0 = o * in;
        int w1 = w0 + in;
        int w2 = w1 + in;
        int w3 = w2 + in;
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
        int bound = S.loopBound(in);
        int k = 0;
        for (; k < bound; k += L) {
            FloatVector u = FloatVector.fromArray(S, x, x0 + k);
            a0 = u.fma(FloatVector.fromArray(S, w, w0 + k), a0);
            a1 = u.fma(FloatVector.fromArray(S, w, w1 + k), a1);
            a2 = u.fma(FloatVector.fromArray(S, w, w2 + k), a2);
            a3 = u.fma(FloatVector.fromArray(S, w, w3 + k), a3);
        }
        if (k < in) {
            VectorMask<Float> m = S.indexInRange(k, in);
            FloatVector u = FloatVector.fromArray(S, x, x0 + k, m);
            a0 = u.fma(FloatVector.fromArray(S, w, w0 + k, m), a0);
            a1 = u.fma(FloatVector.fromArray(S, w, w1 + k, m), a1);
            a2 = u.fma(FloatVector.fromArray(S, w, w2 + k, m), a2);
            a3 = u.fma(FloatVector.fromArray(S, w, w3 + k, m), a3);
        }
        float b0 = 0, b1 = 0, b2 = 0, b3 = 0;
        if (bias != null) {
            b0 = bias[o];
            b1 = bias[o + 1];
            b2 = bias[o + 2];
            b3 = bias[o + 3];
        }
        store4(out, r * outDim + o, a0, a1, a2, a3, b0, b1, b2, b3);
    }

    // ---- x · Wᵀ + b with W packed in panels ----

    /**
     * {@code out[r][o] = Σk x[r][k]·W[o][k] + b[o]}, W and b packed ({@link PackedMatrix}); out is
     * [rows, W.out]. Panels are split across the threads; each starts its output from the bias,
     * then adds the products in 64-column tiles of 4 rows (16 accumulators fed by broadcast FMAs), 5 or 6 for the rest.
     * Blocking the inputs so a panel's block stays in L1 measured slower: L2 keeps up. The tile kernels have no masks and no branches in
     * them: small enough that C2 keeps every vector in a register (a larger body with masked
     * stores ran five times slower once compiled). A short last panel goes through a scratch tile.
     */
    static void linear(float[] x, int rows, PackedMatrix w, float[] out) {
        Parallel.forRange(w.panelCount(), 1, (from, to) -> {
            for (int p = from; p < to; p++) {
                if (w.fullPanel(p)) {
                    panel(x, rows, w, p, out, p * PackedMatrix.PANEL, w.out);
                } else {
                    int col = p * PackedMatrix.PANEL;
                    float[] tile = new float[rows * PackedMatrix.PANEL];
                    panel(x, rows, w, p, tile, 0, PackedMatrix.PANEL);
                    for (int r = 0; r < rows; r++) {
                        System.arraycopy(tile, r * PackedMatrix.PANEL, out, r * w.out + col, w.out - col);
                    }
                }
            }
        });
    }

    /** All rows of x through panel p, into out from {@code outOff} with rows {@code stride} apart. */
    private static void panel(float[] x, int rows, PackedMatrix w, int p, float[] out, int outOff, int stride) {
        int in = w.in;
        int base = p * PackedMatrix.PANEL * in;
        for (int r = 0; r < rows; r++) {
            System.arraycopy(w.bias, p * PackedMatrix.PANEL, out, outOff + r * stride, PackedMatrix.PANEL);
        }
        // Rows in tiles of four, and what is left over folded into tiles of five and six: a row through a panel
        // alone reads the whole panel again (a ninth token cost a 1 x 8 pass 20% more).
        int rest = rows % 4;
        int fives = rest == 1 && rows > 4 || rest == 3 && rows > 8 ? 1 : 0;
        int sixes = rest >= 2 && rows > 4 ? 1 : 0;
        int fours = (rows - 5 * fives - 6 * sixes) / 4;
        int r = 0;
        if (w.pairs != null) {
            int pairBase = base / 2;
            for (int t = 0; t < fours; t++, r += 4) {
                panel4Bf16(x, r * in, in, w.pairs, pairBase, out, outOff + r * stride, stride);
            }
            if (fives > 0) {
                panel5Bf16(x, r * in, in, w.pairs, pairBase, out, outOff + r * stride, stride);
                r += 5;
            }
            if (sixes > 0) {
                panel6Bf16(x, r * in, in, w.pairs, pairBase, out, outOff + r * stride, stride);
                r += 6;
            }
            for (; r < rows; r++) {
                panel1Bf16(x, r * in, in, w.pairs, pairBase, out, outOff + r * stride);
            }
            return;
        }
        for (int t = 0; t < fours; t++, r += 4) {
            panel4(x, r * in, in, w.panels, base, out, outOff + r * stride, stride);
        }
        if (fives > 0) {
            panel5(x, r * in, in, w.panels, base, out, outOff + r * stride, stride);
            r += 5;
        }
        if (sixes > 0) {
            panel6(x, r * in, in, w.panels, base, out, outOff + r * stride, stride);
            r += 6;
        }
        for (; r < rows; r++) {
            panel1(x, r * in, in, w.panels, base, out, outOff + r * stride);
        }
    }

    /** Adds four rows of x (from x0, {@code in} apart) times panel {@code base} to a 4 x PANEL tile of out. */
    private static void panel4(float[] x, int x0, int in, float[] pw, int base, float[] out, int o0, int stride) {
        int x1 = x0 + in;
        int x2 = x1 + in;
        int x3 = x2 + in;
        int o1 = o0 + stride;
        int o2 = o1 + stride;
        int o3 = o2 + stride;
        FloatVector a00 = FloatVector.fromArray(S, out, o0);
        FloatVector a01 = FloatVector.fromArray(S, out, o0 + L);
        FloatVector a02 = FloatVector.fromArray(S, out, o0 + 2 * L);
        FloatVector a03 = FloatVector.fromArray(S, out, o0 + 3 * L);
        FloatVector a10 = FloatVector.fromArray(S, out, o1);
        FloatVector a11 = FloatVector.fromArray(S, out, o1 + L);
        FloatVector a12 = FloatVector.fromArray(S, out, o1 + 2 * L);
        FloatVector a13 = FloatVector.fromArray(S, out, o1 + 3 * L);
        FloatVector a20 = FloatVector.fromArray(S, out, o2);
        FloatVector a21 = FloatVector.fromArray(S, out, o2 + L);
        FloatVector a22 = FloatVector.fromArray(S, out, o2 + 2 * L);
        FloatVector a23 = FloatVector.fromArray(S, out, o2 + 3 * L);
        FloatVector a30 = FloatVector.fromArray(S, out, o3);
        FloatVector a31 = FloatVector.fromArray(S, out, o3 + L);
        FloatVector a32 = FloatVector.fromArray(S, out, o3 + 2 * L);
        FloatVector a33 = FloatVector.fromArray(S, out, o3 + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * PackedMatrix.PANEL;
            FloatVector w0 = FloatVector.fromArray(S, pw, wk);
            FloatVector w1 = FloatVector.fromArray(S, pw, wk + L);
            FloatVector w2 = FloatVector.fromArray(S, pw, wk + 2 * L);
            FloatVector w3 = FloatVector.fromArray(S, pw, wk + 3 * L);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a00 = w0.fma(u, a00);
            a01 = w1.fma(u, a01);
            a02 = w2.fma(u, a02);
            a03 = w3.fma(u, a03);
            u = FloatVector.broadcast(S, x[x1 + k]);
            a10 = w0.fma(u, a10);
            a11 = w1.fma(u, a11);
            a12 = w2.fma(u, a12);
            a13 = w3.fma(u, a13);
            u = FloatVector.broadcast(S, x[x2 + k]);
            a20 = w0.fma(u, a20);
            a21 = w1.fma(u, a21);
            a22 = w2.fma(u, a22);
            a23 = w3.fma(u, a23);
            u = FloatVector.broadcast(S, x[x3 + k]);
            a30 = w0.fma(u, a30);
            a31 = w1.fma(u, a31);
            a32 = w2.fma(u, a32);
            a33 = w3.fma(u, a33);
        }
        a00.intoArray(out, o0);
        a01.intoArray(out, o0 + L);
        a02.intoArray(out, o0 + 2 * L);
        a03.intoArray(out, o0 + 3 * L);
        a10.intoArray(out, o1);
        a11.intoArray(out, o1 + L);
        a12.intoArray(out, o1 + 2 * L);
        a13.intoArray(out, o1 + 3 * L);
        a20.intoArray(out, o2);
        a21.intoArray(out, o2 + L);
        a22.intoArray(out, o2 + 2 * L);
        a23.intoArray(out, o2 + 3 * L);
        a30.intoArray(out, o3);
        a31.intoArray(out, o3 + L);
        a32.intoArray(out, o3 + 2 * L);
        a33.intoArray(out, o3 + 3 * L);
    }

    /** {@link #panel4} for five rows, so the rows left over from fours ride along instead of a pass of their own. */
    private static void panel5(float[] x, int x0, int in, float[] pw, int base, float[] out, int o0, int stride) {
        int x1 = x0 + in, x2 = x1 + in, x3 = x2 + in, x4 = x3 + in;
        int o1 = o0 + stride, o2 = o1 + stride, o3 = o2 + stride, o4 = o3 + stride;
        FloatVector a00 = FloatVector.fromArray(S, out, o0);
        FloatVector a01 = FloatVector.fromArray(S, out, o0 + L);
        FloatVector a02 = FloatVector.fromArray(S, out, o0 + 2 * L);
        FloatVector a03 = FloatVector.fromArray(S, out, o0 + 3 * L);
        FloatVector a10 = FloatVector.fromArray(S, out, o1);
        FloatVector a11 = FloatVector.fromArray(S, out, o1 + L);
        FloatVector a12 = FloatVector.fromArray(S, out, o1 + 2 * L);
        FloatVector a13 = FloatVector.fromArray(S, out, o1 + 3 * L);
        FloatVector a20 = FloatVector.fromArray(S, out, o2);
        FloatVector a21 = FloatVector.fromArray(S, out, o2 + L);
        FloatVector a22 = FloatVector.fromArray(S, out, o2 + 2 * L);
        FloatVector a23 = FloatVector.fromArray(S, out, o2 + 3 * L);
        FloatVector a30 = FloatVector.fromArray(S, out, o3);
        FloatVector a31 = FloatVector.fromArray(S, out, o3 + L);
        FloatVector a32 = FloatVector.fromArray(S, out, o3 + 2 * L);
        FloatVector a33 = FloatVector.fromArray(S, out, o3 + 3 * L);
        FloatVector a40 = FloatVector.fromArray(S, out, o4);
        FloatVector a41 = FloatVector.fromArray(S, out, o4 + L);
        FloatVector a42 = FloatVector.fromArray(S, out, o4 + 2 * L);
        FloatVector a43 = FloatVector.fromArray(S, out, o4 + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * PackedMatrix.PANEL;
            FloatVector w0 = FloatVector.fromArray(S, pw, wk);
            FloatVector w1 = FloatVector.fromArray(S, pw, wk + L);
            FloatVector w2 = FloatVector.fromArray(S, pw, wk + 2 * L);
            FloatVector w3 = FloatVector.fromArray(S, pw, wk + 3 * L);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a00 = w0.fma(u, a00);
            a01 = w1.fma(u, a01);
            a02 = w2.fma(u, a02);
            a03 = w3.fma(u, a03);
            u = FloatVector.broadcast(S, x[x1 + k]);
            a10 = w0.fma(u, a10);
            a11 = w1.fma(u, a11);
            a12 = w2.fma(u, a12);
            a13 = w3.fma(u, a13);
            u = FloatVector.broadcast(S, x[x2 + k]);
            a20 = w0.fma(u, a20);
            a21 = w1.fma(u, a21);
            a22 = w2.fma(u, a22);
            a23 = w3.fma(u, a23);
            u = FloatVector.broadcast(S, x[x3 + k]);
            a30 = w0.fma(u, a30);
            a31 = w1.fma(u, a31);
            a32 = w2.fma(u, a32);
            a33 = w3.fma(u, a33);
            u = FloatVector.broadcast(S, x[x4 + k]);
            a40 = w0.fma(u, a40);
            a41 = w1.fma(u, a41);
            a42 = w2.fma(u, a42);
            a43 = w3.fma(u, a43);
        }
        a00.intoArray(out, o0);
        a01.intoArray(out, o0 + L);
        a02.intoArray(out, o0 + 2 * L);
        a03.intoArray(out, o0 + 3 * L);
        a10.intoArray(out, o1);
        a11.intoArray(out, o1 + L);
        a12.intoArray(out, o1 + 2 * L);
        a13.intoArray(out, o1 + 3 * L);
        a20.intoArray(out, o2);
        a21.intoArray(out, o2 + L);
        a22.intoArray(out, o2 + 2 * L);
        a23.intoArray(out, o2 + 3 * L);
        a30.intoArray(out, o3);
        a31.intoArray(out, o3 + L);
        a32.intoArray(out, o3 + 2 * L);
        a33.intoArray(out, o3 + 3 * L);
        a40.intoArray(out, o4);
        a41.intoArray(out, o4 + L);
        a42.intoArray(out, o4 + 2 * L);
        a43.intoArray(out, o4 + 3 * L);
    }

    /** {@link #panel4} for six rows, so the rows left over from fours ride along instead of a pass of their own. */
    private static void panel6(float[] x, int x0, int in, float[] pw, int base, float[] out, int o0, int stride) {
        int x1 = x0 + in, x2 = x1 + in, x3 = x2 + in, x4 = x3 + in, x5 = x4 + in;
        int o1 = o0 + stride, o2 = o1 + stride, o3 = o2 + stride, o4 = o3 + stride, o5 = o4 + stride;
        FloatVector a00 = FloatVector.fromArray(S, out, o0);
        FloatVector a01 = FloatVector.fromArray(S, out, o0 + L);
        FloatVector a02 = FloatVector.fromArray(S, out, o0 + 2 * L);
        FloatVector a03 = FloatVector.fromArray(S, out, o0 + 3 * L);
        FloatVector a10 = FloatVector.fromArray(S, out, o1);
        FloatVector a11 = FloatVector.fromArray(S, out, o1 + L);
        FloatVector a12 = FloatVector.fromArray(S, out, o1 + 2 * L);
        FloatVector a13 = FloatVector.fromArray(S, out, o1 + 3 * L);
        FloatVector a20 = FloatVector.fromArray(S, out, o2);
        FloatVector a21 = FloatVector.fromArray(S, out, o2 + L);
        FloatVector a22 = FloatVector.fromArray(S, out, o2 + 2 * L);
        FloatVector a23 = FloatVector.fromArray(S, out, o2 + 3 * L);
        FloatVector a30 = FloatVector.fromArray(S, out, o3);
        FloatVector a31 = FloatVector.fromArray(S, out, o3 + L);
        FloatVector a32 = FloatVector.fromArray(S, out, o3 + 2 * L);
        FloatVector a33 = FloatVector.fromArray(S, out, o3 + 3 * L);
        FloatVector a40 = FloatVector.fromArray(S, out, o4);
        FloatVector a41 = FloatVector.fromArray(S, out, o4 + L);
        FloatVector a42 = FloatVector.fromArray(S, out, o4 + 2 * L);
        FloatVector a43 = FloatVector.fromArray(S, out, o4 + 3 * L);
        FloatVector a50 = FloatVector.fromArray(S, out, o5);
        FloatVector a51 = FloatVector.fromArray(S, out, o5 + L);
        FloatVector a52 = FloatVector.fromArray(S, out, o5 + 2 * L);
        FloatVector a53 = FloatVector.fromArray(S, out, o5 + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * PackedMatrix.PANEL;
            FloatVector w0 = FloatVector.fromArray(S, pw, wk);
            FloatVector w1 = FloatVector.fromArray(S, pw, wk + L);
            FloatVector w2 = FloatVector.fromArray(S, pw, wk + 2 * L);
            FloatVector w3 = FloatVector.fromArray(S, pw, wk + 3 * L);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a00 = w0.fma(u, a00);
            a01 = w1.fma(u, a01);
            a02 = w2.fma(u, a02);
            a03 = w3.fma(u, a03);
            u = FloatVector.broadcast(S, x[x1 + k]);
            a10 = w0.fma(u, a10);
            a11 = w1.fma(u, a11);
            a12 = w2.fma(u, a12);
            a13 = w3.fma(u, a13);
            u = FloatVector.broadcast(S, x[x2 + k]);
            a20 = w0.fma(u, a20);
            a21 = w1.fma(u, a21);
            a22 = w2.fma(u, a22);
            a23 = w3.fma(u, a23);
            u = FloatVector.broadcast(S, x[x3 + k]);
            a30 = w0.fma(u, a30);
            a31 = w1.fma(u, a31);
            a32 = w2.fma(u, a32);
            a33 = w3.fma(u, a33);
            u = FloatVector.broadcast(S, x[x4 + k]);
            a40 = w0.fma(u, a40);
            a41 = w1.fma(u, a41);
            a42 = w2.fma(u, a42);
            a43 = w3.fma(u, a43);
            u = FloatVector.broadcast(S, x[x5 + k]);
            a50 = w0.fma(u, a50);
            a51 = w1.fma(u, a51);
            a52 = w2.fma(u, a52);
            a53 = w3.fma(u, a53);
        }
        a00.intoArray(out, o0);
        a01.intoArray(out, o0 + L);
        a02.intoArray(out, o0 + 2 * L);
        a03.intoArray(out, o0 + 3 * L);
        a10.intoArray(out, o1);
        a11.intoArray(out, o1 + L);
        a12.intoArray(out, o1 + 2 * L);
        a13.intoArray(out, o1 + 3 * L);
        a20.intoArray(out, o2);
        a21.intoArray(out, o2 + L);
        a22.intoArray(out, o2 + 2 * L);
        a23.intoArray(out, o2 + 3 * L);
        a30.intoArray(out, o3);
        a31.intoArray(out, o3 + L);
        a32.intoArray(out, o3 + 2 * L);
        a33.intoArray(out, o3 + 3 * L);
        a40.intoArray(out, o4);
        a41.intoArray(out, o4 + L);
        a42.intoArray(out, o4 + 2 * L);
        a43.intoArray(out, o4 + 3 * L);
        a50.intoArray(out, o5);
        a51.intoArray(out, o5 + L);
        a52.intoArray(out, o5 + 2 * L);
        a53.intoArray(out, o5 + 3 * L);
    }

    /** The same for one row. */
    private static void panel1(float[] x, int x0, int in, float[] pw, int base, float[] out, int o) {
        FloatVector a0 = FloatVector.fromArray(S, out, o);
        FloatVector a1 = FloatVector.fromArray(S, out, o + L);
        FloatVector a2 = FloatVector.fromArray(S, out, o + 2 * L);
        FloatVector a3 = FloatVector.fromArray(S, out, o + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * PackedMatrix.PANEL;
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a0 = FloatVector.fromArray(S, pw, wk).fma(u, a0);
            a1 = FloatVector.fromArray(S, pw, wk + L).fma(u, a1);
            a2 = FloatVector.fromArray(S, pw, wk + 2 * L).fma(u, a2);
            a3 = FloatVector.fromArray(S, pw, wk + 3 * L).fma(u, a3);
        }
        a0.intoArray(out, o);
        a1.intoArray(out, o + L);
        a2.intoArray(out, o + 2 * L);
        a3.intoArray(out, o + 3 * L);
    }

    private static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, S.vectorShape());
    private static final int HIGH_HALF = 0xFFFF0000;

    /** bfloat16 in the low halves of v's lanes, widened (exactly) to float32. */
    private static FloatVector low(IntVector v) {
        return v.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /** bfloat16 in the high halves of v's lanes, widened (exactly) to float32. */
    private static FloatVector high(IntVector v) {
        return v.and(HIGH_HALF).reinterpretAsFloats();
    }

    /** {@link #panel4} over a bfloat16 panel ({@link PackedMatrix#pairs}): the same FMAs in the same order. */
    private static void panel4Bf16(float[] x, int x0, int in, int[] pw, int base, float[] out, int o0, int stride) {
        int x1 = x0 + in;
        int x2 = x1 + in;
        int x3 = x2 + in;
        int o1 = o0 + stride;
        int o2 = o1 + stride;
        int o3 = o2 + stride;
        FloatVector a00 = FloatVector.fromArray(S, out, o0);
        FloatVector a01 = FloatVector.fromArray(S, out, o0 + L);
        FloatVector a02 = FloatVector.fromArray(S, out, o0 + 2 * L);
        FloatVector a03 = FloatVector.fromArray(S, out, o0 + 3 * L);
        FloatVector a10 = FloatVector.fromArray(S, out, o1);
        FloatVector a11 = FloatVector.fromArray(S, out, o1 + L);
        FloatVector a12 = FloatVector.fromArray(S, out, o1 + 2 * L);
        FloatVector a13 = FloatVector.fromArray(S, out, o1 + 3 * L);
        FloatVector a20 = FloatVector.fromArray(S, out, o2);
        FloatVector a21 = FloatVector.fromArray(S, out, o2 + L);
        FloatVector a22 = FloatVector.fromArray(S, out, o2 + 2 * L);
        FloatVector a23 = FloatVector.fromArray(S, out, o2 + 3 * L);
        FloatVector a30 = FloatVector.fromArray(S, out, o3);
        FloatVector a31 = FloatVector.fromArray(S, out, o3 + L);
        FloatVector a32 = FloatVector.fromArray(S, out, o3 + 2 * L);
        FloatVector a33 = FloatVector.fromArray(S, out, o3 + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * 2 * L;
            IntVector lo = IntVector.fromArray(I, pw, wk);
            IntVector hi = IntVector.fromArray(I, pw, wk + L);
            FloatVector w0 = low(lo);
            FloatVector w1 = high(lo);
            FloatVector w2 = low(hi);
            FloatVector w3 = high(hi);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a00 = w0.fma(u, a00);
            a01 = w1.fma(u, a01);
            a02 = w2.fma(u, a02);
            a03 = w3.fma(u, a03);
            u = FloatVector.broadcast(S, x[x1 + k]);
            a10 = w0.fma(u, a10);
            a11 = w1.fma(u, a11);
            a12 = w2.fma(u, a12);
            a13 = w3.fma(u, a13);
            u = FloatVector.broadcast(S, x[x2 + k]);
            a20 = w0.fma(u, a20);
            a21 = w1.fma(u, a21);
            a22 = w2.fma(u, a22);
            a23 = w3.fma(u, a23);
            u = FloatVector.broadcast(S, x[x3 + k]);
            a30 = w0.fma(u, a30);
            a31 = w1.fma(u, a31);
            a32 = w2.fma(u, a32);
            a33 = w3.fma(u, a33);
        }
        a00.intoArray(out, o0);
        a01.intoArray(out, o0 + L);
        a02.intoArray(out, o0 + 2 * L);
        a03.intoArray(out, o0 + 3 * L);
        a10.intoArray(out, o1);
        a11.intoArray(out, o1 + L);
        a12.intoArray(out, o1 + 2 * L);
        a13.intoArray(out, o1 + 3 * L);
        a20.intoArray(out, o2);
        a21.intoArray(out, o2 + L);
        a22.intoArray(out, o2 + 2 * L);
        a23.intoArray(out, o2 + 3 * L);
        a30.intoArray(out, o3);
        a31.intoArray(out, o3 + L);
        a32.intoArray(out, o3 + 2 * L);
        a33.intoArray(out, o3 + 3 * L);
    }

    /** {@link #panel5} over a bfloat16 panel. */
    private static void panel5Bf16(float[] x, int x0, int in, int[] pw, int base, float[] out, int o0, int stride) {
        int x1 = x0 + in, x2 = x1 + in, x3 = x2 + in, x4 = x3 + in;
        int o1 = o0 + stride, o2 = o1 + stride, o3 = o2 + stride, o4 = o3 + stride;
        FloatVector a00 = FloatVector.fromArray(S, out, o0);
        FloatVector a01 = FloatVector.fromArray(S, out, o0 + L);
        FloatVector a02 = FloatVector.fromArray(S, out, o0 + 2 * L);
        FloatVector a03 = FloatVector.fromArray(S, out, o0 + 3 * L);
        FloatVector a10 = FloatVector.fromArray(S, out, o1);
        FloatVector a11 = FloatVector.fromArray(S, out, o1 + L);
        FloatVector a12 = FloatVector.fromArray(S, out, o1 + 2 * L);
        FloatVector a13 = FloatVector.fromArray(S, out, o1 + 3 * L);
        FloatVector a20 = FloatVector.fromArray(S, out, o2);
        FloatVector a21 = FloatVector.fromArray(S, out, o2 + L);
        FloatVector a22 = FloatVector.fromArray(S, out, o2 + 2 * L);
        FloatVector a23 = FloatVector.fromArray(S, out, o2 + 3 * L);
        FloatVector a30 = FloatVector.fromArray(S, out, o3);
        FloatVector a31 = FloatVector.fromArray(S, out, o3 + L);
        FloatVector a32 = FloatVector.fromArray(S, out, o3 + 2 * L);
        FloatVector a33 = FloatVector.fromArray(S, out, o3 + 3 * L);
        FloatVector a40 = FloatVector.fromArray(S, out, o4);
        FloatVector a41 = FloatVector.fromArray(S, out, o4 + L);
        FloatVector a42 = FloatVector.fromArray(S, out, o4 + 2 * L);
        FloatVector a43 = FloatVector.fromArray(S, out, o4 + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * 2 * L;
            IntVector lo = IntVector.fromArray(I, pw, wk);
            IntVector hi = IntVector.fromArray(I, pw, wk + L);
            FloatVector w0 = low(lo);
            FloatVector w1 = high(lo);
            FloatVector w2 = low(hi);
            FloatVector w3 = high(hi);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a00 = w0.fma(u, a00);
            a01 = w1.fma(u, a01);
            a02 = w2.fma(u, a02);
            a03 = w3.fma(u, a03);
            u = FloatVector.broadcast(S, x[x1 + k]);
            a10 = w0.fma(u, a10);
            a11 = w1.fma(u, a11);
            a12 = w2.fma(u, a12);
            a13 = w3.fma(u, a13);
            u = FloatVector.broadcast(S, x[x2 + k]);
            a20 = w0.fma(u, a20);
            a21 = w1.fma(u, a21);
            a22 = w2.fma(u, a22);
            a23 = w3.fma(u, a23);
            u = FloatVector.broadcast(S, x[x3 + k]);
            a30 = w0.fma(u, a30);
            a31 = w1.fma(u, a31);
            a32 = w2.fma(u, a32);
            a33 = w3.fma(u, a33);
            u = FloatVector.broadcast(S, x[x4 + k]);
            a40 = w0.fma(u, a40);
            a41 = w1.fma(u, a41);
            a42 = w2.fma(u, a42);
            a43 = w3.fma(u, a43);
        }
        a00.intoArray(out, o0);
        a01.intoArray(out, o0 + L);
        a02.intoArray(out, o0 + 2 * L);
        a03.intoArray(out, o0 + 3 * L);
        a10.intoArray(out, o1);
        a11.intoArray(out, o1 + L);
        a12.intoArray(out, o1 + 2 * L);
        a13.intoArray(out, o1 + 3 * L);
        a20.intoArray(out, o2);
        a21.intoArray(out, o2 + L);
        a22.intoArray(out, o2 + 2 * L);
        a23.intoArray(out, o2 + 3 * L);
        a30.intoArray(out, o3);
        a31.intoArray(out, o3 + L);
        a32.intoArray(out, o3 + 2 * L);
        a33.intoArray(out, o3 + 3 * L);
        a40.intoArray(out, o4);
        a41.intoArray(out, o4 + L);
        a42.intoArray(out, o4 + 2 * L);
        a43.intoArray(out, o4 + 3 * L);
    }

    /** {@link #panel6} over a bfloat16 panel. */
    private static void panel6Bf16(float[] x, int x0, int in, int[] pw, int base, float[] out, int o0, int stride) {
        int x1 = x0 + in, x2 = x1 + in, x3 = x2 + in, x4 = x3 + in, x5 = x4 + in;
        int o1 = o0 + stride, o2 = o1 + stride, o3 = o2 + stride, o4 = o3 + stride, o5 = o4 + stride;
        FloatVector a00 = FloatVector.fromArray(S, out, o0);
        FloatVector a01 = FloatVector.fromArray(S, out, o0 + L);
        FloatVector a02 = FloatVector.fromArray(S, out, o0 + 2 * L);
        FloatVector a03 = FloatVector.fromArray(S, out, o0 + 3 * L);
        FloatVector a10 = FloatVector.fromArray(S, out, o1);
        FloatVector a11 = FloatVector.fromArray(S, out, o1 + L);
        FloatVector a12 = FloatVector.fromArray(S, out, o1 + 2 * L);
        FloatVector a13 = FloatVector.fromArray(S, out, o1 + 3 * L);
        FloatVector a20 = FloatVector.fromArray(S, out, o2);
        FloatVector a21 = FloatVector.fromArray(S, out, o2 + L);
        FloatVector a22 = FloatVector.fromArray(S, out, o2 + 2 * L);
        FloatVector a23 = FloatVector.fromArray(S, out, o2 + 3 * L);
        FloatVector a30 = FloatVector.fromArray(S, out, o3);
        FloatVector a31 = FloatVector.fromArray(S, out, o3 + L);
        FloatVector a32 = FloatVector.fromArray(S, out, o3 + 2 * L);
        FloatVector a33 = FloatVector.fromArray(S, out, o3 + 3 * L);
        FloatVector a40 = FloatVector.fromArray(S, out, o4);
        FloatVector a41 = FloatVector.fromArray(S, out, o4 + L);
        FloatVector a42 = FloatVector.fromArray(S, out, o4 + 2 * L);
        FloatVector a43 = FloatVector.fromArray(S, out, o4 + 3 * L);
        FloatVector a50 = FloatVector.fromArray(S, out, o5);
        FloatVector a51 = FloatVector.fromArray(S, out, o5 + L);
        FloatVector a52 = FloatVector.fromArray(S, out, o5 + 2 * L);
        FloatVector a53 = FloatVector.fromArray(S, out, o5 + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * 2 * L;
            IntVector lo = IntVector.fromArray(I, pw, wk);
            IntVector hi = IntVector.fromArray(I, pw, wk + L);
            FloatVector w0 = low(lo);
            FloatVector w1 = high(lo);
            FloatVector w2 = low(hi);
            FloatVector w3 = high(hi);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a00 = w0.fma(u, a00);
            a01 = w1.fma(u, a01);
            a02 = w2.fma(u, a02);
            a03 = w3.fma(u, a03);
            u = FloatVector.broadcast(S, x[x1 + k]);
            a10 = w0.fma(u, a10);
            a11 = w1.fma(u, a11);
            a12 = w2.fma(u, a12);
            a13 = w3.fma(u, a13);
            u = FloatVector.broadcast(S, x[x2 + k]);
            a20 = w0.fma(u, a20);
            a21 = w1.fma(u, a21);
            a22 = w2.fma(u, a22);
            a23 = w3.fma(u, a23);
            u = FloatVector.broadcast(S, x[x3 + k]);
            a30 = w0.fma(u, a30);
            a31 = w1.fma(u, a31);
            a32 = w2.fma(u, a32);
            a33 = w3.fma(u, a33);
            u = FloatVector.broadcast(S, x[x4 + k]);
            a40 = w0.fma(u, a40);
            a41 = w1.fma(u, a41);
            a42 = w2.fma(u, a42);
            a43 = w3.fma(u, a43);
            u = FloatVector.broadcast(S, x[x5 + k]);
            a50 = w0.fma(u, a50);
            a51 = w1.fma(u, a51);
            a52 = w2.fma(u, a52);
            a53 = w3.fma(u, a53);
        }
        a00.intoArray(out, o0);
        a01.intoArray(out, o0 + L);
        a02.intoArray(out, o0 + 2 * L);
        a03.intoArray(out, o0 + 3 * L);
        a10.intoArray(out, o1);
        a11.intoArray(out, o1 + L);
        a12.intoArray(out, o1 + 2 * L);
        a13.intoArray(out, o1 + 3 * L);
        a20.intoArray(out, o2);
        a21.intoArray(out, o2 + L);
        a22.intoArray(out, o2 + 2 * L);
        a23.intoArray(out, o2 + 3 * L);
        a30.intoArray(out, o3);
        a31.intoArray(out, o3 + L);
        a32.intoArray(out, o3 + 2 * L);
        a33.intoArray(out, o3 + 3 * L);
        a40.intoArray(out, o4);
        a41.intoArray(out, o4 + L);
        a42.intoArray(out, o4 + 2 * L);
        a43.intoArray(out, o4 + 3 * L);
        a50.intoArray(out, o5);
        a51.intoArray(out, o5 + L);
        a52.intoArray(out, o5 + 2 * L);
        a53.intoArray(out, o5 + 3 * L);
    }

    /** {@link #panel1} over a bfloat16 panel. */
    private static void panel1Bf16(float[] x, int x0, int in, int[] pw, int base, float[] out, int o) {
        FloatVector a0 = FloatVector.fromArray(S, out, o);
        FloatVector a1 = FloatVector.fromArray(S, out, o + L);
        FloatVector a2 = FloatVector.fromArray(S, out, o + 2 * L);
        FloatVector a3 = FloatVector.fromArray(S, out, o + 3 * L);
        for (int k = 0; k < in; k++) {
            int wk = base + k * 2 * L;
            IntVector lo = IntVector.fromArray(I, pw, wk);
            IntVector hi = IntVector.fromArray(I, pw, wk + L);
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a0 = low(lo).fma(u, a0);
            a1 = high(lo).fma(u, a1);
            a2 = low(hi).fma(u, a2);
            a3 = high(hi).fma(u, a3);
        }
        a0.intoArray(out, o);
        a1.intoArray(out, o + L);
        a2.intoArray(out, o + 2 * L);
        a3.intoArray(out, o + 3 * L);
    }

    /** Σk a[aOff + k]·b[bOff + k]. */
    static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        FloatVector acc = FloatVector.zero(S);
        int bound = S.loopBound(n);
        int k = 0;
        for (; k < bound; k += L) {
            acc = FloatVector.fromArray(S, a, aOff + k).fma(FloatVector.fromArray(S, b, bOff + k), acc);
        }
        if (k < n) {
            VectorMask<Float> m = S.indexInRange(k, n);
            acc = FloatVector.fromArray(S, a, aOff + k, m).fma(FloatVector.fromArray(S, b, bOff + k, m), acc);
        }
        return sum(acc);
    }

    // ---- element-wise ----

    /** a[off + i] += b[i] for i in [0, n). */
    static void addInPlace(float[] a, int off, float[] b, int n) {
        int bound = S.loopBound(n);
        int i = 0;
        for (; i < bound; i += L) {
            FloatVector.fromArray(S, a, off + i).add(FloatVector.fromArray(S, b, i)).intoArray(a, off + i);
        }
        for (; i < n; i++) {
            a[off + i] += b[i];
        }
    }

    /** The activation named by hidden_act, in place over [0, n), in parallel. */
    static void activate(Activation act, float[] a, int n) {
        Parallel.forRange(n, 4096, (from, to) -> {
            switch (act) {
                case GELU -> gelu(a, from, to);
                case GELU_TANH -> geluTanh(a, from, to);
                case RELU -> relu(a, from, to);
            }
        });
    }

    private static final float SQRT_HALF = (float) Math.sqrt(0.5);

    /** 0.5·x·(1 + erf(x/√2)), the exact GELU. */
    static void gelu(float[] a, int from, int to) {
        int i = from;
        for (; i + L <= to; i += L) {
            FloatVector x = FloatVector.fromArray(S, a, i);
            x.mul(0.5f).mul(erf(x.mul(SQRT_HALF)).add(1f)).intoArray(a, i);
        }
        if (i < to) {
            VectorMask<Float> m = S.indexInRange(i, to);
            FloatVector x = FloatVector.fromArray(S, a, i, m);
            x.mul(0.5f).mul(erf(x.mul(SQRT_HALF)).add(1f)).intoArray(a, i, m);
        }
    }

    /**
     * erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7):
     * 1 - (a1·t + a2·t² + a3·t³ + a4·t⁴ + a5·t⁵)·e^(-x²) with t = 1/(1 + p·|x|), sign restored.
     */
    static FloatVector erf(FloatVector x) {
        FloatVector ax = x.abs();
        FloatVector t = FloatVector.broadcast(S, 1f).div(ax.fma(0.3275911f, 1f));
        FloatVector poly = t.fma(1.061405429f, -1.453152027f)
                .fma(t, FloatVector.broadcast(S, 1.421413741f))
                .fma(t, FloatVector.broadcast(S, -0.284496736f))
                .fma(t, FloatVector.broadcast(S, 0.254829592f))
                .mul(t);
        FloatVector y = poly.mul(exp(ax.mul(ax).neg())).neg().add(1f);
        return y.blend(y.neg(), x.lt(0f));
    }

    private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2 / Math.PI);

    /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), gelu_new / gelu_pytorch_tanh. */
    static void geluTanh(float[] a, int from, int to) {
        int i = from;
        for (; i < to; i += L) {
            VectorMask<Float> m = S.indexInRange(i, to);
            FloatVector x = FloatVector.fromArray(S, a, i, m);
            FloatVector inner = x.mul(x).mul(x).mul(0.044715f).add(x).mul(SQRT_2_OVER_PI);
            x.mul(0.5f).mul(tanh(inner).add(1f)).intoArray(a, i, m);
        }
    }

    static void relu(float[] a, int from, int to) {
        int i = from;
        for (; i < to; i += L) {
            VectorMask<Float> m = S.indexInRange(i, to);
            FloatVector.fromArray(S, a, i, m).max(0f).intoArray(a, i, m);
        }
    }

    /** tanh in place over [from, to). */
    static void tanh(float[] a, int from, int to) {
        int i = from;
        for (; i < to; i += L) {
            VectorMask<Float> m = S.indexInRange(i, to);
            tanh(FloatVector.fromArray(S, a, i, m)).intoArray(a, i, m);
        }
    }

    // ---- exp and tanh from FMAs ----
    /*
     * Lanewise EXP and TANH run Java's Math functions when interpreted and the JIT's vector math
     * library once compiled; the two differ in the last bit, so the same text gave different
     * floats before and after warm-up. These are built from adds, multiplies and FMAs only, which
     * are exact IEEE operations either way (Cephes' expf and tanhf, about 1 ulp).
     */
    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    /** 1.5·2²³: adding and subtracting it rounds a float below 2²² to the nearest integer. */
    private static final float ROUNDER = 12582912f;
    private static final float EXP_MAX = 88.72283f;
    private static final float EXP_MIN = -87.33654f;

    /** e^x per lane: x = n·ln2 + r with |r| ≤ ln2/2, e^r by a degree-7 polynomial, times 2^n. */
    static FloatVector exp(FloatVector x) {
        FloatVector c = x.max(EXP_MIN).min(EXP_MAX);
        FloatVector n = c.fma(LOG2E, ROUNDER).sub(ROUNDER);
        FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), c);
        r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
        FloatVector p = r.fma(1.9875691500E-4f, 1.3981999507E-3f)
                .fma(r, FloatVector.broadcast(S, 8.3334519073E-3f))
                .fma(r, FloatVector.broadcast(S, 4.1665795894E-2f))
                .fma(r, FloatVector.broadcast(S, 1.6666665459E-1f))
                .fma(r, FloatVector.broadcast(S, 5.0000001201E-1f));
        FloatVector y = p.mul(r.mul(r)).add(r).add(1f);
        IntVector bits = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23);
        FloatVector result = y.mul(bits.reinterpretAsFloats());
        // Below the smallest normal result e^x is 0 as far as float32 softmax cares (masked keys land here).
        return result.blend(0f, x.lt(EXP_MIN)).blend(Float.POSITIVE_INFINITY, x.compare(VectorOperators.GT, EXP_MAX));
    }

    /** tanh per lane: an odd polynomial below 0.625, else 1 - 2/(e^2|x| + 1), sign restored. */
    static FloatVector tanh(FloatVector x) {
        FloatVector ax = x.abs();
        FloatVector z = x.mul(x);
        FloatVector small = z.fma(-5.70498872745E-3f, 2.06390887954E-2f)
                .fma(z, FloatVector.broadcast(S, -5.37397155531E-2f))
                .fma(z, FloatVector.broadcast(S, 1.33314422036E-1f))
                .fma(z, FloatVector.broadcast(S, -3.33332819422E-1f))
                .mul(z).fma(x, x);
        FloatVector large = FloatVector.broadcast(S, 1f).sub(FloatVector.broadcast(S, 2f).div(exp(ax.add(ax)).add(1f)));
        large = large.blend(large.neg(), x.lt(0f));
        return large.blend(small, ax.lt(0.625f));
    }

    // ---- normalisation ----

    /**
     * LayerNorm of each of {@code rows} rows of width {@code dim}: (x - mean)/√(var + eps)·γ + β,
     * with the mean and the (biased) variance computed in two passes. In place when out == x.
     */
    static void layerNorm(float[] x, int rows, int dim, float[] gamma, float[] beta, float eps, float[] out) {
        Parallel.forRange(rows, 1, (from, to) -> {
            for (int r = from; r < to; r++) {
                layerNormRow(x, r * dim, dim, gamma, beta, eps, out);
            }
        });
    }

    private static void layerNormRow(float[] x, int off, int dim, float[] gamma, float[] beta, float eps,
                                     float[] out) {
        float mean = sum(x, off, dim) / dim;
        FloatVector vm = FloatVector.broadcast(S, mean);
        FloatVector acc = FloatVector.zero(S);
        for (int i = 0; i < dim; i += L) {
            VectorMask<Float> m = S.indexInRange(i, dim);
            FloatVector d = FloatVector.fromArray(S, x, off + i, m).sub(vm);
            acc = acc.add(d.mul(d), m);
        }
        float variance = sum(acc) / dim;
        float inv = (float) (1.0 / Math.sqrt(variance + eps));
        for (int i = 0; i < dim; i += L) {
            VectorMask<Float> m = S.indexInRange(i, dim);
            FloatVector g = FloatVector.fromArray(S, gamma, i, m);
            FloatVector b = FloatVector.fromArray(S, beta, i, m);
            FloatVector.fromArray(S, x, off + i, m).sub(vm).mul(inv).fma(g, b).intoArray(out, off + i, m);
        }
    }

    static float sum(float[] a, int off, int n) {
        FloatVector acc = FloatVector.zero(S);
        int i = 0;
        for (; i + L <= n; i += L) {
            acc = acc.add(FloatVector.fromArray(S, a, off + i));
        }
        float s = sum(acc);
        for (; i < n; i++) {
            s += a[off + i];
        }
        return s;
    }

    /**
     * Softmax over a[off .. off+n), subtracting the maximum first so exp never overflows. {@code lanes} from
     * {@code lanesOff} is scratch of L floats for the lane sum: in attention, C2 inlines this method and then
     * stops inlining (node-count cutoff) before {@link #sum(FloatVector)}, and a vector passed to a call that is
     * not inlined is boxed: about 100 bytes of garbage per row, 2 MB per 1 x 128 pass.
     */
    static void softmax(float[] a, int off, int n, float[] lanes, int lanesOff) {
        FloatVector vmax = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < n; i += L) {
            VectorMask<Float> m = S.indexInRange(i, n);
            vmax = vmax.max(FloatVector.fromArray(S, a, off + i, m).blend(Float.NEGATIVE_INFINITY, m.not()));
        }
        float max = vmax.reduceLanes(VectorOperators.MAX);
        FloatVector acc = FloatVector.zero(S);
        for (int i = 0; i < n; i += L) {
            VectorMask<Float> m = S.indexInRange(i, n);
            FloatVector e = exp(FloatVector.fromArray(S, a, off + i, m).sub(max));
            e.intoArray(a, off + i, m);
            acc = acc.add(e, m);
        }
        acc.intoArray(lanes, lanesOff);
        float inv = 1f / sumStored(lanes, lanesOff);
        for (int i = 0; i < n; i += L) {
            VectorMask<Float> m = S.indexInRange(i, n);
            FloatVector.fromArray(S, a, off + i, m).mul(inv).intoArray(a, off + i, m);
        }
    }

    /** {@link #sum(FloatVector)} of a vector stored at t[off .. off+L): the same tree in scalar adds (overwrites t). */
    static float sumStored(float[] t, int off) {
        for (int half = L / 2; half > 0; half /= 2) {
            for (int i = 0; i < half; i++) {
                t[off + i] += t[off + i + half];
            }
        }
        return t[off];
    }

    // ---- attention ----

    /** Floats of scratch {@link #attentionHead} needs for a sequence of {@code seq} tokens. */
    static int attentionScratch(int seq, int headSize) {
        return headSize * keyStride(seq) + L;
    }

    /** Floats per transposed key row: the sequence rounded up to whole vectors. */
    private static int keyStride(int seq) {
        return S.loopBound(seq + L - 1);
    }

    /**
     * Scaled dot-product attention for one sequence and one head: rows [row0, row0+seq) of q, k, v
     * ([rows, hidden]), columns [col, col+headSize). {@code mask} holds the additive mask per key
     * (0 or the float minimum); {@code scores} from {@code scoresOff} is scratch of seq·seq floats,
     * and keeps the probabilities. The context goes to the same place in {@code ctx}.
     * {@code keysT} from {@code keysOff} is scratch of {@link #attentionScratch} floats: the head's keys transposed, so
     * a query row meets L keys per FMA instead of one dot product (and one lane sum) per key; then L floats for
     * the softmax's lane sum.
     */
    static void attentionHead(float[] q, float[] k, float[] v, int hidden, int row0, int seq, int col, int headSize,
                              float[] mask, int maskOff, float[] scores, int scoresOff, float[] ctx, float[] keysT,
                              int keysOff) {
        int stride = keyStride(seq);
        int lanesOff = keysOff + headSize * stride;
        for (int d = 0; d < headSize; d++) {
            int t = keysOff + d * stride;
            for (int j = 0; j < seq; j++) {
                keysT[t + j] = k[(row0 + j) * hidden + col + d];
            }
            java.util.Arrays.fill(keysT, t + seq, t + stride, 0f);
        }
        float scale = (float) (1.0 / Math.sqrt(headSize));
        for (int i = 0; i < seq; i++) {
            int qi = (row0 + i) * hidden + col;
            int si = scoresOff + i * seq;
            int j = 0;
            // Four blocks of keys at once: four independent FMA chains instead of one waiting on the last.
            for (; j + 4 * L <= stride; j += 4 * L) {
                FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
                for (int d = 0; d < headSize; d++) {
                    int t = keysOff + d * stride + j;
                    FloatVector qd = FloatVector.broadcast(S, q[qi + d]);
                    a0 = FloatVector.fromArray(S, keysT, t).fma(qd, a0);
                    a1 = FloatVector.fromArray(S, keysT, t + L).fma(qd, a1);
                    a2 = FloatVector.fromArray(S, keysT, t + 2 * L).fma(qd, a2);
                    a3 = FloatVector.fromArray(S, keysT, t + 3 * L).fma(qd, a3);
                }
                VectorMask<Float> m0 = S.indexInRange(j, seq);
                VectorMask<Float> m1 = S.indexInRange(j + L, seq);
                VectorMask<Float> m2 = S.indexInRange(j + 2 * L, seq);
                VectorMask<Float> m3 = S.indexInRange(j + 3 * L, seq);
                a0.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j, m0)).intoArray(scores, si + j, m0);
                a1.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j + L, m1)).intoArray(scores, si + j + L, m1);
                a2.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j + 2 * L, m2)).intoArray(scores, si + j + 2 * L, m2);
                a3.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j + 3 * L, m3)).intoArray(scores, si + j + 3 * L, m3);
            }
            for (; j < seq; j += L) {
                FloatVector acc = FloatVector.zero(S);
                for (int d = 0; d < headSize; d++) {
                    acc = FloatVector.fromArray(S, keysT, keysOff + d * stride + j).fma(FloatVector.broadcast(S, q[qi + d]), acc);
                }
                VectorMask<Float> m = S.indexInRange(j, seq);
                acc.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j, m)).intoArray(scores, si + j, m);
            }
            softmax(scores, si, seq, keysT, lanesOff);
        }
        int i = 0;
        if (headSize == 4 * L) {
            for (; i + 2 <= seq; i += 2) {
                weightedValues4x2(v, hidden, row0, seq, col, scores, scoresOff + i * seq, ctx, (row0 + i) * hidden + col);
            }
        }
        for (; i < seq; i++) {
            int qi = (row0 + i) * hidden + col;
            if (headSize == 4 * L) {
                weightedValues4(v, hidden, row0, seq, col, scores, scoresOff + i * seq, ctx, qi);
            } else {
                weightedValues(v, hidden, row0, seq, col, headSize, scores, scoresOff + i * seq, ctx, qi);
            }
        }
    }

    /**
     * {@link #weightedValues4} for two query rows (probabilities at pOff and pOff + seq, context at out and
     * out + hidden): each value vector loaded once for eight accumulators. Four alone wait on their own FMAs.
     */
    private static void weightedValues4x2(float[] v, int hidden, int row0, int seq, int col, float[] p, int pOff,
                                          float[] ctx, int out) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
        FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        for (int j = 0; j < seq; j++) {
            int vj = (row0 + j) * hidden + col;
            FloatVector v0 = FloatVector.fromArray(S, v, vj);
            FloatVector v1 = FloatVector.fromArray(S, v, vj + L);
            FloatVector v2 = FloatVector.fromArray(S, v, vj + 2 * L);
            FloatVector v3 = FloatVector.fromArray(S, v, vj + 3 * L);
            FloatVector pa = FloatVector.broadcast(S, p[pOff + j]);
            FloatVector pb = FloatVector.broadcast(S, p[pOff + seq + j]);
            a0 = v0.fma(pa, a0);
            a1 = v1.fma(pa, a1);
            a2 = v2.fma(pa, a2);
            a3 = v3.fma(pa, a3);
            b0 = v0.fma(pb, b0);
            b1 = v1.fma(pb, b1);
            b2 = v2.fma(pb, b2);
            b3 = v3.fma(pb, b3);
        }
        a0.intoArray(ctx, out);
        a1.intoArray(ctx, out + L);
        a2.intoArray(ctx, out + 2 * L);
        a3.intoArray(ctx, out + 3 * L);
        b0.intoArray(ctx, out + hidden);
        b1.intoArray(ctx, out + hidden + L);
        b2.intoArray(ctx, out + hidden + 2 * L);
        b3.intoArray(ctx, out + hidden + 3 * L);
    }

    /** ctx[out..+4L) = Σj p[j]·v[row0+j][col..+4L): one pass over the values, four accumulators. */
    private static void weightedValues4(float[] v, int hidden, int row0, int seq, int col, float[] p, int pOff,
                                        float[] ctx, int out) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
        for (int j = 0; j < seq; j++) {
            int vj = (row0 + j) * hidden + col;
            FloatVector pj = FloatVector.broadcast(S, p[pOff + j]);
            a0 = FloatVector.fromArray(S, v, vj).fma(pj, a0);
            a1 = FloatVector.fromArray(S, v, vj + L).fma(pj, a1);
            a2 = FloatVector.fromArray(S, v, vj + 2 * L).fma(pj, a2);
            a3 = FloatVector.fromArray(S, v, vj + 3 * L).fma(pj, a3);
        }
        a0.intoArray(ctx, out);
        a1.intoArray(ctx, out + L);
        a2.intoArray(ctx, out + 2 * L);
        a3.intoArray(ctx, out + 3 * L);
    }

    /** The same for any head size, a vector of columns at a time. */
    private static void weightedValues(float[] v, int hidden, int row0, int seq, int col, int headSize, float[] p,
                                       int pOff, float[] ctx, int out) {
        for (int c = 0; c < headSize; c += L) {
            VectorMask<Float> m = S.indexInRange(c, headSize);
            FloatVector acc = FloatVector.zero(S);
            for (int j = 0; j < seq; j++) {
                acc = FloatVector.fromArray(S, v, (row0 + j) * hidden + col + c, m)
                        .fma(FloatVector.broadcast(S, p[pOff + j]), acc);
            }
            acc.intoArray(ctx, out + c, m);
        }
    }
}
