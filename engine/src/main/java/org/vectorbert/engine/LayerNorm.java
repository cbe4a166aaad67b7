package org.vectorbert.engine;

/**
 * A LayerNorm's weights: (x - mean)/√(var + eps)·weight + bias over each row.
 *
 * @param weight [hidden]
 * @param bias   [hidden]
 * @param eps    config.json's layer_norm_eps
 */
record LayerNorm(float[] weight, float[] bias, float eps) {
    /** The LayerNorm at {@code scope} over rows of {@code width} ({@code weight} and {@code bias}, or the legacy {@code gamma} and {@code beta}). */
    static LayerNorm load(Scope scope, int width, double eps) {
        return new LayerNorm(scope.vector("weight", width), scope.vector("bias", width), (float) eps);
    }

    /** Normalises {@code rows} rows of x into out (in place when out == x). */
    void apply(float[] x, int rows, float[] out) {
        Kernels.layerNorm(x, rows, weight.length, weight, bias, eps, out);
    }

    long bytes() {
        return 4L * (weight.length + bias.length);
    }
}
