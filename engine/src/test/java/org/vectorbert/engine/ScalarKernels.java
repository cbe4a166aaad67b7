package org.vectorbert.engine;

/** Plain double-precision twins of the SIMD kernels, the reference they are tested against. */
final class ScalarKernels {
    private ScalarKernels() {}

    static float[] linear(float[] x, int rows, int in, float[] w, float[] b, int out) {
        float[] y = new float[rows * out];
        for (int r = 0; r < rows; r++) {
            for (int o = 0; o < out; o++) {
                double s = b == null ? 0 : b[o];
                for (int k = 0; k < in; k++) {
                    s += (double) x[r * in + k] * w[o * in + k];
                }
                y[r * out + o] = (float) s;
            }
        }
        return y;
    }

    /**
     * x·Wᵀ + b in float32, each output from its bias (or 0) with one fused multiply-add per input in
     * input order: the order and rounding of the panel kernel, so its outputs must be these bits exactly.
     */
    static float[] linearFma(float[] x, int rows, int in, float[] w, float[] b, int out) {
        float[] y = new float[rows * out];
        for (int r = 0; r < rows; r++) {
            for (int o = 0; o < out; o++) {
                float s = b == null ? 0 : b[o];
                for (int k = 0; k < in; k++) {
                    s = Math.fma(w[o * in + k], x[r * in + k], s);
                }
                y[r * out + o] = s;
            }
        }
        return y;
    }

    /** erf to double precision: Taylor series near zero, a continued fraction for erfc further out. */
    static double erf(double x) {
        double ax = Math.abs(x);
        double r;
        if (ax < 2.5) {
            double term = ax;
            double sum = ax;
            for (int n = 1; n < 200; n++) {
                term *= -ax * ax / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) < 1e-20) {
                    break;
                }
            }
            r = 2 / Math.sqrt(Math.PI) * sum;
        } else {
            // erfc(x) = exp(-x²)/√π · 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))), evaluated from the tail.
            double f = ax;
            for (int n = 200; n >= 1; n--) {
                f = ax + (n / 2.0) / f;
            }
            r = 1 - Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
        }
        return x < 0 ? -r : r;
    }

    static double gelu(double x) {
        return 0.5 * x * (1 + erf(x / Math.sqrt(2)));
    }

    static double geluTanh(double x) {
        return 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));
    }

    static float[] layerNorm(float[] x, int rows, int dim, float[] g, float[] b, double eps) {
        float[] y = new float[x.length];
        for (int r = 0; r < rows; r++) {
            double mean = 0;
            for (int i = 0; i < dim; i++) {
                mean += x[r * dim + i];
            }
            mean /= dim;
            double var = 0;
            for (int i = 0; i < dim; i++) {
                double d = x[r * dim + i] - mean;
                var += d * d;
            }
            var /= dim;
            for (int i = 0; i < dim; i++) {
                y[r * dim + i] = (float) ((x[r * dim + i] - mean) / Math.sqrt(var + eps) * g[i] + b[i]);
            }
        }
        return y;
    }

    static float[] softmax(float[] a) {
        double max = Double.NEGATIVE_INFINITY;
        for (float v : a) {
            max = Math.max(max, v);
        }
        double sum = 0;
        double[] e = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            e[i] = Math.exp(a[i] - max);
            sum += e[i];
        }
        float[] out = new float[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = (float) (e[i] / sum);
        }
        return out;
    }

    /** Attention of one sequence, all heads: ctx [seq, hidden]. */
    static float[] attention(float[] q, float[] k, float[] v, int seq, int hidden, int heads, float[] mask) {
        return attention(q, k, v, seq, hidden, heads, mask, null, 0, 0);
    }

    /**
     * The same with a relative bias on the odd heads' scores: query i's score of key j gets bias[biasOff + (j - i)], the
     * same table for each of them; and with a {@code window} above 0, query i sees only keys j with |i - j| <= window.
     */
    static float[] attention(float[] q, float[] k, float[] v, int seq, int hidden, int heads, float[] mask, float[] bias, int biasOff,
                             int window) {
        int d = hidden / heads;
        float[] ctx = new float[seq * hidden];
        for (int h = 0; h < heads; h++) {
            for (int i = 0; i < seq; i++) {
                float[] s = new float[seq];
                for (int j = 0; j < seq; j++) {
                    double dot = 0;
                    for (int c = 0; c < d; c++) {
                        dot += (double) q[i * hidden + h * d + c] * k[j * hidden + h * d + c];
                    }
                    double b = bias != null && h % 2 == 1 ? bias[biasOff + j - i] : 0;
                    s[j] = window > 0 && Math.abs(i - j) > window ? Float.NEGATIVE_INFINITY : (float) (dot / Math.sqrt(d) + b + mask[j]);
                }
                float[] p = softmax(s);
                for (int c = 0; c < d; c++) {
                    double acc = 0;
                    for (int j = 0; j < seq; j++) {
                        acc += (double) p[j] * v[j * hidden + h * d + c];
                    }
                    ctx[i * hidden + h * d + c] = (float) acc;
                }
            }
        }
        return ctx;
    }

    /**
     * Rotary positions in double, from nothing but the definition: row p of x ([count, hidden], heads of headSize) turned
     * at position p, each head's halves a, b becoming a·cos θ − b·sin θ and b·cos θ + a·sin θ, θ = p / base^(2i/d).
     */
    static double[] rotary(float[] x, int count, int hidden, int headSize, double base) {
        int half = headSize / 2;
        double[] out = new double[count * hidden];
        for (int p = 0; p < count; p++) {
            for (int h = p * hidden; h < (p + 1) * hidden; h += headSize) {
                for (int i = 0; i < half; i++) {
                    double angle = p / Math.pow(base, 2.0 * i / headSize);
                    double a = x[h + i];
                    double b = x[h + half + i];
                    out[h + i] = a * Math.cos(angle) - b * Math.sin(angle);
                    out[h + half + i] = b * Math.cos(angle) + a * Math.sin(angle);
                }
            }
        }
        return out;
    }
}
