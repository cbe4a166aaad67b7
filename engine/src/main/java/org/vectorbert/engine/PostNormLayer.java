package org.vectorbert.engine;

/**
 * A post-LN layer with positions in its attention (rotary, or a bias on the scores such as ALiBi) and a gated
 * feed-forward, as NomicBERT's {@code NomicBertBlock}, GTE's {@code NewLayer} and JinaBERT's {@code JinaBertLayer} are:
 * x = attnNorm(x + output(attention(rotary(q), rotary(k), v) + bias)); x = mlpNorm(x + mlp(x)). A fused qkv projection is
 * packed as three matrices, one per third of its rows. jina-bert-v2-qk-post-norm's layer (jina-embeddings-v2-base-code)
 * adds three norms: over the whole query and key projections, and after adding the layer's input a second time:
 * a = attnNorm(x + output(...)); x = residualNorm(x + a); x = mlpNorm(x + mlp(x)).
 *
 * @param query    the queries' rows of the fused projection [hidden -> hidden], head after head
 * @param key      the keys' rows
 * @param value    the values' rows
 * @param output   the attention's output projection [hidden -> hidden]
 * @param attnNorm the LayerNorm after the attention's residual
 * @param mlp      the gated feed-forward block
 * @param mlpNorm  the LayerNorm after the feed-forward's residual
 * @param heads    attention heads
 * @param headSize hidden / heads
 * @param queryNorm    a LayerNorm over each row of the queries before the heads split, or null
 * @param keyNorm      the same over the keys, or null
 * @param residualNorm the LayerNorm after the attention block's output and the layer's input are added, or null
 */
record PostNormLayer(PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix output, LayerNorm attnNorm,
                     GatedFeedForward mlp, LayerNorm mlpNorm, int heads, int headSize, LayerNorm queryNorm, LayerNorm keyNorm,
                     LayerNorm residualNorm) {
    /** The layer without the qk-post-norm variant's three norms. */
    PostNormLayer(PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix output, LayerNorm attnNorm,
                  GatedFeedForward mlp, LayerNorm mlpNorm, int heads, int headSize) {
        this(query, key, value, output, attnNorm, mlp, mlpNorm, heads, headSize, null, null, null);
    }

    /**
     * Runs the layer over x ([layout.rows(), hidden]) in place with the rotary tables of this pass or a bias on the scores
     * (either may be null); attention probabilities go to {@code probabilities} when not null. ws.q and ws.k keep the
     * (rotated) queries and keys.
     */
    void forward(float[] x, RowLayout layout, Workspace ws, Rotary rotary, RelativePositionBias bias, float[] probabilities) {
        int rows = layout.rows();
        int hidden = heads * headSize;
        query.apply(x, rows, ws.q);
        key.apply(x, rows, ws.k);
        value.apply(x, rows, ws.v);
        if (queryNorm != null) {
            queryNorm.apply(ws.q, rows, ws.q);
            keyNorm.apply(ws.k, rows, ws.k);
        }
        for (int b = 0; rotary != null && b < layout.starts().length; b++) {
            Kernels.rotary(ws.q, layout.starts()[b], layout.lengths()[b], hidden, headSize, rotary.cos(), rotary.sin());
            Kernels.rotary(ws.k, layout.starts()[b], layout.lengths()[b], hidden, headSize, rotary.cos(), rotary.sin());
        }
        AttentionHeads.attend(layout, ws, heads, headSize, layout.starts(), layout.lengths(), null, bias, 0, probabilities);
        output.apply(ws.ctx, rows, ws.t);
        if (residualNorm == null) {
            Kernels.addInPlace(x, 0, ws.t, rows * hidden);
            attnNorm.apply(x, rows, x);
        } else {
            Kernels.addInPlace(ws.t, 0, x, rows * hidden);
            attnNorm.apply(ws.t, rows, ws.t);
            Kernels.addInPlace(x, 0, ws.t, rows * hidden);
            residualNorm.apply(x, rows, x);
        }
        mlp.apply(x, rows, ws, ws.ctx);
        Kernels.addInPlace(x, 0, ws.ctx, rows * hidden);
        mlpNorm.apply(x, rows, x);
    }

    long bytes() {
        return query.bytes() + key.bytes() + value.bytes() + output.bytes() + attnNorm.bytes() + mlp.bytes() + mlpNorm.bytes()
                + (queryNorm == null ? 0 : queryNorm.bytes() + keyNorm.bytes() + residualNorm.bytes());
    }
}
