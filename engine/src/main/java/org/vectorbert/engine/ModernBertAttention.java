package org.vectorbert.engine;

import org.vectorbert.loader.ModernBertConfig;
import org.vectorbert.loader.Tensor;

/**
 * {@code layers.N.attn}: the fused {@code Wqkv} product (rows 0 .. h−1 the queries, h .. 2h−1 the keys, 2h .. 3h−1 the
 * values, each head after head), rotary positions on the queries and keys, scaled dot-product attention over the whole
 * sequence or, in a local layer, over the keys within the window, then {@code Wo}. Wqkv is packed as three matrices, one
 * per third of its rows: each output is the same dot product, and each lands in its own buffer.
 *
 * @param query    Wqkv's rows 0 .. h−1 [hidden -> hidden]
 * @param key      Wqkv's rows h .. 2h−1
 * @param value    Wqkv's rows 2h .. 3h−1
 * @param output   Wo [hidden -> hidden]
 * @param rotary   the cos and sin tables of this layer's base
 * @param window   how far a local layer's queries see on each side (local_attention / 2), or 0 for a global layer
 * @param heads    num_attention_heads
 * @param headSize hidden / heads
 */
record ModernBertAttention(PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix output, Rotary rotary,
                           int window, int heads, int headSize) {
    static ModernBertAttention load(Scope scope, ModernBertConfig c, Rotary rotary, int window) {
        int h = c.hiddenSize();
        boolean bias = c.attentionBias();
        Tensor w = scope.tensor("Wqkv.weight", 3L * h, h);
        Tensor b = bias ? scope.tensor("Wqkv.bias", 3L * h) : null;
        PackedMatrix[] qkv = new PackedMatrix[3];
        for (int i = 0; i < 3; i++) {
            qkv[i] = scope.packed(rows(w, (long) i * h, h), b == null ? null : rows(b, (long) i * h, h), scope.precision());
        }
        return new ModernBertAttention(qkv[0], qkv[1], qkv[2], scope.child("Wo").linear(h, h, bias), rotary, window,
                c.numAttentionHeads(), c.headSize());
    }

    /** Rows [from, from + count) of a matrix or a vector, a view named after the rows (the packed file's key). */
    static Tensor rows(Tensor t, long from, long count) {
        long width = t.shape().length == 2 ? t.shape()[1] : 1;
        long[] shape = t.shape().length == 2 ? new long[] {count, width} : new long[] {count};
        long bytes = t.dtype().bytes();
        return new Tensor(t.name() + "[" + from + ":" + (from + count) + "]", t.dtype(), shape,
                t.data().asSlice(from * width * bytes, count * width * bytes));
    }

    /**
     * Attention over {@code in} ([layout.rows(), hidden]), each sequence over its own rows, then Wo: the result goes to
     * {@code out}; ws.q and ws.k keep the rotated queries and keys. With {@code probabilities} ([size, heads, length,
     * length], padded layout only) the attention probabilities are kept there.
     */
    void forward(float[] in, RowLayout layout, Workspace ws, float[] probabilities, float[] out) {
        int rows = layout.rows();
        int hidden = heads * headSize;
        query.apply(in, rows, ws.q);
        key.apply(in, rows, ws.k);
        value.apply(in, rows, ws.v);
        for (int b = 0; b < layout.starts().length; b++) {
            Kernels.rotary(ws.q, layout.starts()[b], layout.lengths()[b], hidden, headSize, rotary.cos(), rotary.sin());
            Kernels.rotary(ws.k, layout.starts()[b], layout.lengths()[b], hidden, headSize, rotary.cos(), rotary.sin());
        }
        AttentionHeads.attend(layout, ws, heads, headSize, layout.starts(), layout.lengths(), null, null, window, probabilities);
        output.apply(ws.ctx, rows, out);
    }

    long bytes() {
        return query.bytes() + key.bytes() + value.bytes() + output.bytes();
    }
}
