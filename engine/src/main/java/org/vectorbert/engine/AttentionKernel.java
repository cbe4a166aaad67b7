package org.vectorbert.engine;

import static org.vectorbert.engine.Lanes.L;
import static org.vectorbert.engine.VectorMath.S;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

/**
 * Scaled dot-product attention of one sequence and one head: softmax(q·kᵀ/√d + mask)·v. Works for
 * any head size: columns of a head go four vectors at a time, then one, then a masked rest. The blocks
 * call it through {@link Kernels#attention}, which runs its plain twin instead when {@link PlainKernels} is active.
 */
final class AttentionKernel {
    private AttentionKernel() {}

    /** Query rows whose scores are held at a time: the scratch grows with the keys, not with their square. */
    static final int QUERY_CHUNK = 96;
    /**
     * Keys a chunk's queries go through together, in both passes: the block's transposed keys and values stay in cache
     * while every row of the chunk uses them (over a long sequence, a row's whole pass would not fit). A multiple of 2L.
     */
    static final int KEY_BLOCK = 256;
    /** Whether the scores go 4L keys at a time (24 accumulators, within 512-bit vectors' 32 registers), not 2L. */
    private static final boolean WIDE = L >= 16;
    /** The {@code window} of causal attention: query i sees the keys at positions up to its own (a decoder's mask). */
    static final int CAUSAL = -1;

