package org.vectorbert.engine;

import java.util.Arrays;

/**
 * A forward pass's working buffers, sized by the batch's positions. A model keeps the last pass's
 * for the next, so steady-state passes allocate only their outputs; a larger batch replaces it with
 * one rounded up to a whole number of {@link #STEP} positions, so a stream of growing batches
 * replaces it a few times, not once per batch (each replacement is garbage the size of all of it).
 * Attention keeps no [heads, length, length] buffer here: its probabilities are per-thread scratch
 * ({@link AttentionKernel#scratch()}) unless a request asks for them.
 */
final class Workspace {
    /** Positions a workspace grows by. */
    static final int STEP = 1024;
    /** Rows the feed-forward block works on at a time ({@link BertLayer}): {@link #inner} holds that many. */
    static final int FEED_FORWARD_ROWS = 256;

    final int hidden;
    final int rows;          // positions the buffers hold: batch.rows() or more
    final float[] x;         // [rows, hidden]: the hidden state, layer after layer
    final float[] mask;      // [rows]: 0 for a real token, the float minimum for padding (an additive mask)
    final float[] q;         // [rows, hidden]: queries
    final float[] k;         // [rows, hidden]: keys
    final float[] v;         // [rows, hidden]: values
    final float[] ctx;       // [rows, hidden]: attention context, and scratch
    final float[] t;         // [rows, hidden]: scratch
    final float[] inner;     // [FEED_FORWARD_ROWS, intermediate]: the feed-forward block's inside, a slice of rows at a time

    /** Buffers for {@code batch} through layers {@code hidden} wide with a feed-forward block {@code intermediate} wide inside. */
    Workspace(Batch batch, int hidden, int intermediate) {
        this.hidden = hidden;
        rows = (batch.rows() + STEP - 1) / STEP * STEP;
        x = new float[rows * hidden];
        mask = new float[rows];
        q = new float[rows * hidden];
        k = new float[q.length];
        v = new float[q.length];
        ctx = new float[q.length];
        t = new float[q.length];
        inner = new float[Math.min(rows, FEED_FORWARD_ROWS) * intermediate];
    }

    boolean fits(Batch batch) {
        return batch.rows() <= rows;
    }

    /** Sets the attention mask for {@code batch} in {@code layout}: keys past each sequence's real length are masked out. */
    void maskPadding(Batch batch, RowLayout layout) {
        Arrays.fill(mask, 0, layout.rows(), 0f);
        for (int b = 0; b < batch.size(); b++) {
            int start = layout.starts()[b];
            Arrays.fill(mask, start + batch.lengths()[b], start + layout.lengths()[b], -Float.MAX_VALUE);
        }
    }
}
