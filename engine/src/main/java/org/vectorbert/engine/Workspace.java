package org.vectorbert.engine;

import java.util.Arrays;
import org.vectorbert.loader.BertConfig;

/**
 * A forward pass's working buffers, sized for a batch. A model keeps the last pass's for the next
 * (at least as large as the one it replaces), so steady-state passes allocate only their outputs.
 */
final class Workspace {
    final int heads;
    final int rows;
    final int scoreCount;
    final int scratchCount;
    final float[] mask;      // [rows]: 0 for a real token, the float minimum for padding (an additive mask)
    final float[] q;         // [rows, hidden]: queries
    final float[] k;         // [rows, hidden]: keys
    final float[] v;         // [rows, hidden]: values
    final float[] ctx;       // [rows, hidden]: attention context, and scratch
    final float[] t;         // [rows, hidden]: scratch
    final float[] inner;     // [rows, intermediate]: the feed-forward block's inside
    final float[] scores;    // [size, heads, length, length]: attention probabilities
    final float[] keysT;     // per sequence and head: transposed keys and a lane sum (AttentionKernel.scratch)

    Workspace(Batch batch, BertConfig c, Workspace old) {
        heads = c.numAttentionHeads();
        rows = Math.max(batch.rows(), old == null ? 0 : old.rows);
        scoreCount = Math.max(scores(batch, c), old == null ? 0 : old.scoreCount);
        scratchCount = Math.max(scratch(batch, c), old == null ? 0 : old.scratchCount);
        mask = new float[rows];
        q = new float[rows * c.hiddenSize()];
        k = new float[q.length];
        v = new float[q.length];
        ctx = new float[q.length];
        t = new float[q.length];
        inner = new float[rows * c.intermediateSize()];
        scores = new float[scoreCount];
        keysT = new float[scratchCount];
    }

    boolean fits(Batch batch, BertConfig c) {
        return batch.rows() <= rows && scores(batch, c) <= scoreCount && scratch(batch, c) <= scratchCount;
    }

    /** Sets the attention mask for {@code batch}: keys past each sequence's length are masked out. */
    void maskPadding(Batch batch) {
        int seq = batch.length();
        Arrays.fill(mask, 0, batch.rows(), 0f);
        for (int b = 0; b < batch.size(); b++) {
            Arrays.fill(mask, b * seq + batch.lengths()[b], (b + 1) * seq, -Float.MAX_VALUE);
        }
    }

    /** Floats of the attention probabilities of {@code batch}: one seq x seq block per sequence and head. */
    int scoreFloats(Batch batch) {
        return batch.size() * heads * batch.length() * batch.length();
    }

    private static int scores(Batch batch, BertConfig c) {
        return batch.size() * c.numAttentionHeads() * batch.length() * batch.length();
    }

    /** Attention scratch: one block per sequence and head. */
    private static int scratch(Batch batch, BertConfig c) {
        return batch.size() * c.numAttentionHeads() * AttentionKernel.scratch(batch.length(), c.headSize());
    }
}