    /**
     * Attention for one sequence and one head: its keys and values are rows [row0, row0+seq) of k and v ([rows, hidden]),
     * columns [col, col+headSize); its queries rows [qRow0, qRow0+queries) of q, the same rows as the keys for a whole
     * pass, or rows of their own (the last layer of a pass whose output is read at a few rows computes only those:
     * {@link BertLayer#forwardAt}; a query row's floats are the same whichever rows go with it). {@code mask} from
     * {@code maskOff} holds the additive mask per key (0 or the float minimum). The context goes to the query rows and
     * the same columns of {@code ctx}. {@code bias}, unless null, is added to the scaled, masked scores: query i's over
     * keys 0, 1, ... from {@code bias[biasRows[i]]} on, {@link Kernels#keyStride} floats (MPNet's relative positions,
     * {@link RelativePositionBias}). With a {@code window} above 0, query i (at position {@code positions[i]} of the
     * sequence, or i when positions is null) sees only the keys at most {@code window} positions away (a sliding-window
     * layer), and only the blocks of keys within reach of a chunk of queries are computed; with {@link #CAUSAL}, only the
     * keys at its position or before. {@code scores} from
     * {@code scoresOff}, unless null, receives the probabilities: queries·seq floats. {@code work} from {@code workOff}
     * is {@link Kernels#attentionScratch(int, int)} floats: the head's keys transposed, so a query row meets L keys per FMA
     * instead of one dot product (and one lane sum) per key, in blocks of 2L keys (d-major within a block, so the score
     * loop's index grows by a constant and C2 drops its bounds checks); the mask; the scores of
     * {@link #QUERY_CHUNK} query rows; the head's values in panels ({@link AttentionValues#context}); then each chunk
     * row's 1/Σ.
     *
     * <p>A row's softmax stops short of dividing: its weights e^(s - max) go to the values, and the weighted sum is
     * scaled by 1/Σ once (headSize multiplies where the division took seq), with every pass over the row's scores but
     * the maximum's fused into one ({@link RowKernels#softmaxWeights}).
     *
     * <p>Every row there is {@link Kernels#keyStride} floats, whole pairs of vectors: keys past the sequence are zero, their
     * mask -∞, so their probabilities are exactly 0 and every sum, and so every bit, is as it was. The kernels then run
     * whole vectors only, the same branches for every length: otherwise C2, which compiles a branch it has not seen taken
     * as a trap, deoptimizes the kernel when the first text longer than a corpus's short first ones arrives. Keys a window
     * leaves out likewise have probability exactly 0, so skipping whole blocks of them changes no bit.
     */
    static void head(float[] q, int qRow0, int queries, float[] k, float[] v, int hidden, int row0, int seq, int col,
                     int headSize, float[] mask, int maskOff, float[] bias, int[] biasRows, int[] positions, int window,
                     float[] scores, int scoresOff, float[] ctx, float[] work, int workOff) {
        int stride = Kernels.keyStride(seq);
        int maskRow = workOff + headSize * stride;
        int rows = maskRow + stride;
        for (int j0 = 0; j0 < stride; j0 += 2 * L) {
            int n = Math.min(2 * L, seq - j0);
            for (int d = 0; d < headSize; d++) {
                int t = workOff + j0 * headSize + d * (2 * L);
                for (int j = 0; j < n; j++) {
                    work[t + j] = k[(row0 + j0 + j) * hidden + col + d];
                }
                Arrays.fill(work, t + n, t + 2 * L, 0f);
            }
        }
        // The head's values, in panels of 4L columns key after key, so the weighted sums load them contiguously.
        int c4 = headSize / (4 * L) * (4 * L);
        int panels = rows + Math.min(seq, QUERY_CHUNK) * stride;
        for (int c = 0; c < c4; c += 4 * L) {
            for (int j = 0; j < seq; j++) {
                System.arraycopy(v, (row0 + j) * hidden + col + c, work, panels + c * stride + j * 4 * L, 4 * L);
            }
        }
        int inverses = panels + headSize * stride;
        System.arraycopy(mask, maskOff, work, maskRow, seq);
        Arrays.fill(work, maskRow + seq, maskRow + stride, Float.NEGATIVE_INFINITY);
        float scale = (float) (1.0 / Math.sqrt(headSize));
        boolean windowed = window > 0 && window < seq - 1;
        boolean causal = window == CAUSAL;
        for (int c0 = 0; c0 < queries; c0 += QUERY_CHUNK) {
            int c1 = Math.min(queries, c0 + QUERY_CHUNK);
            // The keys this chunk's queries can see, in whole blocks of 2L.
            int from = 0;
            int to = stride;
            if (windowed) {
                int first = Integer.MAX_VALUE;
                int last = 0;
                for (int i = c0; i < c1; i++) {
                    int p = positions == null ? i : positions[i];
                    first = Math.min(first, p);
                    last = Math.max(last, p);
                }
                from = Math.max(0, first - window) / (2 * L) * (2 * L);
                to = Math.min(stride, (last + window + 2 * L) / (2 * L) * (2 * L));
            } else if (causal) {
                int last = 0;
                for (int i = c0; i < c1; i++) {
                    last = Math.max(last, positions == null ? i : positions[i]);
                }
                to = Math.min(stride, (last + 2 * L) / (2 * L) * (2 * L));
            }
            // Six query rows at a time: each key vector loaded feeds six independent FMA chains (one row alone waits on
            // each FMA's latency); with two key vectors, twelve accumulators, as in the matrix kernel's tile.
            // A last group of fewer rows repeats its last row: the same FMAs, into the same place.
            // Each row's maximum (its bias added) is taken a block at a time from the scores just written, while they are in
            // L1, rather than by a pass of its own that read the chunk's scores back from L3 (docs/notes/bench-kernels.md).
            // Where a window or causal mask is still to come, that pass remains.
            boolean blockMax = !windowed && !causal;
            for (int j0 = from; j0 < to; j0 += KEY_BLOCK) {
                int j1 = Math.min(to, j0 + KEY_BLOCK);
                for (int i = c0; i < c1; i += 6) {
                    scores(q, (qRow0 + i) * hidden + col, hidden, Math.min(6, c1 - i), headSize, work, workOff, stride, j0, j1,
                            scale, maskRow, rows + (i - c0) * stride);
                    for (int r = i; blockMax && r < Math.min(c1, i + 6); r++) {
                        float m = RowKernels.rowMax(work, rows + (r - c0) * stride + j0, j1 - j0, bias,
                                bias == null ? 0 : biasRows[r] + j0);
                        work[inverses + r - c0] = j0 == from ? m : Math.max(work[inverses + r - c0], m);
                    }
                }
            }
            for (int i = c0; i < c1; i++) {
                int r = rows + (i - c0) * stride;
                if (windowed) {
                    int p = positions == null ? i : positions[i];
                    for (int j = from; j < to; j++) {
                        if (Math.abs(j - p) > window) {
                            work[r + j] = Float.NEGATIVE_INFINITY;
                        }
                    }
                }
                if (causal) {
                    int p = positions == null ? i : positions[i];
                    Arrays.fill(work, r + Math.min(to, p + 1), r + to, Float.NEGATIVE_INFINITY);
                }
                float inv = blockMax ? 1f / VectorMath.weights(work, r + from, to - from, work[inverses + i - c0])
                        : RowKernels.softmaxWeights(work, r + from, to - from, bias, bias == null ? 0 : biasRows[i] + from);
                work[inverses + i - c0] = inv;
                if (scores != null) {
                    int out = scoresOff + i * seq;
                    Arrays.fill(scores, out, out + seq, 0f);
                    for (int j = from; j < Math.min(to, seq); j++) {
                        scores[out + j] = work[r + j] * inv;
                    }
                }
            }
            AttentionValues.context(v, hidden, row0, Math.min(to, seq), from, col, headSize, work, rows - c0 * stride, stride,
                    ctx, qRow0, c0, c1, panels);
            for (int i = c0; i < c1; i++) {
                int out = (qRow0 + i) * hidden + col;
                FloatVector inv = FloatVector.broadcast(S, work[inverses + i - c0]);
                for (int c = 0; c < headSize; c += L) {
                    VectorMask<Float> m = S.indexInRange(c, headSize);
                    FloatVector.fromArray(S, ctx, out + c, m).mul(inv).intoArray(ctx, out + c, m);
                }
            }
        }
    }

