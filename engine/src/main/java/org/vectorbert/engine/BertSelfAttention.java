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
 * @param bias     the encoder's relative position bias on the scores (MPNet's), or null
 */
record BertSelfAttention(PackedMatrix query, PackedMatrix key, PackedMatrix value, int heads, int headSize,
                         RelativePositionBias bias) {
    static BertSelfAttention load(Scope scope, BertConfig c, RelativePositionBias bias) {
        int h = c.hiddenSize();
        return new BertSelfAttention(scope.child("query").linear(h, h), scope.child("key").linear(h, h),
                scope.child("value").linear(h, h), c.numAttentionHeads(), c.headSize(), bias);
    }

    /**
     * Attention over {@code in} ([layout.rows(), hidden]), each sequence over its own rows; the context goes to ws.ctx.
     * With {@code probabilities} ([size, heads, length, length], padded layout only) the attention probabilities are
     * kept there; without, each thread computes its heads' in scratch of its own.
     */
    void forward(float[] in, RowLayout layout, Workspace ws, float[] probabilities) {
        query.apply(in, layout.rows(), ws.q);
        key.apply(in, layout.rows(), ws.k);
        value.apply(in, layout.rows(), ws.v);
        AttentionHeads.attend(layout, ws, heads, headSize, layout.starts(), layout.lengths(), null, bias, 0, probabilities);
    }

    /**
     * Attention at the selected rows only: keys and values from every row of {@code in} ([layout.rows(), hidden]),
     * queries from {@code selected} (the selection's rows of in, gathered: [selection.size(), hidden]); the context goes
     * to rows 0 .. selection.size() - 1 of ws.ctx, each the floats {@link #forward} gives that row.
     */
    void forwardAt(float[] in, float[] selected, RowLayout layout, RowSelection selection, Workspace ws) {
        query.apply(selected, selection.size(), ws.q);
        key.apply(in, layout.rows(), ws.k);
        value.apply(in, layout.rows(), ws.v);
        AttentionHeads.attend(layout, ws, heads, headSize, selection.starts(), selection.counts(), selection, bias, 0, null);
    }

    long bytes() {
        return query.bytes() + key.bytes() + value.bytes();
    }
}
