package org.vectorbert.engine;

import org.vectorbert.loader.BertConfig;

/**
 * {@code attention.self}: the query, key and value projections, then scaled dot-product attention
 * in every head, softmax(q·kᵀ/√d + mask)·v. Leaves the heads' context, side by side, in ctx; the
 * projection after it is the layer's {@code attention.output}.
 *
 * @param query    query [hidden -> hidden]
 * @param key      key [hidden -> hidden]
 * @param value    value [hidden -> hidden]
 * @param heads    num_attention_heads
 * @param headSize hidden / heads
 */
record BertSelfAttention(PackedMatrix query, PackedMatrix key, PackedMatrix value, int heads, int headSize) {
    static BertSelfAttention load(Scope scope, BertConfig c) {
        int h = c.hiddenSize();
        return new BertSelfAttention(scope.child("query").linear(h, h), scope.child("key").linear(h, h),
                scope.child("value").linear(h, h), c.numAttentionHeads(), c.headSize());
    }

    /**
     * Attention over {@code in} ([rows, hidden]); the context goes to ws.ctx. With {@code probabilities}
     * ([size, heads, length, length]) the attention probabilities are kept there; without, each thread
     * computes its heads' in scratch of its own.
     */
    void forward(float[] in, Batch batch, Workspace ws, float[] probabilities) {
        int rows = batch.rows();
        int hidden = heads * headSize;
        query.apply(in, rows, ws.q);
        key.apply(in, rows, ws.k);
        value.apply(in, rows, ws.v);
        int seq = batch.length();
        int square = seq * seq;
        int keys = AttentionKernel.scratch(seq, headSize);
        Parallel.forRange(batch.size() * heads, 1, (from, to) -> {
            float[] scratch = AttentionKernel.scratch(square + keys);
            for (int task = from; task < to; task++) {
                int b = task / heads;
                int h = task % heads;
                float[] scores = probabilities != null ? probabilities : scratch;
                int scoresOff = probabilities != null ? task * square : 0;
                AttentionKernel.head(ws.q, ws.k, ws.v, hidden, b * seq, seq, h * headSize, headSize, ws.mask, b * seq,
                        scores, scoresOff, ws.ctx, scratch, square);
            }
        });
    }

    long bytes() {
        return query.bytes() + key.bytes() + value.bytes();
    }
}
