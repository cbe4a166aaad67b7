package org.vectorbert.engine;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector shape every kernel uses, and the arithmetic they share: deterministic lane sums,
 * and exp and tanh built from FMAs.
 *
 * <p>Every kernel loops the same way over a row of n floats: whole vectors up to
 * {@code S.loopBound(n)}, then at most one vector masked by {@code S.indexInRange(i, n)} for the
 * tail; tanh and erf, written once each, run one masked loop instead, and exp runs whole vectors unmasked with its
 * last partial vector through scratch.
 * Nothing a kernel calls takes or returns a vector (see exp below for why).
 */
final class VectorMath {
    /** Float vectors of the shape {@link Lanes} names. */
    static final VectorSpecies<Float> S = VectorSpecies.of(float.class, VectorShape.forBitSize(Lanes.BITS));
    /** Floats per vector. */
    static final int L = Lanes.L;
    /** Ints per vector of the same shape: bfloat16 weights travel two to an int. */
    static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, S.vectorShape());

    private VectorMath() {}

    // ---- lane sums in one fixed order ----
    /*
     * reduceLanes(ADD) may add lanes in any order, and does so differently interpreted and
     * compiled, so the same text gave different last bits before and after the JIT warmed up.
     * Folding halves with lane-wise adds is the same tree either way.
     */
    // One shuffle per fold, each a constant: C2 intrinsifies a rearrange by a constant shuffle, but
    // boxes the vector when the shuffle comes out of an array.
    private static final VectorShuffle<Float> FOLD_32 = fold(32);
    private static final VectorShuffle<Float> FOLD_16 = fold(16);
    private static final VectorShuffle<Float> FOLD_8 = fold(8);
    private static final VectorShuffle<Float> FOLD_4 = fold(4);
    private static final VectorShuffle<Float> FOLD_2 = fold(2);
    private static final VectorShuffle<Float> FOLD_1 = fold(1);

    /** Lane i takes lane i + half (wrapping); only used when half < L. */
    private static VectorShuffle<Float> fold(int half) {
        return VectorShuffle.iota(S, half % L, 1, true);
    }

    /**
     * Σ of v's lanes as a fixed pairwise tree (halves first): deterministic whether interpreted or compiled. Small, so
     * C2 inlines it into the kernels that call it (softmax, LayerNorm); not inlined, v would be boxed on every call.
     */
    static float sum(FloatVector v) {
        if (L > 32) {
            v = v.add(v.rearrange(FOLD_32));
        }
        if (L > 16) {
            v = v.add(v.rearrange(FOLD_16));
        }
        if (L > 8) {
            v = v.add(v.rearrange(FOLD_8));
        }
        if (L > 4) {
            v = v.add(v.rearrange(FOLD_4));
        }
        if (L > 2) {
            v = v.add(v.rearrange(FOLD_2));
        }
        if (L > 1) {
            v = v.add(v.rearrange(FOLD_1));
        }
        return v.lane(0);
    }

    // ---- bfloat16 ----

    /** The mask that keeps the high halves of int lanes: bfloat16 in the high half, widened by masking. */
    static final int HIGH_HALF = 0xFFFF0000;

    // ---- exp and tanh from FMAs, over arrays ----
    /*
     * Lanewise EXP and TANH run Java's Math functions when interpreted and the JIT's vector math
     * library once compiled; the two differ in the last bit, so the same text gave different
     * floats before and after warm-up. These are built from adds, multiplies and FMAs only, which
     * are exact IEEE operations either way (Cephes' expf and tanhf, about 1 ulp).
     *
     * They work on arrays, not on vectors passed in and out: a method that takes a FloatVector and is
     * not inlined gets it boxed, and C2 does not inline one it has already compiled on its own into
     * large code (InlineSmallCode), or once the caller has grown past its node budget; a boxed vector per
     * call made a pass allocate a hundred times its output.
     */
    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    /** 1.5·2²³: adding and subtracting it rounds a float below 2²² to the nearest integer. */
    private static final float ROUNDER = 12582912f;
    /** {@link #ROUNDER}'s bits: a float k + ROUNDER, for an integer k of magnitude below 2²², has these bits plus k. */
    private static final int ROUNDER_BITS = Float.floatToRawIntBits(ROUNDER);
    private static final float EXP_MAX = 88.72283f;
    private static final float EXP_MIN = -87.33654f;
    /** Elements the composite functions work on at a time, through per-thread scratch. */
    static final int BLOCK = 256;
    /** Where a thread's scratch keeps exp's last partial vector: after its two blocks. */
    static final int EXP_TAIL = 2 * BLOCK;
    /** Per thread, two blocks and a vector: [0, BLOCK) for tanh here, [BLOCK, 2·BLOCK) for the GELUs in RowKernels, then exp's tail. */
    private static final ThreadLocal<float[]> SCRATCH = ThreadLocal.withInitial(() -> new float[2 * BLOCK + L]);

    /** The calling thread's scratch: 2·{@link #BLOCK} + L floats, split as {@link #SCRATCH} says. */
    static float[] scratch() {
        return SCRATCH.get();
    }

    /**
     * e^(x - shift) in place over a[off .. off+n): x - shift = k·ln2 + r with |r| ≤ ln2/2, e^r by a degree-7
     * polynomial, times 2^k. Below the smallest normal result e^x is 0 (masked keys land there), above the largest +∞.
     * Whole vectors are read and written unmasked; a last partial vector goes through {@code t} from {@code tOff}
     * (L floats of scratch), padded with -∞, whose e^ is 0. Faster than one masked loop, where C2 built the tail's mask
     * for every vector, Java's max and min each cost five instructions for NaN and -0, and converting k to int came with
     * its own NaN check.
     */
    static void expInPlace(float[] a, int off, int n, float shift, float[] t, int tOff) {
        int i = 0;
        for (int whole = S.loopBound(n); i < whole; i += L) {
            exp(a, off + i, shift);
        }
        if (i < n) {
            int left = n - i;
            for (int j = 0; j < L; j++) {
                t[tOff + j] = j < left ? a[off + i + j] : Float.NEGATIVE_INFINITY;
            }
            exp(t, tOff, shift);
            for (int j = 0; j < left; j++) {
                a[off + i + j] = t[tOff + j];
            }
        }
    }

    /**
     * Where {@link #weights} takes e^x as 0: above it every e^x is a normal float, so no FMA of the values meets a
     * subnormal.
     */
    static final float WEIGHT_MIN = -87f;

    /**
     * e^(x - shift) in place over a[off .. off+n), n whole vectors, for x ≤ shift (a softmax's row and its maximum), and
     * their sum, lane by lane in order then folded ({@link #sum(FloatVector)}). Below {@link #WEIGHT_MIN} e^ is 0, so every
     * weight is normal or 0: subnormal operands slow the FMAs that read them a hundredfold, and ALiBi's long tails put
     * thousands of keys a row near there. {@link #exp}'s polynomial, in Estrin's form rather than Horner's: a chain of 7
     * dependent operations after the reduction instead of 10, so the out-of-order window holds enough rows' elements
     * to keep the pipes busy (docs/notes/bench-kernels.md). No clamp: x - shift ≤ 0, and the lanes below the minimum,
     * whatever their 2^k, come out 0.
     */
    static float weights(float[] a, int off, int n, float shift) {
        FloatVector sum = FloatVector.zero(S);
        for (int i = 0; i < n; i += L) {
            FloatVector x = FloatVector.fromArray(S, a, off + i).sub(shift);
            VectorMask<Float> under = x.lt(WEIGHT_MIN);
            FloatVector rounded = x.fma(LOG2E, ROUNDER);
            FloatVector k = rounded.sub(ROUNDER);
            FloatVector r = k.fma(FloatVector.broadcast(S, -LN2_HI), x);
            r = k.fma(FloatVector.broadcast(S, -LN2_LO), r);
            // e^r = 1 + r + r²·(low + r²·(mid + r²·high)), each of low, mid and high one FMA in r.
            FloatVector r2 = r.mul(r);
            FloatVector low = r.fma(1.6666665459E-1f, 5.0000001201E-1f);
            FloatVector mid = r.fma(8.3334519073E-3f, 4.1665795894E-2f);
            FloatVector high = r.fma(1.9875691500E-4f, 1.3981999507E-3f);
            FloatVector p = high.fma(r2, mid).fma(r2, low);
            FloatVector y = p.fma(r2, r).add(1f);
            IntVector bits = rounded.reinterpretAsInts().add(127 - ROUNDER_BITS).lanewise(VectorOperators.LSHL, 23);
            FloatVector e = y.mul(bits.reinterpretAsFloats()).blend(0f, under);
            e.intoArray(a, off + i);
            sum = e.add(sum);
        }
        return sum(sum);
    }

    /** e^(x - shift) in place over the vector at a[at .. at+L). */
    private static void exp(float[] a, int at, float shift) {
        FloatVector x = FloatVector.fromArray(S, a, at).sub(shift);
        VectorMask<Float> under = x.lt(EXP_MIN);
        VectorMask<Float> over = x.compare(VectorOperators.GT, EXP_MAX);
        FloatVector c = x.blend(EXP_MIN, under).blend(EXP_MAX, over);
        // c·log2(e) + 1.5·2²³ holds k, the nearest integer, in its low mantissa bits: 2^k is built from them.
        FloatVector rounded = c.fma(LOG2E, ROUNDER);
        FloatVector k = rounded.sub(ROUNDER);
        FloatVector r = k.fma(FloatVector.broadcast(S, -LN2_HI), c);
        r = k.fma(FloatVector.broadcast(S, -LN2_LO), r);
        FloatVector p = r.fma(1.9875691500E-4f, 1.3981999507E-3f)
                .fma(r, FloatVector.broadcast(S, 8.3334519073E-3f))
                .fma(r, FloatVector.broadcast(S, 4.1665795894E-2f))
                .fma(r, FloatVector.broadcast(S, 1.6666665459E-1f))
                .fma(r, FloatVector.broadcast(S, 5.0000001201E-1f));
        FloatVector y = p.mul(r.mul(r)).add(r).add(1f);
        IntVector bits = rounded.reinterpretAsInts().add(127 - ROUNDER_BITS).lanewise(VectorOperators.LSHL, 23);
        y.mul(bits.reinterpretAsFloats()).blend(0f, under).blend(Float.POSITIVE_INFINITY, over).intoArray(a, at);
    }

    /** tanh in place over a[off .. off+n): an odd polynomial below 0.625, else 1 - 2/(e^2|x| + 1), sign restored. */
    static void tanhInPlace(float[] a, int off, int n) {
        float[] e = scratch();
        for (int from = 0; from < n; from += BLOCK) {
            int count = Math.min(BLOCK, n - from);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector ax = FloatVector.fromArray(S, a, off + from + i, m).abs();
                ax.add(ax).intoArray(e, i, m);
            }
            expInPlace(e, 0, count, 0f, e, EXP_TAIL);
            for (int i = 0; i < count; i += L) {
                VectorMask<Float> m = S.indexInRange(i, count);
                FloatVector x = FloatVector.fromArray(S, a, off + from + i, m);
                FloatVector z = x.mul(x);
                FloatVector small = z.fma(-5.70498872745E-3f, 2.06390887954E-2f)
                        .fma(z, FloatVector.broadcast(S, -5.37397155531E-2f))
                        .fma(z, FloatVector.broadcast(S, 1.33314422036E-1f))
                        .fma(z, FloatVector.broadcast(S, -3.33332819422E-1f))
                        .mul(z).fma(x, x);
                FloatVector large = FloatVector.broadcast(S, 1f)
                        .sub(FloatVector.broadcast(S, 2f).div(FloatVector.fromArray(S, e, i, m).add(1f)));
                large = large.blend(large.neg(), x.lt(0f));
                large.blend(small, x.abs().lt(0.625f)).intoArray(a, off + from + i, m);
            }
        }
    }
}
