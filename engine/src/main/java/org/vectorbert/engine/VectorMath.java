package org.vectorbert.engine;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector shape every kernel uses, and the arithmetic they share: deterministic lane sums,
 * and exp, tanh and erf built from FMAs.
 *
 * <p>Every kernel loops the same way over a row of n floats: whole vectors up to
 * {@code S.loopBound(n)}, then at most one masked vector for the tail ({@link #tail}).
 */
final class VectorMath {
    /**
     * The machine's preferred vector shape, or the one the system property
     * {@code vectorbert.vector.bits} (128, 256 or 512) forces, so that the 256-bit path most laptops
     * take is tested on a 512-bit machine too.
     */
    static final VectorSpecies<Float> S = species(System.getProperty("vectorbert.vector.bits"));
    /** Floats per vector. */
    static final int L = S.length();
    /** Ints per vector of the same shape: bfloat16 weights travel two to an int. */
    static final VectorSpecies<Integer> I = VectorSpecies.of(int.class, S.vectorShape());

    private VectorMath() {}

    static VectorSpecies<Float> species(String bits) {
        if (bits == null || bits.isBlank()) {
            return FloatVector.SPECIES_PREFERRED;
        }
        return switch (bits.trim()) {
            case "128" -> FloatVector.SPECIES_128;
            case "256" -> FloatVector.SPECIES_256;
            case "512" -> FloatVector.SPECIES_512;
            default -> throw new EngineException("vectorbert.vector.bits must be 128, 256 or 512, was '" + bits + "'");
        };
    }

    /** The mask of the lanes of the vector at {@code i} that lie below {@code n}: the one tail idiom. */
    static jdk.incubator.vector.VectorMask<Float> tail(int i, int n) {
        return S.indexInRange(i, n);
    }

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

    /** Σ of v's lanes as a fixed pairwise tree (halves first): deterministic whether interpreted or compiled. */
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

    /**
     * {@link #sum(FloatVector)} of a vector stored at t[off .. off+L): the same tree in scalar adds
     * (overwrites t). For kernels C2 stops inlining before the lane sum: a vector passed to a call
     * that is not inlined is boxed, about 100 bytes of garbage per call.
     */
    static float sumStored(float[] t, int off) {
        for (int half = L / 2; half > 0; half /= 2) {
            for (int i = 0; i < half; i++) {
                t[off + i] += t[off + i + half];
            }
        }
        return t[off];
    }

    /** Σ a[off .. off+n): lanes accumulated in vectors, the tail masked, then the fixed tree. */
    static float sum(float[] a, int off, int n) {
        FloatVector acc = FloatVector.zero(S);
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) {
            acc = acc.add(FloatVector.fromArray(S, a, off + i));
        }
        if (i < n) {
            acc = acc.add(FloatVector.fromArray(S, a, off + i, tail(i, n)));
        }
        return sum(acc);
    }

    // ---- bfloat16 ----

    /** bfloat16 in the low halves of v's lanes, widened (exactly) to float32. */
    static FloatVector low(IntVector v) {
        return v.lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats();
    }

    /** bfloat16 in the high halves of v's lanes, widened (exactly) to float32. */
    static FloatVector high(IntVector v) {
        return v.and(0xFFFF0000).reinterpretAsFloats();
    }

    // ---- exp, tanh and erf from FMAs ----
    /*
     * Lanewise EXP and TANH run Java's Math functions when interpreted and the JIT's vector math
     * library once compiled; the two differ in the last bit, so the same text gave different
     * floats before and after warm-up. These are built from adds, multiplies and FMAs only, which
     * are exact IEEE operations either way (Cephes' expf and tanhf, about 1 ulp).
     */
    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;
    /** 1.5·2²³: adding and subtracting it rounds a float below 2²² to the nearest integer. */
    private static final float ROUNDER = 12582912f;
    private static final float EXP_MAX = 88.72283f;
    private static final float EXP_MIN = -87.33654f;

    /** e^x per lane: x = n·ln2 + r with |r| ≤ ln2/2, e^r by a degree-7 polynomial, times 2^n. */
    static FloatVector exp(FloatVector x) {
        FloatVector c = x.max(EXP_MIN).min(EXP_MAX);
        FloatVector n = c.fma(LOG2E, ROUNDER).sub(ROUNDER);
        FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), c);
        r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
        FloatVector p = r.fma(1.9875691500E-4f, 1.3981999507E-3f)
                .fma(r, FloatVector.broadcast(S, 8.3334519073E-3f))
                .fma(r, FloatVector.broadcast(S, 4.1665795894E-2f))
                .fma(r, FloatVector.broadcast(S, 1.6666665459E-1f))
                .fma(r, FloatVector.broadcast(S, 5.0000001201E-1f));
        FloatVector y = p.mul(r.mul(r)).add(r).add(1f);
        IntVector bits = ((IntVector) n.convert(VectorOperators.F2I, 0)).add(127).lanewise(VectorOperators.LSHL, 23);
        FloatVector result = y.mul(bits.reinterpretAsFloats());
        // Below the smallest normal result e^x is 0 as far as float32 softmax cares (masked keys land here).
        return result.blend(0f, x.lt(EXP_MIN)).blend(Float.POSITIVE_INFINITY, x.compare(VectorOperators.GT, EXP_MAX));
    }

    /** tanh per lane: an odd polynomial below 0.625, else 1 - 2/(e^2|x| + 1), sign restored. */
    static FloatVector tanh(FloatVector x) {
        FloatVector ax = x.abs();
        FloatVector z = x.mul(x);
        FloatVector small = z.fma(-5.70498872745E-3f, 2.06390887954E-2f)
                .fma(z, FloatVector.broadcast(S, -5.37397155531E-2f))
                .fma(z, FloatVector.broadcast(S, 1.33314422036E-1f))
                .fma(z, FloatVector.broadcast(S, -3.33332819422E-1f))
                .mul(z).fma(x, x);
        FloatVector large = FloatVector.broadcast(S, 1f).sub(FloatVector.broadcast(S, 2f).div(exp(ax.add(ax)).add(1f)));
        large = large.blend(large.neg(), x.lt(0f));
        return large.blend(small, ax.lt(0.625f));
    }

    /**
     * erf by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7):
     * 1 - (a1·t + a2·t² + a3·t³ + a4·t⁴ + a5·t⁵)·e^(-x²) with t = 1/(1 + p·|x|), sign restored.
     */
    static FloatVector erf(FloatVector x) {
        FloatVector ax = x.abs();
        FloatVector t = FloatVector.broadcast(S, 1f).div(ax.fma(0.3275911f, 1f));
        FloatVector poly = t.fma(1.061405429f, -1.453152027f)
                .fma(t, FloatVector.broadcast(S, 1.421413741f))
                .fma(t, FloatVector.broadcast(S, -0.284496736f))
                .fma(t, FloatVector.broadcast(S, 0.254829592f))
                .mul(t);
        FloatVector y = poly.mul(exp(ax.mul(ax).neg())).neg().add(1f);
        return y.blend(y.neg(), x.lt(0f));
    }
}
