package org.vectorbert.engine;

import org.vectorbert.loader.BertConfig;

/**
 * A LayerNorm's weights: (x - mean)/√(var + eps)·weight + bias over each row.
 *
 * @param weight [hidden]
 * @param bias   [hidden]
 * @param eps    config.json's layer_norm_eps
 */
record LayerNorm(float[] weight, float[] bias, float eps) {
    /** The LayerNorm at {@code scope} ({@code weight} and {@code bias}, or the legacy {@code gamma} and {@code beta}). */
    static LayerNorm load(Scope scope, BertConfig config) {
        int h = config.hiddenSize();
        return new LayerNorm(scope.vector("weight", h), scope.vector("bias", h), (float) config.layerNormEps());
    }

    /** Normalises {@code rows} rows of x into out (in place when out == x). */
    void apply(float[] x, int rows, float[] out) {
        RowKernels.layerNorm(x, rows, weight.length, weight, bias, eps, out);
    }

    long bytes() {
        return 4L * (weight.length + bias.length);
    }
}
