package org.vectorbert.engine;

import java.util.Arrays;
import org.vectorbert.loader.DebertaV2Config;

/**
 * DeBERTa-v2's disentangled self-attention (transformers' {@code DisentangledSelfAttention}): each head's scores are
 * (q·k + c2p + p2c)/√(d·f), f = 1 + the relative terms it has, with c2p[i][j] = q_i·posKey[δ] and p2c[i][j] = k_j·posQuery[δ],
 * δ = the relative embedding row of distance i − j ({@link #index}). The position keys and queries are the layer's
 * projections of the normalised relative embeddings, weights only, so they are made once when the model loads, already
 * divided by √d (keys; the queries are divided by √f at run time) or √(d·f) (position queries). Per sequence and head the two
 * [seq, 2·span] products go through the matrix kernel, and their entries gathered by δ become the attention kernel's
 * bias rows.
 *
 * @param query           query_proj [hidden -> hidden]
 * @param key             key_proj
 * @param value           value_proj
 * @param positionKeys    per head, the position keys [2·span, head size] for c2p, or null without c2p
 * @param positionQueries per head, the position queries [2·span, head size] for p2c, or null without p2c
 * @param index           the relative embedding row of each distance, or null without relative attention
 * @param heads           attention heads
 * @param headSize        hidden / heads
 * @param queryScale      1/√f: the queries' share of the scale (the kernel divides by √d)
 */
