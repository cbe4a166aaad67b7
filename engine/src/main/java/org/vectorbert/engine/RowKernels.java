package org.vectorbert.engine;

import static org.vectorbert.engine.VectorMath.L;
import static org.vectorbert.engine.VectorMath.S;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

/**
 * The kernels that work along rows of activations: LayerNorm, softmax, the residual add, the
 * activations, a GeGLU's gate and rotary positions. Each walks a row in whole vectors and ends with at most one masked vector. The blocks
 * call them through {@link Kernels}, which runs their plain twins instead when {@link PlainKernels} is active.
 */
final class RowKernels {
    private RowKernels() {}

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

    /**
     * One row of {@link #layerNorm}. Both sums fold their lanes in registers ({@link VectorMath#sum(FloatVector)}), not
     * through memory (the same bits), where a row waited on the stores.
     */
    private static void layerNormRow(float[] x, int off, int dim, float[] gamma, float[] beta, float eps, float[] out) {
        FloatVector sum = FloatVector.zero(S);
        int bound = S.loopBound(dim);
        int i = 0;
        for (; i < bound; i += L) {
            sum = FloatVector.fromArray(S, x, off + i).add(sum);
        }
        if (i < dim) {
            sum = FloatVector.fromArray(S, x, off + i, S.indexInRange(i, dim)).add(sum);
        }
        float mean = VectorMath.sum(sum) / dim;
        FloatVector vm = FloatVector.broadcast(S, mean);
        FloatVector acc = FloatVector.zero(S);
        i = 0;
        for (; i < bound; i += L) {
            // The new vector is the receiver and the accumulator the argument, here and in every loop of the kernels: to
            // C2 a loop-carried vector has no exact type, so a method called on it dispatches through the JDK's shared
            // type profile, and when that profile named no single class C2 compiled FloatVector.lanewise as a virtual
            // call on boxed vectors, ten times slower.
            FloatVector d = FloatVector.fromArray(S, x, off + i).sub(vm);
            acc = d.mul(d).add(acc);
        }
        if (i < dim) {
            VectorMask<Float> m = S.indexInRange(i, dim);
            FloatVector d = FloatVector.fromArray(S, x, off + i, m).sub(vm);
            acc = d.mul(d).blend(0f, m.not()).add(acc);
        }
        float variance = VectorMath.sum(acc) / dim;
        float inv = (float) (1.0 / Math.sqrt(variance + eps));
        for (i = 0; i < bound; i += L) {
            FloatVector g = FloatVector.fromArray(S, gamma, i);
            FloatVector b = FloatVector.fromArray(S, beta, i);
            FloatVector.fromArray(S, x, off + i).sub(vm).mul(inv).fma(g, b).intoArray(out, off + i);
        }
        if (i < dim) {
            VectorMask<Float> m = S.indexInRange(i, dim);
            FloatVector g = FloatVector.fromArray(S, gamma, i, m);
            FloatVector b = FloatVector.fromArray(S, beta, i, m);
            FloatVector.fromArray(S, x, off + i, m).sub(vm).mul(inv).fma(g, b).intoArray(out, off + i, m);
        }
    }

    /**
     * RMSNorm of {@code rows} rows of width {@code dim}: x / √(mean(x²) + eps) · weight, the mean a lane sum as
     * {@link #layerNorm}'s (Qwen3's and Gemma's norms; Gemma's 1 + weight is added at load).
     */
    static void rmsNorm(float[] x, int rows, int dim, float[] weight, float eps, float[] out) {
        Parallel.forRange(rows, 1, (from, to) -> {
            for (int r = from; r < to; r++) {
                rmsNormRow(x, r * dim, dim, weight, eps, out);
            }
        });
    }

