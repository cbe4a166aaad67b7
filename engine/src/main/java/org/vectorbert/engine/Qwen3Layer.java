package org.vectorbert.engine;

import org.vectorbert.loader.Qwen3Config;

/**
 * {@code layers.N}: Qwen3's pre-norm decoder layer, as transformers' {@code Qwen3DecoderLayer}:
 * x += o_proj(attention(input_layernorm(x))); x += down_proj(silu(gate_proj(n)) ⊙ up_proj(n)), n = post_attention_layernorm(x).
 * The attention: q_proj and k_proj, each head's vector through q_norm / k_norm (one RMSNorm over head_dim shared by the
 * heads), rotary positions, then causal attention in which query head h reads key and value head h / (heads / kv_heads).
 *
 * @param inputNorm input_layernorm
 * @param query     self_attn.q_proj [hidden -> heads·d]
 * @param key       self_attn.k_proj [hidden -> kv_heads·d]
 * @param value     self_attn.v_proj [hidden -> kv_heads·d]
 * @param output    self_attn.o_proj [heads·d -> hidden]
 * @param queryNorm self_attn.q_norm [d]
 * @param keyNorm   self_attn.k_norm [d]
 * @param postNorm  post_attention_layernorm
 * @param mlp       mlp: gate_proj through the activation, up_proj, down_proj
 * @param hidden    hidden_size
 * @param heads     query heads
 * @param kvHeads   key and value heads
 * @param headSize  head_dim
 */
record Qwen3Layer(RmsNorm inputNorm, PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix output, RmsNorm queryNorm,
                  RmsNorm keyNorm, RmsNorm postNorm, GatedFeedForward mlp, int hidden, int heads, int kvHeads, int headSize) {
    static Qwen3Layer load(Scope scope, Qwen3Config c) {
        int h = c.hiddenSize();
        int d = c.headDim();
        int q = c.numAttentionHeads() * d;
        int kv = c.keyValueWidth();
        boolean bias = c.attentionBias();
        Scope attn = scope.child("self_attn");
        Scope mlp = scope.child("mlp");
        int inner = c.intermediateSize();
        return new Qwen3Layer(RmsNorm.load(scope.child("input_layernorm"), h, c.rmsNormEps()),
                attn.child("q_proj").linear(h, q, bias), attn.child("k_proj").linear(h, kv, bias), attn.child("v_proj").linear(h, kv, bias),
                attn.child("o_proj").linear(q, h, bias), RmsNorm.load(attn.child("q_norm"), d, c.rmsNormEps()),
                RmsNorm.load(attn.child("k_norm"), d, c.rmsNormEps()), RmsNorm.load(scope.child("post_attention_layernorm"), h, c.rmsNormEps()),
                new GatedFeedForward(mlp.child("gate_proj").linear(h, inner, false), mlp.child("up_proj").linear(h, inner, false),
                        mlp.child("down_proj").linear(inner, h, false), Activation.of(c.hiddenAct())),
                h, c.numAttentionHeads(), c.numKeyValueHeads(), d);
    }

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
        AttentionHeads.attend(layout, ws, heads, headSize, layout.starts(), layout.lengths(), null, null, AttentionKernel.CAUSAL,
                probabilities);
        output.apply(ws.ctx, rows, ws.t);
        Kernels.addInPlace(x, 0, ws.t, rows * hidden);
        postNorm.apply(x, rows, ws.t);
        mlp.apply(ws.t, rows, ws, ws.ctx);
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
                + postNorm.bytes() + mlp.bytes();
    }
}
