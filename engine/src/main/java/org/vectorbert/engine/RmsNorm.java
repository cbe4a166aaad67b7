package org.vectorbert.engine;

/**
 * An RMSNorm's weights: x / √(mean(x²) + eps) · weight over each row of {@code weight.length} (Qwen3's; Gemma's
 * 1 + weight is made at load).
 *
 * @param weight [width]
 * @param eps    config.json's rms_norm_eps
 */
record RmsNorm(float[] weight, float eps) {
    /** The RMSNorm at {@code scope} ({@code weight}) over rows of {@code width}. */
    static RmsNorm load(Scope scope, int width, double eps) {
        return new RmsNorm(scope.vector("weight", width), (float) eps);
    }

    /** Normalises {@code rows} rows of x into out (in place when out == x). */
    void apply(float[] x, int rows, float[] out) {
        Kernels.rmsNorm(x, rows, weight.length, weight, eps, out);
    }

    long bytes() {
        return 4L * weight.length;
    }
}