    /**
     * {@link #scores} four blocks of L keys at a time (two of the transposed keys' blocks of 2L), for 24 accumulators,
     * while at least 4L keys are left; returns the first key left. With 512-bit vectors ({@link #WIDE}).
     */
    private static int wideScores(float[] q, int qa, int qb, int qc, int qd, int qe, int qf, int headSize, float[] w,
                                  int keysOff, int from, int to, float scale, int maskRow, int sa, int sb, int sc, int sd,
                                  int se, int sf) {
        int j = from;
        for (; j + 4 * L <= to; j += 4 * L) {
            FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
            FloatVector c0 = a0, c1 = a0, c2 = a0, c3 = a0, d0 = a0, d1 = a0, d2 = a0, d3 = a0;
            FloatVector e0 = a0, e1 = a0, e2 = a0, e3 = a0, f0 = a0, f1 = a0, f2 = a0, f3 = a0;
            int block = keysOff + j * headSize;
            int next = block + 2 * L * headSize;
            for (int d = 0; d < headSize; d++) {
                int t = block + d * (2 * L);
                int u2 = next + d * (2 * L);
                FloatVector k0 = FloatVector.fromArray(S, w, t);
                FloatVector k1 = FloatVector.fromArray(S, w, t + L);
                FloatVector k2 = FloatVector.fromArray(S, w, u2);
                FloatVector k3 = FloatVector.fromArray(S, w, u2 + L);
                FloatVector u = FloatVector.broadcast(S, q[qa + d]);
                a0 = k0.fma(u, a0);
                a1 = k1.fma(u, a1);
                a2 = k2.fma(u, a2);
                a3 = k3.fma(u, a3);
                u = FloatVector.broadcast(S, q[qb + d]);
                b0 = k0.fma(u, b0);
                b1 = k1.fma(u, b1);
                b2 = k2.fma(u, b2);
                b3 = k3.fma(u, b3);
                u = FloatVector.broadcast(S, q[qc + d]);
                c0 = k0.fma(u, c0);
                c1 = k1.fma(u, c1);
                c2 = k2.fma(u, c2);
                c3 = k3.fma(u, c3);
                u = FloatVector.broadcast(S, q[qd + d]);
                d0 = k0.fma(u, d0);
                d1 = k1.fma(u, d1);
                d2 = k2.fma(u, d2);
                d3 = k3.fma(u, d3);
                u = FloatVector.broadcast(S, q[qe + d]);
                e0 = k0.fma(u, e0);
                e1 = k1.fma(u, e1);
                e2 = k2.fma(u, e2);
                e3 = k3.fma(u, e3);
                u = FloatVector.broadcast(S, q[qf + d]);
                f0 = k0.fma(u, f0);
                f1 = k1.fma(u, f1);
                f2 = k2.fma(u, f2);
                f3 = k3.fma(u, f3);
            }
            FloatVector mask0 = FloatVector.fromArray(S, w, maskRow + j);
            FloatVector mask1 = FloatVector.fromArray(S, w, maskRow + j + L);
            FloatVector mask2 = FloatVector.fromArray(S, w, maskRow + j + 2 * L);
            FloatVector mask3 = FloatVector.fromArray(S, w, maskRow + j + 3 * L);
            a0.mul(scale).add(mask0).intoArray(w, sa + j);
            a1.mul(scale).add(mask1).intoArray(w, sa + j + L);
            a2.mul(scale).add(mask2).intoArray(w, sa + j + 2 * L);
            a3.mul(scale).add(mask3).intoArray(w, sa + j + 3 * L);
            b0.mul(scale).add(mask0).intoArray(w, sb + j);
            b1.mul(scale).add(mask1).intoArray(w, sb + j + L);
            b2.mul(scale).add(mask2).intoArray(w, sb + j + 2 * L);
            b3.mul(scale).add(mask3).intoArray(w, sb + j + 3 * L);
            c0.mul(scale).add(mask0).intoArray(w, sc + j);
            c1.mul(scale).add(mask1).intoArray(w, sc + j + L);
            c2.mul(scale).add(mask2).intoArray(w, sc + j + 2 * L);
            c3.mul(scale).add(mask3).intoArray(w, sc + j + 3 * L);
            d0.mul(scale).add(mask0).intoArray(w, sd + j);
            d1.mul(scale).add(mask1).intoArray(w, sd + j + L);
            d2.mul(scale).add(mask2).intoArray(w, sd + j + 2 * L);
            d3.mul(scale).add(mask3).intoArray(w, sd + j + 3 * L);
            e0.mul(scale).add(mask0).intoArray(w, se + j);
            e1.mul(scale).add(mask1).intoArray(w, se + j + L);
            e2.mul(scale).add(mask2).intoArray(w, se + j + 2 * L);
            e3.mul(scale).add(mask3).intoArray(w, se + j + 3 * L);
            f0.mul(scale).add(mask0).intoArray(w, sf + j);
            f1.mul(scale).add(mask1).intoArray(w, sf + j + L);
            f2.mul(scale).add(mask2).intoArray(w, sf + j + 2 * L);
            f3.mul(scale).add(mask3).intoArray(w, sf + j + 3 * L);
        }
        return j;
    }

