package org.vectorbert.engine;

import static org.vectorbert.engine.Lanes.L;
import static org.vectorbert.engine.VectorMath.S;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

/**
 * The attention's weighted sums of values, Σj p[j]·v[j] for a chunk of query rows ({@link AttentionKernel#head}): a
 * matrix product of the chunk's weights by the head's values, tiled as the matrix kernel is, rows by columns of vectors.
 */
final class AttentionValues {
    private AttentionValues() {}

    /**
     * Whether six query rows go together (24 accumulators and four value vectors, within 512-bit vectors' 32
     * registers) rather than four: on this machine six made the weighted sums a quarter faster.
     */
    private static final boolean SIX_ROWS = L >= 16;

    /**
     * The context of query rows c0 .. c1 - 1 (their softmax weights at {@code p0} + i·stride in w, keys {@code from} to
     * {@code to} - 1), before its scaling by 1/Σ: Σj p[j]·v[j] into their rows of ctx, {@link AttentionKernel#KEY_BLOCK}
     * keys at a time for every row, each row's sums carried in ctx from one block to the next (the same additions in the
     * same order, so the same floats). The head's values are in w from {@code panels}, copied once per head in panels of
     * 4L columns ({@code stride} keys each, key after key), so the value loads of the inner loop are contiguous and their
     * index grows by a constant. Six query rows at a time with 512-bit vectors, four with narrower ones, so each value
     * vector loaded serves 24 or 16 FMA chains; a last group of fewer rows repeats its last (the same FMAs into the same
     * place). Columns past the panels are read in place.
     */
    static void context(float[] v, int hidden, int row0, int to, int from, int col, int headSize, float[] w, int p0,
                        int stride, float[] ctx, int qRow0, int c0, int c1, int panels) {
        int c4 = headSize / (4 * L) * (4 * L);
        int c2 = headSize - c4 >= 2 * L ? c4 + 2 * L : c4;
        int last = c1 - 1;
        int group = SIX_ROWS ? 6 : 4;
        for (int j0 = from; j0 < to; j0 += AttentionKernel.KEY_BLOCK) {
            int n = Math.min(to, j0 + AttentionKernel.KEY_BLOCK) - j0;
            boolean carry = j0 > from;
            int v0 = (row0 + j0) * hidden + col;
            for (int i = c0; c4 > 0 && i < c1; i += group) {
                int a = i, b = Math.min(i + 1, last), c = Math.min(i + 2, last), d = Math.min(i + 3, last);
                int e = Math.min(i + 4, last), f = Math.min(i + 5, last);
                for (int cc = 0; cc < c4; cc += 4 * L) {
                    int panel = panels + cc * stride + j0 * 4 * L;
                    int out = qRow0 * hidden + col + cc;
                    if (SIX_ROWS) {
                        six(w, panel, n, w, p0 + a * stride + j0, p0 + b * stride + j0, p0 + c * stride + j0,
                                p0 + d * stride + j0, p0 + e * stride + j0, p0 + f * stride + j0, ctx, out + a * hidden,
                                out + b * hidden, out + c * hidden, out + d * hidden, out + e * hidden, out + f * hidden, carry);
                    } else {
                        four(w, panel, n, w, p0 + a * stride + j0, p0 + b * stride + j0, p0 + c * stride + j0,
                                p0 + d * stride + j0, ctx, out + a * hidden, out + b * hidden, out + c * hidden,
                                out + d * hidden, carry);
                    }
                }
            }
            // Two vectors of columns (a MiniLM head with 512-bit vectors): eight FMA chains.
            for (int i = c0; c2 > c4 && i < c1; i += 4) {
                int a = i, b = Math.min(i + 1, last), c = Math.min(i + 2, last), d = Math.min(i + 3, last);
                int out = qRow0 * hidden + col + c4;
                two(v, hidden, v0 + c4, n, w, p0 + a * stride + j0, p0 + b * stride + j0, p0 + c * stride + j0,
                        p0 + d * stride + j0, ctx, out + a * hidden, out + b * hidden, out + c * hidden, out + d * hidden,
                        carry);
            }
            for (int i = c0; i < c1; i += 2) {
                int b = Math.min(i + 1, last);
                int outA = (qRow0 + i) * hidden + col;
                int outB = (qRow0 + b) * hidden + col;
                for (int c = c2; c < headSize; c += L) {
                    one(v, hidden, v0 + c, n, w, p0 + i * stride + j0, p0 + b * stride + j0, ctx, outA + c, outB + c,
                            headSize - c, carry);
                }
            }
        }
    }

