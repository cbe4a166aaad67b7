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

    /**
     * Attention for one sequence and one head: its keys and values are rows [row0, row0+seq) of k and v ([rows, hidden]),
     * columns [col, col+headSize); its queries rows [qRow0, qRow0+queries) of q, the same rows as the keys for a whole
     * pass, or rows of their own (the last layer of a pass whose output is read at a few rows computes only those:
     * {@link BertLayer#forwardAt}; a query row's floats are the same whichever rows go with it). {@code mask} from
     * {@code maskOff} holds the additive mask per key (0 or the float minimum); {@code scores} from {@code scoresOff} is
     * queries·seq floats and keeps the probabilities. The context goes to the query rows and the same columns of
     * {@code ctx}. {@code keysT} from {@code keysOff} is {@link Kernels#attentionScratch(int, int)} floats: the head's
     * keys transposed, so a query row meets L keys per FMA instead of one dot product (and one lane sum) per key; then L
     * floats for the softmax's lane sum.
     */
    static void head(float[] q, int qRow0, int queries, float[] k, float[] v, int hidden, int row0, int seq, int col,
                     int headSize, float[] mask, int maskOff, float[] scores, int scoresOff, float[] ctx, float[] keysT, int keysOff) {
        int stride = Kernels.keyStride(seq);
        for (int d = 0; d < headSize; d++) {
            int t = keysOff + d * stride;
            for (int j = 0; j < seq; j++) {
                keysT[t + j] = k[(row0 + j) * hidden + col + d];
            }
            Arrays.fill(keysT, t + seq, t + stride, 0f);
        }
        float scale = (float) (1.0 / Math.sqrt(headSize));
        // Six query rows at a time, so each key vector loaded serves six independent FMA chains (one row
        // alone over a short sequence waited on each FMA: scores took 5% of a corpus run, twice the softmax).
        // Six rows and two key vectors are twelve accumulators, as the matrix kernel's tile: a bert-base head
        // (64 wide, 128 tokens) took 0.83-0.85x the time of four rows on AVX2, a MiniLM head (32 wide) the same.
        // A last group of fewer rows repeats its last row: the same FMAs, into the same place.
        for (int i = 0; i < queries; i += 6) {
            scores(q, (qRow0 + i) * hidden + col, hidden, Math.min(6, queries - i), headSize, keysT, keysOff, stride, seq,
                    scale, mask, maskOff, scores, scoresOff + i * seq);
        }
        for (int i = 0; i < queries; i++) {
            RowKernels.softmax(scores, scoresOff + i * seq, seq, keysT, keysOff + headSize * stride);
        }
        // Two query rows at a time, so each value vector loaded serves both; an odd last row goes
        // with itself (the same FMAs twice, into the same place).
        for (int i = 0; i < queries; i += 2) {
            int a = i;
            int b = Math.min(i + 1, queries - 1);
            int pa = scoresOff + a * seq;
            int pb = scoresOff + b * seq;
            int outA = (qRow0 + a) * hidden + col;
            int outB = (qRow0 + b) * hidden + col;
            int c = 0;
            for (; c + 4 * L <= headSize; c += 4 * L) {
                weightedValues4(v, hidden, row0 * hidden + col + c, seq, scores, pa, pb, ctx, outA + c, outB + c);
            }
            for (; c + 2 * L <= headSize; c += 2 * L) {
                weightedValues2(v, hidden, row0 * hidden + col + c, seq, scores, pa, pb, ctx, outA + c, outB + c);
            }
            for (; c < headSize; c += L) {
                weightedValues1(v, hidden, row0 * hidden + col + c, seq, scores, pa, pb, ctx, outA + c, outB + c, headSize - c);
            }
        }
    }

    /**
     * Scaled, masked scores of {@code rows} (1 to 6) query rows against every key: two blocks of L keys per pass over
     * the head (twelve independent FMA chains), then a last block alone (six). The rows start at {@code q0} in q,
     * {@code hidden} apart, and at {@code s0} in scores, {@code seq} apart; fewer than six repeat the last.
     */
    private static void scores(float[] q, int q0, int hidden, int rows, int headSize, float[] keysT, int keysOff, int stride,
                               int seq, float scale, float[] mask, int maskOff, float[] scores, int s0) {
        int last = rows - 1;
        int r1 = Math.min(1, last), r2 = Math.min(2, last), r3 = Math.min(3, last), r4 = Math.min(4, last), r5 = Math.min(5, last);
        int qa = q0, qb = q0 + r1 * hidden, qc = q0 + r2 * hidden, qd = q0 + r3 * hidden, qe = q0 + r4 * hidden, qf = q0 + r5 * hidden;
        int sa = s0, sb = s0 + r1 * seq, sc = s0 + r2 * seq, sd = s0 + r3 * seq, se = s0 + r4 * seq, sf = s0 + r5 * seq;
        int j = 0;
        for (; j + 2 * L <= stride; j += 2 * L) {
            FloatVector a0 = FloatVector.zero(S), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
            FloatVector e0 = a0, e1 = a0, f0 = a0, f1 = a0;
            for (int d = 0; d < headSize; d++) {
                int t = keysOff + d * stride + j;
                FloatVector k0 = FloatVector.fromArray(S, keysT, t);
                FloatVector k1 = FloatVector.fromArray(S, keysT, t + L);
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
            // Scaled, plus the mask, stored for the keys that exist (the last blocks may run past seq).
            VectorMask<Float> m0 = S.indexInRange(j, seq);
            VectorMask<Float> m1 = S.indexInRange(j + L, seq);
            FloatVector mask0 = FloatVector.fromArray(S, mask, maskOff + j, m0);
            FloatVector mask1 = FloatVector.fromArray(S, mask, maskOff + j + L, m1);
            a0.mul(scale).add(mask0).intoArray(scores, sa + j, m0);
            a1.mul(scale).add(mask1).intoArray(scores, sa + j + L, m1);
            b0.mul(scale).add(mask0).intoArray(scores, sb + j, m0);
            b1.mul(scale).add(mask1).intoArray(scores, sb + j + L, m1);
            c0.mul(scale).add(mask0).intoArray(scores, sc + j, m0);
            c1.mul(scale).add(mask1).intoArray(scores, sc + j + L, m1);
            d0.mul(scale).add(mask0).intoArray(scores, sd + j, m0);
            d1.mul(scale).add(mask1).intoArray(scores, sd + j + L, m1);
            e0.mul(scale).add(mask0).intoArray(scores, se + j, m0);
            e1.mul(scale).add(mask1).intoArray(scores, se + j + L, m1);
            f0.mul(scale).add(mask0).intoArray(scores, sf + j, m0);
            f1.mul(scale).add(mask1).intoArray(scores, sf + j + L, m1);
        }
        if (j < stride) {
            FloatVector a0 = FloatVector.zero(S), b0 = a0, c0 = a0, d0 = a0, e0 = a0, f0 = a0;
            for (int d = 0; d < headSize; d++) {
                FloatVector k0 = FloatVector.fromArray(S, keysT, keysOff + d * stride + j);
                a0 = k0.fma(FloatVector.broadcast(S, q[qa + d]), a0);
                b0 = k0.fma(FloatVector.broadcast(S, q[qb + d]), b0);
                c0 = k0.fma(FloatVector.broadcast(S, q[qc + d]), c0);
                d0 = k0.fma(FloatVector.broadcast(S, q[qd + d]), d0);
                e0 = k0.fma(FloatVector.broadcast(S, q[qe + d]), e0);
                f0 = k0.fma(FloatVector.broadcast(S, q[qf + d]), f0);
            }
            VectorMask<Float> m0 = S.indexInRange(j, seq);
            FloatVector mask0 = FloatVector.fromArray(S, mask, maskOff + j, m0);
            a0.mul(scale).add(mask0).intoArray(scores, sa + j, m0);
            b0.mul(scale).add(mask0).intoArray(scores, sb + j, m0);
            c0.mul(scale).add(mask0).intoArray(scores, sc + j, m0);
            d0.mul(scale).add(mask0).intoArray(scores, sd + j, m0);
            e0.mul(scale).add(mask0).intoArray(scores, se + j, m0);
            f0.mul(scale).add(mask0).intoArray(scores, sf + j, m0);
        }
    }

    /**
     * ctx[outA..+4L) = Σj p[pa+j]·v[j][..+4L) and the same for row b: each value vector loaded once
     * for eight accumulators (four alone wait on their own FMAs). {@code v0} is the first value
     * row's offset, rows {@code hidden} apart.
     */
    private static void weightedValues4(float[] v, int hidden, int v0, int seq, float[] p, int pa, int pb, float[] ctx,
                                        int outA, int outB) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
        FloatVector b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        for (int j = 0; j < seq; j++) {
            int vj = v0 + j * hidden;
            FloatVector x0 = FloatVector.fromArray(S, v, vj);
            FloatVector x1 = FloatVector.fromArray(S, v, vj + L);
            FloatVector x2 = FloatVector.fromArray(S, v, vj + 2 * L);
            FloatVector x3 = FloatVector.fromArray(S, v, vj + 3 * L);
            FloatVector wa = FloatVector.broadcast(S, p[pa + j]);
            FloatVector wb = FloatVector.broadcast(S, p[pb + j]);
            a0 = x0.fma(wa, a0);
            a1 = x1.fma(wa, a1);
            a2 = x2.fma(wa, a2);
            a3 = x3.fma(wa, a3);
            b0 = x0.fma(wb, b0);
            b1 = x1.fma(wb, b1);
            b2 = x2.fma(wb, b2);
            b3 = x3.fma(wb, b3);
        }
        a0.intoArray(ctx, outA);
        a1.intoArray(ctx, outA + L);
        a2.intoArray(ctx, outA + 2 * L);
        a3.intoArray(ctx, outA + 3 * L);
        b0.intoArray(ctx, outB);
        b1.intoArray(ctx, outB + L);
        b2.intoArray(ctx, outB + 2 * L);
        b3.intoArray(ctx, outB + 3 * L);
    }

    /** {@link #weightedValues4} for two vectors of columns (a head of 32 with 512-bit vectors). */
    private static void weightedValues2(float[] v, int hidden, int v0, int seq, float[] p, int pa, int pb, float[] ctx,
                                        int outA, int outB) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, b0 = a0, b1 = a0;
        for (int j = 0; j < seq; j++) {
            int vj = v0 + j * hidden;
            FloatVector x0 = FloatVector.fromArray(S, v, vj);
            FloatVector x1 = FloatVector.fromArray(S, v, vj + L);
            FloatVector wa = FloatVector.broadcast(S, p[pa + j]);
            FloatVector wb = FloatVector.broadcast(S, p[pb + j]);
            a0 = x0.fma(wa, a0);
            a1 = x1.fma(wa, a1);
            b0 = x0.fma(wb, b0);
            b1 = x1.fma(wb, b1);
        }
        a0.intoArray(ctx, outA);
        a1.intoArray(ctx, outA + L);
        b0.intoArray(ctx, outB);
        b1.intoArray(ctx, outB + L);
    }

    /** {@link #weightedValues4} for the columns of one vector, or the {@code left} columns left if fewer. */
    private static void weightedValues1(float[] v, int hidden, int v0, int seq, float[] p, int pa, int pb, float[] ctx,
                                        int outA, int outB, int left) {
        VectorMask<Float> m = S.indexInRange(0, left);
        FloatVector a = FloatVector.zero(S), b = a;
        for (int j = 0; j < seq; j++) {
            FloatVector x = FloatVector.fromArray(S, v, v0 + j * hidden, m);
            a = x.fma(FloatVector.broadcast(S, p[pa + j]), a);
            b = x.fma(FloatVector.broadcast(S, p[pb + j]), b);
        }
        a.intoArray(ctx, outA, m);
        b.intoArray(ctx, outB, m);
    }
}
