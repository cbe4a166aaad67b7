package org.vectorbert.engine;

import jdk.incubator.vector.FloatVector;
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
     * {@code out[r][o] = Σk x[r][k]·W[o][k] + b[o]}, W packed ({@link PackedMatrix}); out is
     * [rows, W.out]. Panels are split across the pool; each computes 4-row by 64-column tiles
     * with 16 accumulators fed by broadcast FMAs.
     */
    static void linear(float[] x, int rows, PackedMatrix w, float[] bias, float[] out) {
        Parallel.forRange(w.panelCount(), 1, (from, to) -> {
            for (int p = from; p < to; p++) {
                int r = 0;
                for (; r + 4 <= rows; r += 4) {
                    panel4(x, r, w, p, bias, out);
                }
                for (; r < rows; r++) {
                    panel1(x, r, w, p, bias, out);
                }
            }
        });
    }

    private static void panel4(float[] x, int r, PackedMatrix w, int p, float[] bias, float[] out) {
        int in = w.in;
        float[] pw = w.panels;
        int base = p * PackedMatrix.PANEL * in;
        int x0 = r * in;
        int x1 = x0 + in;
        int x2 = x1 + in;
        int x3 = x2 + in;
        FloatVector a00 = FloatVector.zero(S), a01 = a00, a02 = a00, a03 = a00;
        FloatVector a10 = a00, a11 = a00, a12 = a00, a13 = a00;
        FloatVector a20 = a00, a21 = a00, a22 = a00, a23 = a00;
        FloatVector a30 = a00, a31 = a00, a32 = a00, a33 = a00;
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
        storePanel(out, r, w, p, bias, a00, a01, a02, a03);
        storePanel(out, r + 1, w, p, bias, a10, a11, a12, a13);
        storePanel(out, r + 2, w, p, bias, a20, a21, a22, a23);
        storePanel(out, r + 3, w, p, bias, a30, a31, a32, a33);
    }

    private static void panel1(float[] x, int r, PackedMatrix w, int p, float[] bias, float[] out) {
        int in = w.in;
        float[] pw = w.panels;
        int base = p * PackedMatrix.PANEL * in;
        int x0 = r * in;
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < in; k++) {
            int wk = base + k * PackedMatrix.PANEL;
            FloatVector u = FloatVector.broadcast(S, x[x0 + k]);
            a0 = FloatVector.fromArray(S, pw, wk).fma(u, a0);
            a1 = FloatVector.fromArray(S, pw, wk + L).fma(u, a1);
            a2 = FloatVector.fromArray(S, pw, wk + 2 * L).fma(u, a2);
            a3 = FloatVector.fromArray(S, pw, wk + 3 * L).fma(u, a3);
        }
        storePanel(out, r, w, p, bias, a0, a1, a2, a3);
    }

    /** Adds the bias and stores one row's outputs of a panel (fewer in the last, padded panel). */
    private static void storePanel(float[] out, int r, PackedMatrix w, int p, float[] bias,
                                   FloatVector a0, FloatVector a1, FloatVector a2, FloatVector a3) {
        int col = p * PackedMatrix.PANEL;
        int rowOff = r * w.out;
        storeColumns(out, rowOff, col, w.out, bias, a0);
        storeColumns(out, rowOff, col + L, w.out, bias, a1);
        storeColumns(out, rowOff, col + 2 * L, w.out, bias, a2);
        storeColumns(out, rowOff, col + 3 * L, w.out, bias, a3);
    }

    private static void storeColumns(float[] out, int rowOff, int c, int width, float[] bias, FloatVector v) {
        if (c >= width) {
            return;
        }
        if (c + L <= width) {
            (bias == null ? v : v.add(FloatVector.fromArray(S, bias, c))).intoArray(out, rowOff + c);
        } else {
            VectorMask<Float> m = S.indexInRange(c, width);
            (bias == null ? v : v.add(FloatVector.fromArray(S, bias, c, m))).intoArray(out, rowOff + c, m);
        }
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
        FloatVector y = poly.mul(ax.mul(ax).neg().lanewise(VectorOperators.EXP)).neg().add(1f);
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
            x.mul(0.5f).mul(inner.lanewise(VectorOperators.TANH).add(1f)).intoArray(a, i, m);
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
            FloatVector.fromArray(S, a, i, m).lanewise(VectorOperators.TANH).intoArray(a, i, m);
        }
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

    /** Softmax over a[off .. off+n), subtracting the maximum first so exp never overflows. */
    static void softmax(float[] a, int off, int n) {
        FloatVector vmax = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY);
        for (int i = 0; i < n; i += L) {
            VectorMask<Float> m = S.indexInRange(i, n);
            vmax = vmax.max(FloatVector.fromArray(S, a, off + i, m).blend(Float.NEGATIVE_INFINITY, m.not()));
        }
        float max = vmax.reduceLanes(VectorOperators.MAX);
        FloatVector acc = FloatVector.zero(S);
        for (int i = 0; i < n; i += L) {
            VectorMask<Float> m = S.indexInRange(i, n);
            FloatVector e = FloatVector.fromArray(S, a, off + i, m).sub(max).lanewise(VectorOperators.EXP);
            e.intoArray(a, off + i, m);
            acc = acc.add(e, m);
        }
        float inv = 1f / sum(acc);
        for (int i = 0; i < n; i += L) {
            VectorMask<Float> m = S.indexInRange(i, n);
            FloatVector.fromArray(S, a, off + i, m).mul(inv).intoArray(a, off + i, m);
        }
    }

    // ---- attention ----

    /**
     * Scaled dot-product attention for one sequence and one head: rows [row0, row0+seq) of q, k, v
     * ([rows, hidden]), columns [col, col+headSize). {@code mask} holds the additive mask per key
     * (0 or the float minimum); {@code scores} from {@code scoresOff} is scratch of seq·seq floats,
     * and keeps the probabilities. The context goes to the same place in {@code ctx}.
     */
    static void attentionHead(float[] q, float[] k, float[] v, int hidden, int row0, int seq, int col, int headSize,
                              float[] mask, int maskOff, float[] scores, int scoresOff, float[] ctx) {
        float scale = (float) (1.0 / Math.sqrt(headSize));
        for (int i = 0; i < seq; i++) {
            int qi = (row0 + i) * hidden + col;
            int si = scoresOff + i * seq;
            for (int j = 0; j < seq; j++) {
                scores[si + j] = dot(q, qi, k, (row0 + j) * hidden + col, headSize) * scale + mask[maskOff + j];
            }
            softmax(scores, si, seq);
            int ci = (row0 + i) * hidden + col;
            for (int c = 0; c < headSize; c += L) {
                VectorMask<Float> m = S.indexInRange(c, headSize);
                FloatVector acc = FloatVector.zero(S);
                for (int j = 0; j < seq; j++) {
                    acc = FloatVector.fromArray(S, v, (row0 + j) * hidden + col + c, m)
                            .fma(FloatVector.broadcast(S, scores[si + j]), acc);
                }
                acc.intoArray(ctx, ci + c, m);
            }
        }
    }
}
