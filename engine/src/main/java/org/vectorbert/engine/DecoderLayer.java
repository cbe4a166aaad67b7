package org.vectorbert.engine;

/**
 * A pre-norm decoder layer with grouped-query attention, as Qwen3's {@code Qwen3DecoderLayer} and Gemma 3's
 * {@code Gemma3DecoderLayer} are: x += attnOutNorm(o_proj(attention(inputNorm(x)))); x += mlpOutNorm(mlp(mlpNorm(x))), the
 * two out-norms Gemma's "sandwich" (absent in Qwen3). The attention: q_proj and k_proj, each head's vector through q_norm /
 * k_norm (one RMSNorm over head_dim shared by the heads), rotary positions, then attention in which query head h reads
 * key and value head h / (heads / kv_heads): causal, over every key, or over a window of keys on either side.
 *
 * @param inputNorm   the norm before the attention (input_layernorm)
 * @param query       q_proj [hidden -> heads·d]
 * @param key         k_proj [hidden -> kv_heads·d]
 * @param value       v_proj [hidden -> kv_heads·d]
 * @param output      o_proj [heads·d -> hidden]
 * @param queryNorm   q_norm [d], with any scale of the scores other than 1/√d folded in
 * @param keyNorm     k_norm [d]
 * @param attnOutNorm the norm of the attention's output before the residual, or null
 * @param mlpNorm     the norm before the feed-forward
 * @param mlp         gate_proj through the activation, up_proj, down_proj
 * @param mlpOutNorm  the norm of the feed-forward's output before the residual, or null
 * @param hidden      hidden_size
 * @param heads       query heads
 * @param kvHeads     key and value heads
 * @param headSize    head_dim
 * @param window      {@link AttentionKernel#CAUSAL}, 0 for every key, or how far a query sees on each side
 * @param table       which of the model's rotary tables the layer turns its queries and keys by
 */
record DecoderLayer(RmsNorm inputNorm, PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix output, RmsNorm queryNorm,
                    RmsNorm keyNorm, RmsNorm attnOutNorm, RmsNorm mlpNorm, GatedFeedForward mlp, RmsNorm mlpOutNorm, int hidden, int heads,
                    int kvHeads, int headSize, int window, int table) {
    /**
     * Runs the layer over x ([layout.rows(), hidden]) in place with this pass's rotary table; attention probabilities go to
     * {@code probabilities} when not null. ws.q keeps the rotated queries, ws.k the keys, each query head's.
     */
    void forward(float[] x, RowLayout layout, Workspace ws, Rotary rotary, float[] probabilities) {
        int rows = layout.rows();
        int width = heads * headSize;
        int kvWidth = kvHeads * headSize;
        inputNorm.apply(x, rows, ws.t);
        query.apply(ws.t, rows, ws.q);
        queryNorm.apply(ws.q, rows * heads, ws.q);
        float[] keys = kvHeads == heads ? ws.k : ws.ctx;
        key.apply(ws.t, rows, keys);
        keyNorm.apply(keys, rows * kvHeads, keys);
        for (int b = 0; b < layout.starts().length; b++) {
            Kernels.rotary(ws.q, layout.starts()[b], layout.lengths()[b], width, headSize, rotary.cos(), rotary.sin());
            Kernels.rotary(keys, layout.starts()[b], layout.lengths()[b], kvWidth, headSize, rotary.cos(), rotary.sin());
        }
        if (kvHeads == heads) {
            value.apply(ws.t, rows, ws.v);
        } else {
            shareHeads(keys, rows, ws.k);
            value.apply(ws.t, rows, ws.ctx);
            shareHeads(ws.ctx, rows, ws.v);
        }
        AttentionHeads.attend(layout, ws, heads, headSize, layout.starts(), layout.lengths(), null, null, window, probabilities);
        output.apply(ws.ctx, rows, ws.t);
        if (attnOutNorm != null) {
            attnOutNorm.apply(ws.t, rows, ws.t);
        }
        Kernels.addInPlace(x, 0, ws.t, rows * hidden);
        mlpNorm.apply(x, rows, ws.t);
        mlp.apply(ws.t, rows, ws, ws.ctx);
        if (mlpOutNorm != null) {
            mlpOutNorm.apply(ws.ctx, rows, ws.ctx);
        }
        Kernels.addInPlace(x, 0, ws.ctx, rows * hidden);
    }

    /** Grouped-query attention's sharing: each key/value head's columns copied to the query heads that read it (repeat_kv). */
    private void shareHeads(float[] kv, int rows, float[] out) {
        int groups = heads / kvHeads;
        int width = heads * headSize;
        int kvWidth = kvHeads * headSize;
        Parallel.forRange(rows, 64, (from, to) -> {
            for (int r = from; r < to; r++) {
                for (int h = 0; h < heads; h++) {
                    System.arraycopy(kv, r * kvWidth + h / groups * headSize, out, r * width + h * headSize, headSize);
                }
            }
        });
    }

    long bytes() {
        return inputNorm.bytes() + query.bytes() + key.bytes() + value.bytes() + output.bytes() + queryNorm.bytes() + keyNorm.bytes()
                + (attnOutNorm == null ? 0 : attnOutNorm.bytes()) + mlpNorm.bytes() + mlp.bytes() + (mlpOutNorm == null ? 0 : mlpOutNorm.bytes());
    }
}