record DebertaAttention(PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix[] positionKeys,
                        PackedMatrix[] positionQueries, RelativeIndex index, int heads, int headSize, float queryScale) {
    /**
     * The relative embedding row of every distance i − j a sequence of up to {@code maxTokens} tokens has, as
     * {@code build_relative_position} and the clamp of {@code disentangled_attention_bias} give it.
     *
     * @param rows  the row of distance d at d + maxTokens − 1
     * @param width rows of the relative embeddings used: 2·span
     */
    record RelativeIndex(int[] rows, int width) {
        static RelativeIndex of(DebertaV2Config c) {
            int n = c.maxTokens();
            int span = c.relativeSpan();
            int[] rows = new int[2 * n - 1];
            for (int d = -(n - 1); d < n; d++) {
                int r = c.positionBuckets() > 0 ? bucket(d, c.positionBuckets(), c.maxRelativePositions()) : d;
                rows[d + n - 1] = Math.clamp(r + span, 0, 2 * span - 1);
            }
            return new RelativeIndex(rows, 2 * span);
        }
    }

    /**
     * transformers' {@code make_log_bucket_position} for one distance: exact within half the buckets, log-spaced beyond,
     * up to {@code maxPosition}; the ratio, the logs and the product in float32, as torch computes them.
     */
    static int bucket(int relative, int buckets, int maxPosition) {
        int mid = buckets / 2;
        int abs = relative < mid && relative > -mid ? mid - 1 : Math.abs(relative);
        if (abs <= mid) {
            return relative;
        }
        float log = (float) Math.log((float) abs / (float) mid);
        float base = (float) Math.log((float) ((maxPosition - 1) / (double) mid));
        float position = (float) Math.ceil(log / base * (float) (mid - 1)) + mid;
        return (int) position * Integer.signum(relative);
    }

    /** Queries whose bias rows are made at a time: the bias grows with the keys, not with their square. */
    static final int QUERY_CHUNK = 256;

    /** A thread's buffers for one head of one sequence: a chunk's queries, the keys, the two products and the chunk's bias rows. */
    private static final class Scratch {
        float[] q = new float[0];
        float[] k = new float[0];
        float[] c2p = new float[0];
        float[] p2c = new float[0];
        float[] bias = new float[0];
        int[] biasRows = new int[0];

        void fit(int seq, int headSize, int width, int stride) {
            if (k.length < seq * headSize) {
                k = new float[seq * headSize];
            }
            if (p2c.length < seq * width) {
                p2c = new float[seq * width];
            }
            if (q.length < QUERY_CHUNK * headSize) {
                q = new float[QUERY_CHUNK * headSize];
                biasRows = new int[QUERY_CHUNK];
            }
            if (c2p.length < QUERY_CHUNK * width) {
                c2p = new float[QUERY_CHUNK * width];
            }
            if (bias.length < QUERY_CHUNK * stride) {
                bias = new float[QUERY_CHUNK * stride];
            }
        }
    }

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /**
     * Attention over x ([layout.rows(), hidden]), each sequence over its own rows; the context goes to ws.ctx. With
     * {@code probabilities} ([size, heads, length, length], padded layout only) they are kept there.
     */
    void forward(float[] x, RowLayout layout, Workspace ws, float[] probabilities) {
        int rows = layout.rows();
        int hidden = heads * headSize;
        query.apply(x, rows, ws.q);
        key.apply(x, rows, ws.k);
        value.apply(x, rows, ws.v);
        if (queryScale != 1f) {
            for (int i = 0; i < rows * hidden; i++) {
                ws.q[i] *= queryScale;
            }
        }
        if (index == null) {     // relative_attention false: BERT's attention, at DeBERTa's scale
            AttentionHeads.attend(layout, ws, heads, headSize, layout.starts(), layout.lengths(), null, null, 0, probabilities);
            return;
        }
        int longest = layout.longest();
        int work = Kernels.attentionScratch(longest, headSize);
        Parallel.forRange(layout.starts().length * heads, 1, (from, to) -> {
            float[] scratch = Kernels.attentionScratch(work);
            Scratch s = SCRATCH.get();
            for (int task = from; task < to; task++) {
                int b = task / heads;
                int h = task % heads;
                int seq = layout.lengths()[b];
                int row0 = layout.starts()[b];
                if (seq == 0) {
                    continue;
                }
                positionsOfKeys(ws, row0, seq, h, s);
                for (int c0 = 0; c0 < seq; c0 += QUERY_CHUNK) {
                    int queries = Math.min(QUERY_CHUNK, seq - c0);
                    bias(ws, row0, seq, c0, queries, h, s);
                    Kernels.attention(ws.q, row0 + c0, queries, ws.k, ws.v, hidden, row0, seq, h * headSize, headSize, ws.mask, row0,
                            s.bias, s.biasRows, null, 0, probabilities, task * longest * longest + c0 * seq, ws.ctx, scratch, 0);
                }
            }
        });
    }

    /** Head h's keys of the sequence at row0 and, with p2c, their products with the position queries: [seq, 2·span]. */
    private void positionsOfKeys(Workspace ws, int row0, int seq, int h, Scratch s) {
        int hidden = heads * headSize;
        s.fit(seq, headSize, index.width(), Kernels.keyStride(seq));
        for (int i = 0; i < seq; i++) {
            System.arraycopy(ws.k, (row0 + i) * hidden + h * headSize, s.k, i * headSize, headSize);
        }
        if (positionQueries != null) {
            MatMul.linear(s.k, 0, seq, positionQueries[h], s.p2c, 0);
        }
    }

    /**
     * Head h's bias rows for queries c0 .. c0 + queries − 1 of the sequence at row0:
     * bias[i·stride + j] = c2p[i][δ(i − j)] + p2c[j][δ(i − j)], 0 past the keys.
     */
    private void bias(Workspace ws, int row0, int seq, int c0, int queries, int h, Scratch s) {
        int hidden = heads * headSize;
        int width = index.width();
        int stride = Kernels.keyStride(seq);
        if (positionKeys != null) {
            for (int i = 0; i < queries; i++) {
                System.arraycopy(ws.q, (row0 + c0 + i) * hidden + h * headSize, s.q, i * headSize, headSize);
            }
            MatMul.linear(s.q, 0, queries, positionKeys[h], s.c2p, 0);
        }
        int[] rowOf = index.rows();
        int middle = (rowOf.length - 1) / 2;
        for (int i = 0; i < queries; i++) {
            int out = i * stride;
            int at = middle + c0 + i;
            s.biasRows[i] = out;
            if (positionKeys != null) {
                for (int j = 0; j < seq; j++) {
                    s.bias[out + j] = s.c2p[i * width + rowOf[at - j]];
                }
            } else {
                Arrays.fill(s.bias, out, out + seq, 0f);
            }
            if (positionQueries != null) {
                for (int j = 0; j < seq; j++) {
                    s.bias[out + j] += s.p2c[j * width + rowOf[at - j]];
                }
            }
            Arrays.fill(s.bias, out + seq, out + stride, 0f);
        }
    }

    long bytes() {
        long positions = 0;
        for (PackedMatrix[] m : new PackedMatrix[][] {positionKeys, positionQueries}) {
            for (int h = 0; m != null && h < m.length; h++) {
                positions += m[h].bytes();
            }
        }
        return query.bytes() + key.bytes() + value.bytes() + positions;
    }
}