    /**
     * ctx[outA..+4L) = Σj p[pa+j]·v[j][..+4L), and the same for rows b to f: each value vector loaded once for 24
     * accumulators, which 512-bit vectors' 32 registers hold. The values are a panel at {@code v0} in v, 4L floats per key.
     */
    private static void six(float[] v, int v0, int n, float[] p, int pa, int pb, int pc, int pd, int pe, int pf, float[] ctx,
                            int outA, int outB, int outC, int outD, int outE, int outF, boolean carry) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        FloatVector c0 = a0, c1 = a0, c2 = a0, c3 = a0, d0 = a0, d1 = a0, d2 = a0, d3 = a0;
        FloatVector e0 = a0, e1 = a0, e2 = a0, e3 = a0, f0 = a0, f1 = a0, f2 = a0, f3 = a0;
        if (carry) {
            a0 = FloatVector.fromArray(S, ctx, outA);
            a1 = FloatVector.fromArray(S, ctx, outA + L);
            a2 = FloatVector.fromArray(S, ctx, outA + 2 * L);
            a3 = FloatVector.fromArray(S, ctx, outA + 3 * L);
            b0 = FloatVector.fromArray(S, ctx, outB);
            b1 = FloatVector.fromArray(S, ctx, outB + L);
            b2 = FloatVector.fromArray(S, ctx, outB + 2 * L);
            b3 = FloatVector.fromArray(S, ctx, outB + 3 * L);
            c0 = FloatVector.fromArray(S, ctx, outC);
            c1 = FloatVector.fromArray(S, ctx, outC + L);
            c2 = FloatVector.fromArray(S, ctx, outC + 2 * L);
            c3 = FloatVector.fromArray(S, ctx, outC + 3 * L);
            d0 = FloatVector.fromArray(S, ctx, outD);
            d1 = FloatVector.fromArray(S, ctx, outD + L);
            d2 = FloatVector.fromArray(S, ctx, outD + 2 * L);
            d3 = FloatVector.fromArray(S, ctx, outD + 3 * L);
            e0 = FloatVector.fromArray(S, ctx, outE);
            e1 = FloatVector.fromArray(S, ctx, outE + L);
            e2 = FloatVector.fromArray(S, ctx, outE + 2 * L);
            e3 = FloatVector.fromArray(S, ctx, outE + 3 * L);
            f0 = FloatVector.fromArray(S, ctx, outF);
            f1 = FloatVector.fromArray(S, ctx, outF + L);
            f2 = FloatVector.fromArray(S, ctx, outF + 2 * L);
            f3 = FloatVector.fromArray(S, ctx, outF + 3 * L);
        }
        for (int j = 0; j < n; j++) {
            int vj = v0 + j * (4 * L);
            FloatVector x0 = FloatVector.fromArray(S, v, vj);
            FloatVector x1 = FloatVector.fromArray(S, v, vj + L);
            FloatVector x2 = FloatVector.fromArray(S, v, vj + 2 * L);
            FloatVector x3 = FloatVector.fromArray(S, v, vj + 3 * L);
            FloatVector u = FloatVector.broadcast(S, p[pa + j]);
            a0 = x0.fma(u, a0);
            a1 = x1.fma(u, a1);
            a2 = x2.fma(u, a2);
            a3 = x3.fma(u, a3);
            u = FloatVector.broadcast(S, p[pb + j]);
            b0 = x0.fma(u, b0);
            b1 = x1.fma(u, b1);
            b2 = x2.fma(u, b2);
            b3 = x3.fma(u, b3);
            u = FloatVector.broadcast(S, p[pc + j]);
            c0 = x0.fma(u, c0);
            c1 = x1.fma(u, c1);
            c2 = x2.fma(u, c2);
            c3 = x3.fma(u, c3);
            u = FloatVector.broadcast(S, p[pd + j]);
            d0 = x0.fma(u, d0);
            d1 = x1.fma(u, d1);
            d2 = x2.fma(u, d2);
            d3 = x3.fma(u, d3);
            u = FloatVector.broadcast(S, p[pe + j]);
            e0 = x0.fma(u, e0);
            e1 = x1.fma(u, e1);
            e2 = x2.fma(u, e2);
            e3 = x3.fma(u, e3);
            u = FloatVector.broadcast(S, p[pf + j]);
            f0 = x0.fma(u, f0);
            f1 = x1.fma(u, f1);
            f2 = x2.fma(u, f2);
            f3 = x3.fma(u, f3);
        }
        a0.intoArray(ctx, outA);
        a1.intoArray(ctx, outA + L);
        a2.intoArray(ctx, outA + 2 * L);
        a3.intoArray(ctx, outA + 3 * L);
        b0.intoArray(ctx, outB);
        b1.intoArray(ctx, outB + L);
        b2.intoArray(ctx, outB + 2 * L);
        b3.intoArray(ctx, outB + 3 * L);
        c0.intoArray(ctx, outC);
        c1.intoArray(ctx, outC + L);
        c2.intoArray(ctx, outC + 2 * L);
        c3.intoArray(ctx, outC + 3 * L);
        d0.intoArray(ctx, outD);
        d1.intoArray(ctx, outD + L);
        d2.intoArray(ctx, outD + 2 * L);
        d3.intoArray(ctx, outD + 3 * L);
        e0.intoArray(ctx, outE);
        e1.intoArray(ctx, outE + L);
        e2.intoArray(ctx, outE + 2 * L);
        e3.intoArray(ctx, outE + 3 * L);
        f0.intoArray(ctx, outF);
        f1.intoArray(ctx, outF + L);
        f2.intoArray(ctx, outF + 2 * L);
        f3.intoArray(ctx, outF + 3 * L);
    }

    /**
     * ctx[outA..+4L) = Σj p[pa+j]·v[j][..+4L), and the same for rows b, c and d: each value vector loaded once for sixteen
     * accumulators (vectors narrower than 512 bits, with 16 registers). The values are a panel at {@code v0} in v, 4L floats per key.
     */
    private static void four(float[] v, int v0, int n, float[] p, int pa, int pb, int pc, int pd, float[] ctx,
                                        int outA, int outB, int outC, int outD, boolean carry) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
        FloatVector c0 = a0, c1 = a0, c2 = a0, c3 = a0, d0 = a0, d1 = a0, d2 = a0, d3 = a0;
        if (carry) {
            a0 = FloatVector.fromArray(S, ctx, outA);
            a1 = FloatVector.fromArray(S, ctx, outA + L);
            a2 = FloatVector.fromArray(S, ctx, outA + 2 * L);
            a3 = FloatVector.fromArray(S, ctx, outA + 3 * L);
            b0 = FloatVector.fromArray(S, ctx, outB);
            b1 = FloatVector.fromArray(S, ctx, outB + L);
            b2 = FloatVector.fromArray(S, ctx, outB + 2 * L);
            b3 = FloatVector.fromArray(S, ctx, outB + 3 * L);
            c0 = FloatVector.fromArray(S, ctx, outC);
            c1 = FloatVector.fromArray(S, ctx, outC + L);
            c2 = FloatVector.fromArray(S, ctx, outC + 2 * L);
            c3 = FloatVector.fromArray(S, ctx, outC + 3 * L);
            d0 = FloatVector.fromArray(S, ctx, outD);
            d1 = FloatVector.fromArray(S, ctx, outD + L);
            d2 = FloatVector.fromArray(S, ctx, outD + 2 * L);
            d3 = FloatVector.fromArray(S, ctx, outD + 3 * L);
        }
        for (int j = 0; j < n; j++) {
            int vj = v0 + j * (4 * L);
            FloatVector x0 = FloatVector.fromArray(S, v, vj);
            FloatVector x1 = FloatVector.fromArray(S, v, vj + L);
            FloatVector x2 = FloatVector.fromArray(S, v, vj + 2 * L);
            FloatVector x3 = FloatVector.fromArray(S, v, vj + 3 * L);
            FloatVector u = FloatVector.broadcast(S, p[pa + j]);
            a0 = x0.fma(u, a0);
            a1 = x1.fma(u, a1);
            a2 = x2.fma(u, a2);
            a3 = x3.fma(u, a3);
            u = FloatVector.broadcast(S, p[pb + j]);
            b0 = x0.fma(u, b0);
            b1 = x1.fma(u, b1);
            b2 = x2.fma(u, b2);
            b3 = x3.fma(u, b3);
            u = FloatVector.broadcast(S, p[pc + j]);
            c0 = x0.fma(u, c0);
            c1 = x1.fma(u, c1);
            c2 = x2.fma(u, c2);
            c3 = x3.fma(u, c3);
            u = FloatVector.broadcast(S, p[pd + j]);
            d0 = x0.fma(u, d0);
            d1 = x1.fma(u, d1);
            d2 = x2.fma(u, d2);
            d3 = x3.fma(u, d3);
        }
        a0.intoArray(ctx, outA);
        a1.intoArray(ctx, outA + L);
        a2.intoArray(ctx, outA + 2 * L);
        a3.intoArray(ctx, outA + 3 * L);
        b0.intoArray(ctx, outB);
        b1.intoArray(ctx, outB + L);
        b2.intoArray(ctx, outB + 2 * L);
        b3.intoArray(ctx, outB + 3 * L);
        c0.intoArray(ctx, outC);
        c1.intoArray(ctx, outC + L);
        c2.intoArray(ctx, outC + 2 * L);
        c3.intoArray(ctx, outC + 3 * L);
        d0.intoArray(ctx, outD);
        d1.intoArray(ctx, outD + L);
        d2.intoArray(ctx, outD + 2 * L);
        d3.intoArray(ctx, outD + 3 * L);
    }

    /** {@link #four} for two vectors of columns, read in place (rows {@code hidden} apart from {@code v0}). */
    private static void two(float[] v, int hidden, int v0, int seq, float[] p, int pa, int pb, int pc, int pd,
                                        float[] ctx, int outA, int outB, int outC, int outD, boolean carry) {
        FloatVector a0 = FloatVector.zero(S), a1 = a0, b0 = a0, b1 = a0, c0 = a0, c1 = a0, d0 = a0, d1 = a0;
        if (carry) {
            a0 = FloatVector.fromArray(S, ctx, outA);
            a1 = FloatVector.fromArray(S, ctx, outA + L);
            b0 = FloatVector.fromArray(S, ctx, outB);
            b1 = FloatVector.fromArray(S, ctx, outB + L);
            c0 = FloatVector.fromArray(S, ctx, outC);
            c1 = FloatVector.fromArray(S, ctx, outC + L);
            d0 = FloatVector.fromArray(S, ctx, outD);
            d1 = FloatVector.fromArray(S, ctx, outD + L);
        }
        for (int j = 0; j < seq; j++) {
            int vj = v0 + j * hidden;
            FloatVector x0 = FloatVector.fromArray(S, v, vj);
            FloatVector x1 = FloatVector.fromArray(S, v, vj + L);
            FloatVector w = FloatVector.broadcast(S, p[pa + j]);
            a0 = x0.fma(w, a0);
            a1 = x1.fma(w, a1);
            w = FloatVector.broadcast(S, p[pb + j]);
            b0 = x0.fma(w, b0);
            b1 = x1.fma(w, b1);
            w = FloatVector.broadcast(S, p[pc + j]);
            c0 = x0.fma(w, c0);
            c1 = x1.fma(w, c1);
            w = FloatVector.broadcast(S, p[pd + j]);
            d0 = x0.fma(w, d0);
            d1 = x1.fma(w, d1);
        }
        a0.intoArray(ctx, outA);
        a1.intoArray(ctx, outA + L);
        b0.intoArray(ctx, outB);
        b1.intoArray(ctx, outB + L);
        c0.intoArray(ctx, outC);
        c1.intoArray(ctx, outC + L);
        d0.intoArray(ctx, outD);
        d1.intoArray(ctx, outD + L);
    }

    /** Rows a and b for the columns of one vector, or the {@code left} columns left if fewer, read in place. */
    private static void one(float[] v, int hidden, int v0, int seq, float[] p, int pa, int pb, float[] ctx,
                                        int outA, int outB, int left, boolean carry) {
        VectorMask<Float> m = S.indexInRange(0, left);
        FloatVector a = carry ? FloatVector.fromArray(S, ctx, outA, m) : FloatVector.zero(S);
        FloatVector b = carry ? FloatVector.fromArray(S, ctx, outB, m) : FloatVector.zero(S);
        for (int j = 0; j < seq; j++) {
            FloatVector x = FloatVector.fromArray(S, v, v0 + j * hidden, m);
            a = x.fma(FloatVector.broadcast(S, p[pa + j]), a);
            b = x.fma(FloatVector.broadcast(S, p[pb + j]), b);
        }
        a.intoArray(ctx, outA, m);
        b.intoArray(ctx, outB, m);
    }
}
