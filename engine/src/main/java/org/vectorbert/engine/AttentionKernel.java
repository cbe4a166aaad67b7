package org.vectorbert.engine;

import static org.vectorbert.engine.VectorMath.L;
import static org.vectorbert.engine.VectorMath.S;

import java.util.Arrays;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

/**
 * Scaled dot-product attention of one sequence and one head: softmax(q·kᵀ/√d + mask)·v. Works for
 * any head size: columns of a head go four vectors at a time, then one, then a masked rest.
 */
final class AttentionKernel {
    private AttentionKernel() {}

    /** Floats of scratch {@link #head} needs for a sequence of {@code seq} tokens: transposed keys and a lane sum. */
    static int scratch(int seq, int headSize) {
        return headSize * keyStride(seq) + L;
    }

    /** A thread's scratch for attention: probabilities and transposed keys of the head it computes. Grows, never shrinks. */
    private static final ThreadLocal<float[]> SCRATCH = ThreadLocal.withInitial(() -> new float[0]);

    /** The calling thread's attention scratch, at least {@code floats} long. */
    static float[] scratch(int floats) {
        float[] s = SCRATCH.get();
        if (s.length < floats) {
            s = new float[floats];
            SCRATCH.set(s);
        }
        return s;
    }

    /** Floats per transposed key row: the sequence rounded up to whole vectors. */
    private static int keyStride(int seq) {
        return S.loopBound(seq + L - 1);
    }

    /**
     * Attention for one sequence and one head: rows [row0, row0+seq) of q, k, v ([rows, hidden]),
     * columns [col, col+headSize). {@code mask} from {@code maskOff} holds the additive mask per key
     * (0 or the float minimum); {@code scores} from {@code scoresOff} is seq·seq floats and keeps the
     * probabilities. The context goes to the same rows and columns of {@code ctx}. {@code keysT} from
     * {@code keysOff} is {@link #scratch} floats: the head's keys transposed, so a query row meets L
     * keys per FMA instead of one dot product (and one lane sum) per key; then L floats for the
     * softmax's lane sum.
     */
    static void head(float[] q, float[] k, float[] v, int hidden, int row0, int seq, int col, int headSize,
                     float[] mask, int maskOff, float[] scores, int scoresOff, float[] ctx, float[] keysT, int keysOff) {
        int stride = keyStride(seq);
        for (int d = 0; d < headSize; d++) {
            int t = keysOff + d * stride;
            for (int j = 0; j < seq; j++) {
                keysT[t + j] = k[(row0 + j) * hidden + col + d];
            }
            Arrays.fill(keysT, t + seq, t + stride, 0f);
        }
        float scale = (float) (1.0 / Math.sqrt(headSize));
        for (int i = 0; i < seq; i++) {
            int qi = (row0 + i) * hidden + col;
            int si = scoresOff + i * seq;
            scores(q, qi, headSize, keysT, keysOff, stride, seq, scale, mask, maskOff, scores, si);
            RowKernels.softmax(scores, si, seq, keysT, keysOff + headSize * stride);
        }
        // Two query rows at a time, so each value vector loaded serves both; an odd last row goes
        // with itself (the same FMAs twice, into the same place).
        for (int i = 0; i < seq; i += 2) {
            int a = i;
            int b = Math.min(i + 1, seq - 1);
            int pa = scoresOff + a * seq;
            int pb = scoresOff + b * seq;
            int outA = (row0 + a) * hidden + col;
            int outB = (row0 + b) * hidden + col;
            int c = 0;
            for (; c + 4 * L <= headSize; c += 4 * L) {
                weightedValues4(v, hidden, row0 * hidden + col + c, seq, scores, pa, pb, ctx, outA + c, outB + c);
            }
            for (; c < headSize; c += L) {
                weightedValues1(v, hidden, row0 * hidden + col + c, seq, scores, pa, pb, ctx, outA + c, outB + c, headSize - c);
            }
        }
    }

    /**
     * One query row's scaled, masked scores against every key: four blocks of L keys per pass over
     * the head (four independent FMA chains instead of one waiting on the last), then a block at a time.
     */
    private static void scores(float[] q, int qi, int headSize, float[] keysT, int keysOff, int stride, int seq, float scale,
                               float[] mask, int maskOff, float[] scores, int si) {
        int j = 0;
        for (; j + 4 * L <= stride; j += 4 * L) {
            FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
            for (int d = 0; d < headSize; d++) {
                int t = keysOff + d * stride + j;
                FloatVector qd = FloatVector.broadcast(S, q[qi + d]);
                a0 = FloatVector.fromArray(S, keysT, t).fma(qd, a0);
                a1 = FloatVector.fromArray(S, keysT, t + L).fma(qd, a1);
                a2 = FloatVector.fromArray(S, keysT, t + 2 * L).fma(qd, a2);
                a3 = FloatVector.fromArray(S, keysT, t + 3 * L).fma(qd, a3);
            }
            // Scaled, plus the mask, stored for the keys that exist (the last blocks may run past seq).
            VectorMask<Float> m0 = S.indexInRange(j, seq);
            VectorMask<Float> m1 = S.indexInRange(j + L, seq);
            VectorMask<Float> m2 = S.indexInRange(j + 2 * L, seq);
            VectorMask<Float> m3 = S.indexInRange(j + 3 * L, seq);
            a0.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j, m0)).intoArray(scores, si + j, m0);
            a1.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j + L, m1)).intoArray(scores, si + j + L, m1);
            a2.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j + 2 * L, m2)).intoArray(scores, si + j + 2 * L, m2);
            a3.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j + 3 * L, m3)).intoArray(scores, si + j + 3 * L, m3);
        }
        for (; j < seq; j += L) {
            FloatVector acc = FloatVector.zero(S);
            for (int d = 0; d < headSize; d++) {
                acc = FloatVector.fromArray(S, keysT, keysOff + d * stride + j).fma(FloatVector.broadcast(S, q[qi + d]), acc);
            }
            VectorMask<Float> m = S.indexInRange(j, seq);
            acc.mul(scale).add(FloatVector.fromArray(S, mask, maskOff + j, m)).intoArray(scores, si + j, m);
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
