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
        return load(scope, config.hiddenSize(), config);
    }

    /** The same over rows of {@code width} (ELECTRA's embeddings are narrower than its hidden state). */
    static LayerNorm load(Scope scope, int width, BertConfig config) {
        return new LayerNorm(scope.vector("weight", width), scope.vector("bias", width), (float) config.layerNormEps());
    }

    /** Normalises {@code rows} rows of x into out (in place when out == x). */
    void apply(float[] x, int rows, float[] out) {
        Kernels.layerNorm(x, rows, weight.length, weight, bias, eps, out);
    }

    long bytes() {
        return 4L * (weight.length + bias.length);
    }
}
