package org.vectorbert.engine;

import static org.vectorbert.engine.Lanes.L;

import java.util.Arrays;

/**
 * The row kernels' plain twins ({@link RowKernels}, {@link VectorMath}): lane sums, LayerNorm, softmax, activations and the
 * element-wise functions, in the vector kernels' order of operations, for the plain first pass ({@link PlainKernels}).
 */
final class PlainRows {
    private PlainRows() {}

    /** Σ a[off .. off+n) through L lane sums and the same folding tree as {@link VectorMath#sum(jdk.incubator.vector.FloatVector)}; {@code lanes} is L floats. */
    static float sum(float[] a, int off, int n, float[] lanes) {
        Arrays.fill(lanes, 0, L, 0f);
        for (int i = 0; i < n; i++) {
            lanes[i % L] += a[off + i];
        }
        return fold(lanes);
    }

    private static float fold(float[] lanes) {
        for (int half = L / 2; half > 0; half /= 2) {
            for (int i = 0; i < half; i++) {
                lanes[i] += lanes[i + half];
            }
        }
        return lanes[0];
    }

    // ---- row kernels ({@link RowKernels}) ----

    /** {@link RowKernels#layerNorm}: the mean and the biased variance as lane sums, then (x - mean)·inv·γ + β fused. */
    static void layerNorm(float[] x, int rows, int dim, float[] gamma, float[] beta, float eps, float[] out) {
        float[] lanes = new float[L];
        for (int r = 0; r < rows; r++) {
            int off = r * dim;
            float mean = sum(x, off, dim, lanes) / dim;
            Arrays.fill(lanes, 0f);
            for (int i = 0; i < dim; i++) {
                float d = x[off + i] - mean;
                lanes[i % L] += d * d;
            }
            float variance = fold(lanes) / dim;
            float inv = (float) (1.0 / Math.sqrt(variance + eps));
            for (int i = 0; i < dim; i++) {
                out[off + i] = Math.fma((x[off + i] - mean) * inv, gamma[i], beta[i]);
            }
        }
    }

    /** {@link RowKernels#rmsNorm}: the mean square as a lane sum, then x·inv·w. */
    static void rmsNorm(float[] x, int rows, int dim, float[] weight, float eps, float[] out) {
        float[] lanes = new float[L];
        for (int r = 0; r < rows; r++) {
            int off = r * dim;
            Arrays.fill(lanes, 0f);
            for (int i = 0; i < dim; i++) {
                lanes[i % L] += x[off + i] * x[off + i];
            }
            float inv = (float) (1.0 / Math.sqrt(fold(lanes) / dim + eps));
            for (int i = 0; i < dim; i++) {
                out[off + i] = x[off + i] * inv * weight[i];
            }
        }
    }