    private static void rmsNormRow(float[] x, int off, int dim, float[] weight, float eps, float[] out) {
        FloatVector acc = FloatVector.zero(S);
        int bound = S.loopBound(dim);
        int i = 0;
        for (; i < bound; i += L) {
            FloatVector v = FloatVector.fromArray(S, x, off + i);
            acc = v.mul(v).add(acc);
        }
        if (i < dim) {
            FloatVector v = FloatVector.fromArray(S, x, off + i, S.indexInRange(i, dim));
            acc = v.mul(v).add(acc);
        }
        float inv = (float) (1.0 / Math.sqrt(VectorMath.sum(acc) / dim + eps));
        for (i = 0; i < bound; i += L) {
            FloatVector.fromArray(S, x, off + i).mul(inv).mul(FloatVector.fromArray(S, weight, i)).intoArray(out, off + i);
        }
        if (i < dim) {
            VectorMask<Float> m = S.indexInRange(i, dim);
            FloatVector.fromArray(S, x, off + i, m).mul(inv).mul(FloatVector.fromArray(S, weight, i, m)).intoArray(out, off + i, m);
        }
    }

    /**
     * The maximum of a[off .. off+n) (whole vectors), bias[biasOff ..] added to them in place first unless bias is null:
     * a softmax's first pass, whole or a block at a time (the maximum of the blocks' maxima is the same float). Four
     * running maxima, each raised by a compare and a blend: short chains, where FloatVector.max's five instructions for
     * NaN and -0 (neither of which changes a weight) made one long one.
     */
    static float rowMax(float[] a, int off, int n, float[] bias, int biasOff) {
        FloatVector m0 = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY), m1 = m0, m2 = m0, m3 = m0;
        int i = 0;
        if (bias == null) {
            for (; i + 4 * L <= n; i += 4 * L) {
                FloatVector x0 = FloatVector.fromArray(S, a, off + i);
                FloatVector x1 = FloatVector.fromArray(S, a, off + i + L);
                FloatVector x2 = FloatVector.fromArray(S, a, off + i + 2 * L);
                FloatVector x3 = FloatVector.fromArray(S, a, off + i + 3 * L);
                m0 = m0.blend(x0, x0.compare(VectorOperators.GT, m0));
                m1 = m1.blend(x1, x1.compare(VectorOperators.GT, m1));
                m2 = m2.blend(x2, x2.compare(VectorOperators.GT, m2));
                m3 = m3.blend(x3, x3.compare(VectorOperators.GT, m3));
            }
            for (; i < n; i += L) {
                FloatVector x0 = FloatVector.fromArray(S, a, off + i);
                m0 = m0.blend(x0, x0.compare(VectorOperators.GT, m0));
            }
        } else {
            for (; i + 4 * L <= n; i += 4 * L) {
                FloatVector x0 = FloatVector.fromArray(S, a, off + i).add(FloatVector.fromArray(S, bias, biasOff + i));
                FloatVector x1 = FloatVector.fromArray(S, a, off + i + L).add(FloatVector.fromArray(S, bias, biasOff + i + L));
                FloatVector x2 = FloatVector.fromArray(S, a, off + i + 2 * L).add(FloatVector.fromArray(S, bias, biasOff + i + 2 * L));
                FloatVector x3 = FloatVector.fromArray(S, a, off + i + 3 * L).add(FloatVector.fromArray(S, bias, biasOff + i + 3 * L));
                x0.intoArray(a, off + i);
                x1.intoArray(a, off + i + L);
                x2.intoArray(a, off + i + 2 * L);
                x3.intoArray(a, off + i + 3 * L);
                m0 = m0.blend(x0, x0.compare(VectorOperators.GT, m0));
                m1 = m1.blend(x1, x1.compare(VectorOperators.GT, m1));
                m2 = m2.blend(x2, x2.compare(VectorOperators.GT, m2));
                m3 = m3.blend(x3, x3.compare(VectorOperators.GT, m3));
            }
            for (; i < n; i += L) {
                FloatVector x0 = FloatVector.fromArray(S, a, off + i).add(FloatVector.fromArray(S, bias, biasOff + i));
                x0.intoArray(a, off + i);
                m0 = m0.blend(x0, x0.compare(VectorOperators.GT, m0));
            }
        }
        m0 = m0.blend(m1, m1.compare(VectorOperators.GT, m0));
        m2 = m2.blend(m3, m3.compare(VectorOperators.GT, m2));
        return m0.blend(m2, m2.compare(VectorOperators.GT, m0)).reduceLanes(VectorOperators.MAX);
    }

    /**
     * A softmax over a[off .. off+n) (whole vectors), but for its division: bias[biasOff ..] added first unless bias is
     * null ({@link #rowMax}), then e^(x - max) in place ({@link VectorMath#weights}); returns 1/Σ, by which the attention
     * scales a row's weighted values once rather than each of its n weights.
     */
    static float softmaxWeights(float[] a, int off, int n, float[] bias, int biasOff) {
        return 1f / VectorMath.weights(a, off, n, rowMax(a, off, n, bias, biasOff));
    }

    // ---- element-wise ----

    /** a[off + i] += b[i] for i in [0, n). */
    static void addInPlace(float[] a, int off, float[] b, int n) {
        int bound = S.loopBound(n);
        int i = 0;
        for (; i < bound; i += L) {
            FloatVector.fromArray(S, a, off + i).add(FloatVector.fromArray(S, b, i)).intoArray(a, off + i);
        }
        if (i < n) {
            VectorMask<Float> m = S.indexInRange(i, n);
            FloatVector.fromArray(S, a, off + i, m).add(FloatVector.fromArray(S, b, i, m)).intoArray(a, off + i, m);
        }
    }

    /** a[i] *= b[bOff + i] for i in [0, n): a GeGLU's gate. */
    static void multiplyInPlace(float[] a, float[] b, int bOff, int n) {
        int bound = S.loopBound(n);
        int i = 0;
        for (; i < bound; i += L) {
            FloatVector.fromArray(S, a, i).mul(FloatVector.fromArray(S, b, bOff + i)).intoArray(a, i);
        }
        if (i < n) {
            VectorMask<Float> m = S.indexInRange(i, n);
            FloatVector.fromArray(S, a, i, m).mul(FloatVector.fromArray(S, b, bOff + i, m)).intoArray(a, i, m);
        }
    }

    /**
     * Rotary positions, NeoX style, on rows [row0, row0 + count) of x ([rows, hidden], heads of {@code headSize} side by
     * side), row row0 + p at position p: each head's halves a (columns 0 .. d/2) and b (d/2 .. d) become a·cos − b·sin and
     * b·cos + a·sin, with cos and sin of position p at {@code p·d/2} in the tables (ModernBERT's rotate_half over the
     * whole head). Products and sums rounded one at a time, as the plain twin does.
     */
    static void rotary(float[] x, int row0, int count, int hidden, int headSize, float[] cos, float[] sin) {
        int half = headSize / 2;
        Parallel.forRange(count, 16, (from, to) -> {
            for (int p = from; p < to; p++) {
                for (int h = (row0 + p) * hidden, end = h + hidden; h < end; h += headSize) {
                    rotaryHead(x, h, half, cos, sin, p * half);
                }
            }
        });
    }

    private static void rotaryHead(float[] x, int lo, int half, float[] cos, float[] sin, int t) {
        int bound = S.loopBound(half);
        int i = 0;
        for (; i < bound; i += L) {
            FloatVector a = FloatVector.fromArray(S, x, lo + i);
            FloatVector b = FloatVector.fromArray(S, x, lo + half + i);
            FloatVector c = FloatVector.fromArray(S, cos, t + i);
            FloatVector s = FloatVector.fromArray(S, sin, t + i);
            a.mul(c).sub(b.mul(s)).intoArray(x, lo + i);
            b.mul(c).add(a.mul(s)).intoArray(x, lo + half + i);
        }
        if (i < half) {
            VectorMask<Float> m = S.indexInRange(i, half);
            FloatVector a = FloatVector.fromArray(S, x, lo + i, m);
            FloatVector b = FloatVector.fromArray(S, x, lo + half + i, m);
            FloatVector c = FloatVector.fromArray(S, cos, t + i, m);
            FloatVector s = FloatVector.fromArray(S, sin, t + i, m);
            a.mul(c).sub(b.mul(s)).intoArray(x, lo + i, m);
            b.mul(c).add(a.mul(s)).intoArray(x, lo + half + i, m);
        }
    }

    /** The activation named by hidden_act, in place over [0, n), in parallel. */
    static void activate(Activation act, float[] a, int n) {
        Parallel.forRange(n, 4096, (from, to) -> {
            switch (act) {
                case GELU -> gelu(a, from, to);
                case GELU_TANH -> geluTanh(a, from, to);
                case RELU -> relu(a, from, to);
                case SILU -> silu(a, from, to);
            }
        });
    }

    private static final float SQRT_HALF = (float) Math.sqrt(0.5);
    private static final int BLOCK = VectorMath.BLOCK;

    /**
     * 0.5·x·(1 + erf(x/√2)), the exact GELU, in place over [from, to): erf by Abramowitz and Stegun
     * 7.1.26 (absolute error below 1.5e-7), 1 - (a1·t + ... + a5·t⁵)·e^(-u²) with t = 1/(1 + p·|u|),
     * u = x/√2, sign restored; e^(-u²) goes through a block of scratch and {@link VectorMath#expInPlace}.
     */
    static void gelu(float[] a, int from, int to) {
        float[] e = VectorMath.scratch();
        for (int start = from; start < to; start += BLOCK) {
            int count = Math.min(BLOCK, to - start);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector u = FloatVector.fromArray(S, a, start + i, m).mul(SQRT_HALF).abs();
                u.mul(u).neg().intoArray(e, BLOCK + i, m);
            }
            VectorMath.expInPlace(e, BLOCK, count, 0f, e, VectorMath.EXP_TAIL);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector x = FloatVector.fromArray(S, a, start + i, m);
                FloatVector u = x.mul(SQRT_HALF);
                FloatVector t = FloatVector.broadcast(S, 1f).div(u.abs().fma(0.3275911f, 1f));
                FloatVector poly = t.fma(1.061405429f, -1.453152027f)
                        .fma(t, FloatVector.broadcast(S, 1.421413741f))
                        .fma(t, FloatVector.broadcast(S, -0.284496736f))
                        .fma(t, FloatVector.broadcast(S, 0.254829592f))
                        .mul(t);
                FloatVector erf = poly.mul(FloatVector.fromArray(S, e, BLOCK + i, m)).neg().add(1f);
                erf = erf.blend(erf.neg(), u.lt(0f));
                x.mul(0.5f).mul(erf.add(1f)).intoArray(a, start + i, m);
            }
        }
    }

    private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2 / Math.PI);

    /** 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), gelu_new / gelu_pytorch_tanh, in place over [from, to). */
    static void geluTanh(float[] a, int from, int to) {
        float[] s = VectorMath.scratch();
        for (int start = from; start < to; start += BLOCK) {
            int count = Math.min(BLOCK, to - start);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector x = FloatVector.fromArray(S, a, start + i, m);
                x.mul(x).mul(x).mul(0.044715f).add(x).mul(SQRT_2_OVER_PI).intoArray(s, BLOCK + i, m);
            }
            VectorMath.tanhInPlace(s, BLOCK, count);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector x = FloatVector.fromArray(S, a, start + i, m);
                x.mul(0.5f).mul(FloatVector.fromArray(S, s, BLOCK + i, m).add(1f)).intoArray(a, start + i, m);
            }
        }
    }

    /** x / (1 + e^(-x)), silu (swish), in place over [from, to); e^(-x) goes through a block of scratch. */
    static void silu(float[] a, int from, int to) {
        float[] e = VectorMath.scratch();
        for (int start = from; start < to; start += BLOCK) {
            int count = Math.min(BLOCK, to - start);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector.fromArray(S, a, start + i, m).neg().intoArray(e, BLOCK + i, m);
            }
            VectorMath.expInPlace(e, BLOCK, count, 0f, e, VectorMath.EXP_TAIL);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector x = FloatVector.fromArray(S, a, start + i, m);
                x.div(FloatVector.fromArray(S, e, BLOCK + i, m).add(1f)).intoArray(a, start + i, m);
            }
        }
    }

    /** max(0, x) in place over [from, to). */
    static void relu(float[] a, int from, int to) {
        int bound = from + S.loopBound(to - from);
        int i = from;
        for (; i < bound; i += L) {
            FloatVector.fromArray(S, a, i).max(0f).intoArray(a, i);
        }
        if (i < to) {
            VectorMask<Float> m = S.indexInRange(i, to);
            FloatVector.fromArray(S, a, i, m).max(0f).intoArray(a, i, m);
        }
    }

    /** tanh in place over [from, to). */
    static void tanh(float[] a, int from, int to) {
        VectorMath.tanhInPlace(a, from, to - from);
    }
}
