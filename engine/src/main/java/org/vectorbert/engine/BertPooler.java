package org.vectorbert.engine;

import java.util.Optional;
import org.vectorbert.loader.BertConfig;

/**
 * {@code bert.pooler}: tanh(W·h[CLS] + b), one vector per sequence. Checkpoints without it are common.
 *
 * @param dense dense [hidden -> hidden]
 */
record BertPooler(PackedMatrix dense) {
    /** The pooler at {@code scope}, or empty when the checkpoint has none. */
    static Optional<BertPooler> load(Scope scope, BertConfig c) {
        if (!isIn(scope)) {
            return Optional.empty();
        }
        return Optional.of(new BertPooler(scope.child("dense").linear(c.hiddenSize(), c.hiddenSize())));
    }

    /** Whether the checkpoint has a pooler at {@code scope}: the one rule {@link #load} and {@code inspect} share. */
    static boolean isIn(Scope scope) {
        return scope.has("dense.weight") || scope.has("dense.bias");
    }

    /** tanh(W·x[first token of each sequence] + b): [size, hidden]. */
    float[] forward(float[] x, Batch batch) {
        int hidden = dense.in;
        float[] first = new float[batch.size() * hidden];
        for (int b = 0; b < batch.size(); b++) {
            System.arraycopy(x, b * batch.length() * hidden, first, b * hidden, hidden);
        }
        float[] pooled = new float[batch.size() * hidden];
        dense.apply(first, batch.size(), pooled);
        RowKernels.tanh(pooled, 0, pooled.length);
        return pooled;
    }

    long bytes() {
        return dense.bytes();
    }
}
