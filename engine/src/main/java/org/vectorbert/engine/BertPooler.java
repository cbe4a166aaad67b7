package org.vectorbert.engine;

import org.vectorbert.loader.BertConfig;

/**
 * {@code bert.pooler}: tanh(W·h[CLS] + b), one vector per sequence. Checkpoints without it are common.
 *
 * @param dense dense [hidden -> hidden]
 */
record BertPooler(PackedMatrix dense) implements Head {
    /** The pooler at {@code scope}. */
    static BertPooler load(Scope scope, BertConfig c) {
        return new BertPooler(scope.child("dense").linear(c.hiddenSize(), c.hiddenSize()));
    }

    @Override
    public int width() {
        return dense.out;
    }

    /** tanh(W·x[row] + b) for each row asked (the first token of each sequence): [rows, hidden]. */
    @Override
    public float[] forward(float[] x, int[] rows) {
        float[] first = Head.gather(x, rows, dense.in);
        float[] pooled = new float[rows.length * dense.out];
        dense.apply(first, rows.length, pooled);
        Kernels.tanh(pooled, 0, pooled.length);
        return pooled;
    }

    @Override
    public long bytes() {
        return dense.bytes();
    }
}