    /**
     * {@link VectorMath#weights} over a[off .. off+n), any n: e^(x - max) in place and 1/Σ, the same bits as the vector
     * kernels over the row padded with -∞.
     */
    static float softmaxWeights(float[] a, int off, int n, float[] lanes) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, a[off + i]);
        }
        for (int i = 0; i < n; i++) {
            a[off + i] = weight(a[off + i] - max);
        }
        return 1f / sum(a, off, n, lanes);
    }

    /** {@link VectorMath#weights}'s e^x for x ≤ 0: {@link #expClamped}'s reduction and polynomial, in Estrin's form. */
    static float weight(float x) {
        if (x < VectorMath.WEIGHT_MIN) {
            return 0f;
        }
        float k = Math.fma(x, 1.44269504088896341f, 12582912f) - 12582912f;
        float r = Math.fma(k, -0.693359375f, x);
        r = Math.fma(k, 2.12194440e-4f, r);
        float r2 = r * r;
        float low = Math.fma(r, 1.6666665459E-1f, 5.0000001201E-1f);
        float mid = Math.fma(r, 8.3334519073E-3f, 4.1665795894E-2f);
        float high = Math.fma(r, 1.9875691500E-4f, 1.3981999507E-3f);
        float p = Math.fma(Math.fma(high, r2, mid), r2, low);
        float y = Math.fma(p, r2, r) + 1f;
        return y * Float.intBitsToFloat(((int) k + 127) << 23);
    }

    /** {@link RowKernels#addInPlace}. */
    static void addInPlace(float[] a, int off, float[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[off + i] += b[i];
        }
    }

    /** {@link RowKernels#multiplyInPlace}. */
    static void multiplyInPlace(float[] a, float[] b, int bOff, int n) {
        for (int i = 0; i < n; i++) {
            a[i] *= b[bOff + i];
        }
    }

    /** {@link RowKernels#rotary}, on this thread. */
    static void rotary(float[] x, int row0, int count, int hidden, int headSize, float[] cos, float[] sin) {
        int half = headSize / 2;
        for (int p = 0; p < count; p++) {
            for (int h = (row0 + p) * hidden, end = h + hidden; h < end; h += headSize) {
                for (int i = 0; i < half; i++) {
                    float a = x[h + i];
                    float b = x[h + half + i];
                    float c = cos[p * half + i];
                    float s = sin[p * half + i];
                    x[h + i] = a * c - b * s;
                    x[h + half + i] = b * c + a * s;
                }
            }
        }
    }

    /** {@link RowKernels#activate}, on this thread. */
    static void activate(Activation act, float[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = switch (act) {
                case GELU -> gelu(a[i]);
                case GELU_TANH -> geluTanh(a[i]);
                case RELU -> Math.max(a[i], 0f);
                case SILU -> a[i] / (exp(-a[i]) + 1f);
            };
        }
    }

    /** {@link RowKernels#tanh} over [from, to). */
    static void tanh(float[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            a[i] = tanh(a[i]);
        }
    }

    // ---- the element-wise functions, as {@link VectorMath} and {@link RowKernels} build them ----

    private static final float SQRT_HALF = (float) Math.sqrt(0.5);
    private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2 / Math.PI);

    static float exp(float x) {
        if (x < -87.33654f) {
            return 0f;
        }
        return x > 88.72283f ? Float.POSITIVE_INFINITY : expClamped(Math.min(Math.max(x, -87.33654f), 88.72283f));
    }

    /** e^c for c within exp's range: c = k·ln2 + r, e^r by {@link VectorMath}'s polynomial, times 2^k. */
    private static float expClamped(float c) {
        float k = Math.fma(c, 1.44269504088896341f, 12582912f) - 12582912f;
        float r = Math.fma(k, -0.693359375f, c);
        r = Math.fma(k, 2.12194440e-4f, r);
        float p = Math.fma(r, 1.9875691500E-4f, 1.3981999507E-3f);
        p = Math.fma(p, r, 8.3334519073E-3f);
        p = Math.fma(p, r, 4.1665795894E-2f);
        p = Math.fma(p, r, 1.6666665459E-1f);
        p = Math.fma(p, r, 5.0000001201E-1f);
        float y = p * (r * r) + r + 1f;
        return y * Float.intBitsToFloat(((int) k + 127) << 23);
    }

    static float tanh(float x) {
        float ax = Math.abs(x);
        float e = exp(ax + ax);
        float z = x * x;
        float small = Math.fma(z, -5.70498872745E-3f, 2.06390887954E-2f);
        small = Math.fma(small, z, -5.37397155531E-2f);
        small = Math.fma(small, z, 1.33314422036E-1f);
        small = Math.fma(small, z, -3.33332819422E-1f);
        small = Math.fma(small * z, x, x);
        float large = 1f - 2f / (e + 1f);
        if (x < 0f) {
            large = -large;
        }
        return Math.abs(x) < 0.625f ? small : large;
    }

    static float gelu(float x) {
        float au = Math.abs(x * SQRT_HALF);
        float e = exp(-(au * au));
        float u = x * SQRT_HALF;
        float t = 1f / Math.fma(Math.abs(u), 0.3275911f, 1f);
        float poly = Math.fma(t, 1.061405429f, -1.453152027f);
        poly = Math.fma(poly, t, 1.421413741f);
        poly = Math.fma(poly, t, -0.284496736f);
        poly = Math.fma(poly, t, 0.254829592f);
        poly = poly * t;
        float erf = -(poly * e) + 1f;
        if (u < 0f) {
            erf = -erf;
        }
        return x * 0.5f * (erf + 1f);
    }

    static float geluTanh(float x) {
        float s = tanh((x * x * x * 0.044715f + x) * SQRT_2_OVER_PI);
        return x * 0.5f * (s + 1f);
    }
}