    /**
     * Scaled, masked scores of {@code rows} (1 to 6) query rows against keys {@code from} to {@code to} - 1: two blocks of L keys per pass over the
     * head (twelve independent FMA chains). The rows start at {@code q0} in q, {@code hidden} apart; the transposed keys
     * at {@code keysOff} in w, in blocks of 2L keys by headSize; the mask at {@code maskRow}, a row of {@code stride}
     * floats (whole pairs of vectors); the scores go to w from {@code s0}, rows {@code stride} apart. Fewer than six rows
     * repeat the last.
     */
    private static void scores(float[] q, int q0, int hidden, int rows, int headSize, float[] w, int keysOff, int stride,
                               int from, int to, float scale, int maskRow, int s0) {
        int last = rows - 1;
        int r1 = Math.min(1, last), r2 = Math.min(2, last), r3 = Math.min(3, last), r4 = Math.min(4, last), r5 = Math.min(5, last);
        int qa = q0, qb = q0 + r1 * hidden, qc = q0 + r2 * hidden, qd = q0 + r3 * hidden, qe = q0 + r4 * hidden, qf = q0 + r5 * hidden;
        int sa = s0, sb = s0 + r1 * stride, sc = s0 + r2 * stride, sd = s0 + r3 * stride, se = s0 + r4 * stride, sf = s0 + r5 * stride;
        int j = from;
        if (WIDE) {
            j = wideScores(q, qa, qb, qc, qd, qe, qf, headSize, w, keysOff, from, to, scale, maskRow, sa, sb, sc, sd, se, sf);
        }
        for (; j < to; j += 2 * L) {
            FloatVector a0 = FloatVector.zero(S), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
            FloatVector e0 = a0, e1 = a0, f0 = a0, f1 = a0;
            // The keys' index grows by a constant, so C2 checks the block's bounds once rather than at every load.
            int block = keysOff + j * headSize;
            for (int d = 0; d < headSize; d++) {
                int t = block + d * (2 * L);
                FloatVector k0 = FloatVector.fromArray(S, w, t);
                FloatVector k1 = FloatVector.fromArray(S, w, t + L);
                FloatVector u = FloatVector.broadcast(S, q[qa + d]);
                a0 = k0.fma(u, a0);
                a1 = k1.fma(u, a1);
                u = FloatVector.broadcast(S, q[qb + d]);
                b0 = k0.fma(u, b0);
                b1 = k1.fma(u, b1);
                u = FloatVector.broadcast(S, q[qc + d]);
                c0 = k0.fma(u, c0);
                c1 = k1.fma(u, c1);
                u = FloatVector.broadcast(S, q[qd + d]);
                d0 = k0.fma(u, d0);
                d1 = k1.fma(u, d1);
                u = FloatVector.broadcast(S, q[qe + d]);
                e0 = k0.fma(u, e0);
                e1 = k1.fma(u, e1);
                u = FloatVector.broadcast(S, q[qf + d]);
                f0 = k0.fma(u, f0);
                f1 = k1.fma(u, f1);
            }
            // Scaled, plus the mask (-∞ past the sequence).
            FloatVector mask0 = FloatVector.fromArray(S, w, maskRow + j);
            FloatVector mask1 = FloatVector.fromArray(S, w, maskRow + j + L);
            a0.mul(scale).add(mask0).intoArray(w, sa + j);
            a1.mul(scale).add(mask1).intoArray(w, sa + j + L);
            b0.mul(scale).add(mask0).intoArray(w, sb + j);
            b1.mul(scale).add(mask1).intoArray(w, sb + j + L);
            c0.mul(scale).add(mask0).intoArray(w, sc + j);
            c1.mul(scale).add(mask1).intoArray(w, sc + j + L);
            d0.mul(scale).add(mask0).intoArray(w, sd + j);
            d1.mul(scale).add(mask1).intoArray(w, sd + j + L);
            e0.mul(scale).add(mask0).intoArray(w, se + j);
            e1.mul(scale).add(mask1).intoArray(w, se + j + L);
            f0.mul(scale).add(mask0).intoArray(w, sf + j);
            f1.mul(scale).add(mask1).intoArray(w, sf + j + L);
        }
    }
}
