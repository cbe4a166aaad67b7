package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Tensor;

/** Each SIMD kernel against its scalar twin over random shapes, most not multiples of the vector length. */
class KernelsTest {
    private static final int[] SIZES = {1, 2, 3, 4, 5, 7, 15, 16, 17, 31, 33, 64, 100, 129};
    /** Each test method gets its own instance, so its data does not depend on which tests ran before it. */
    private final Random random = new Random(42);

    float[] random(int n, float scale) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) (random.nextGaussian() * scale);
        }
        return a;
    }

    static void assertClose(float[] expected, float[] actual, double tolerance, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            double bound = tolerance * Math.max(1, Math.abs(expected[i]));
            assertTrue(Math.abs(expected[i] - actual[i]) <= bound,
                    what + " at " + i + ": expected " + expected[i] + " but was " + actual[i]);
        }
    }

    @Test
    void theVectorWidthIsTheOneAskedFor() {
        String asked = System.getProperty("vectorbert.vector.bits", "");
        int expected = asked.isBlank() ? jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.vectorBitSize() : Integer.parseInt(asked);
        assertEquals(expected, VectorMath.S.vectorBitSize());
        assertEquals(expected / 32, VectorMath.L);
        assertEquals(VectorMath.L >= 16 ? 4 * VectorMath.L : 2 * VectorMath.L, PackedMatrix.PANEL);
    }

    @Test
    void linearMatchesItsTwinForEveryShape() {
        {
            for (int rows : new int[] {1, 2, 3, 4, 5, 8, 9}) {
                for (int in : SIZES) {
                    for (int out : new int[] {1, 3, 4, 5, 8, 17, 33, 70}) {
                        float[] x = random(rows * in, 1);
                        float[] w = random(out * in, 0.5f);
                        float[] b = random(out, 1);
                        float[] y = new float[rows * out];
                        MatMul.linear(x, rows, PackedMatrix.pack(w, out, in, b), y);
                        assertClose(ScalarKernels.linear(x, rows, in, w, b, out), y, 1e-5, rows + "x" + in + " -> " + out);
                        MatMul.linear(x, rows, PackedMatrix.pack(w, out, in, null), y);
                        assertClose(ScalarKernels.linear(x, rows, in, w, null, out), y, 1e-5, "no bias " + rows + "x" + in);
                    }
                }
            }
        }
    }

    @Test
    void packedLinearMatchesItsTwinForEveryShape() {
        for (int rows : new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13}) {
            for (int in : SIZES) {
                for (int out : new int[] {1, 3, 16, 17, 63, 64, 65, 130, 200}) {
                    float[] x = random(rows * in, 1);
                    float[] w = random(out * in, 0.5f);
                    float[] b = random(out, 1);
                    float[] y = new float[rows * out];
                    MatMul.linear(x, rows, PackedMatrix.pack(w, out, in, b), y);
                    assertClose(ScalarKernels.linear(x, rows, in, w, b, out), y, 1e-5, "packed " + rows + "x" + in + " -> " + out);
                    MatMul.linear(x, rows, PackedMatrix.pack(w, out, in, null), y);
                    assertClose(ScalarKernels.linear(x, rows, in, w, null, out), y, 1e-5, "packed, no bias");
                }
            }
        }
    }

    /** Tiles of 4, 5, 6 and single rows sum in one order: a row's output does not depend on its batch. */
    @Test
    void packedRowsGiveTheSameBitsAloneAndInAnyBatch() {
        int in = 96;
        int out = 130;
        float[] w = random(out * in, 0.5f);
        for (int i = 0; i < w.length; i++) {
            w[i] = Float.intBitsToFloat(PackedMatrix.bf16(w[i]) << 16); // exact in bf16, so both precisions agree
        }
        float[] b = random(out, 1);
        Tensor weight = new Tensor("w", DType.F32, new long[] {out, in}, MemorySegment.ofArray(w));
        Tensor bias = new Tensor("b", DType.F32, new long[] {out}, MemorySegment.ofArray(b));
        PackedMatrix f32 = PackedMatrix.pack(weight, bias, Precision.F32);
        PackedMatrix bf16 = PackedMatrix.pack(weight, bias, Precision.BF16);
        float[] x = random(13 * in, 1);
        float[][] alone = new float[13][out];
        for (int r = 0; r < 13; r++) {
            MatMul.linear(java.util.Arrays.copyOfRange(x, r * in, (r + 1) * in), 1, f32, alone[r]);
        }
        for (int rows = 1; rows <= 13; rows++) {
            for (PackedMatrix m : List.of(f32, bf16)) {
                float[] y = new float[rows * out];
                MatMul.linear(x, rows, m, y);
                for (int r = 0; r < rows; r++) {
                    assertArrayEquals(alone[r], java.util.Arrays.copyOfRange(y, r * out, (r + 1) * out),
                            "row " + r + " of " + rows + (m.bf16 ? ", bf16" : ""));
                }
            }
        }
    }

    @Test
    void linearSplitsAcrossThreadsWithTheSameResult() {
        {
            float[] x = random(7 * 300, 1);
            float[] w = random(1001 * 300, 0.1f);
            float[] ws = w;
            float[] one = new float[7 * 1001];
            float[] many = new float[7 * 1001];
            int before = Parallel.threads();
            try {
                PackedMatrix packed = PackedMatrix.pack(ws, 1001, 300, null);
                Parallel.setThreads(1);
                MatMul.linear(x, 7, packed, one);
                Parallel.setThreads(3);
                MatMul.linear(x, 7, packed, many);
            } finally {
                Parallel.setThreads(before);
            }
            // To rounding: the JIT may compile the reductions between the two runs (lanes summed in another order).
            assertClose(one, many, 1e-6, "1 thread vs 3");
        }
    }

    @Test
    void exactGeluIsWithinOneMillionthOverMinusTenToTen() {
        int n = 200_001;
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = -10f + 20f * i / (n - 1);
        }
        float[] y = x.clone();
        RowKernels.gelu(y, 0, n);
        double worst = 0;
        for (int i = 0; i < n; i++) {
            worst = Math.max(worst, Math.abs(y[i] - ScalarKernels.gelu(x[i])));
        }
        assertTrue(worst <= 1e-6, "max abs error " + worst);
    }

    @Test
    void tanhGeluReluAndTanhMatchTheirDefinitions() {
        float[] x = random(1003, 3);
        float[] g = x.clone();
        RowKernels.geluTanh(g, 0, g.length);
        float[] r = x.clone();
        RowKernels.relu(r, 0, r.length);
        float[] t = x.clone();
        RowKernels.tanh(t, 0, t.length);
        float[] s = x.clone();
        RowKernels.silu(s, 0, s.length);
        for (int i = 0; i < x.length; i++) {
            assertEquals(ScalarKernels.geluTanh(x[i]), g[i], 2e-6, "gelu_new at " + x[i]);
            assertEquals(Math.max(0, x[i]), r[i], 0, "relu");
            assertEquals(Math.tanh(x[i]), t[i], 2e-7, "tanh at " + x[i]);
            assertEquals(x[i] / (1 + Math.exp(-x[i])), s[i], 2e-6 * Math.max(1, Math.abs(x[i])), "silu at " + x[i]);
        }
        float[] far = {-1000f, -100f, -88f, -20f, 20f, 88f, 100f, 1000f};
        float[] farSilu = far.clone();
        RowKernels.silu(farSilu, 0, far.length);
        for (int i = 0; i < far.length; i++) {
            assertEquals(far[i] / (1 + Math.exp(-far[i])), farSilu[i], 1e-6 * Math.abs(far[i]), "silu at " + far[i]);
        }
    }

    @Test
    void erfReferenceIsRight() {
        assertEquals(0.8427007929497149, ScalarKernels.erf(1), 1e-15);
        assertEquals(0.9999779095030014, ScalarKernels.erf(3), 1e-15);
        assertEquals(-0.5204998778130465, ScalarKernels.erf(-0.5), 1e-15);
    }

    @Test
    void layerNormMatchesItsTwin() {
        {
            for (int dim : SIZES) {
                float[] x = random(3 * dim, 2);
                for (int i = 0; i < dim; i++) {
                    x[i] += 50; // a large mean, where one-pass variance would lose digits
                }
                float[] g = random(dim, 1);
                float[] b = random(dim, 1);
                float[] y = new float[x.length];
                RowKernels.layerNorm(x, 3, dim, g, b, 1e-12f, y);
                assertClose(ScalarKernels.layerNorm(x, 3, dim, g, b, 1e-12), y, 2e-5, "dim " + dim);
            }
        }
    }

    @Test
    void softmaxWeightsAreStableMaskedAndBiased() {
        for (int n : SIZES) {
            float[] a = random(n, 30);
            a[0] += 80; // exp would overflow without subtracting the maximum
            float[] bias = random(n + VectorMath.L, 2);
            float[] biased = a.clone();
            for (int i = 0; i < n; i++) {
                biased[i] += bias[i];
            }
            for (boolean withBias : new boolean[] {false, true}) {
                float[] expected = ScalarKernels.softmax(withBias ? biased : a);
                float[] padded = paddedToVectors(a);
                float inv = RowKernels.softmaxWeights(padded, 0, padded.length, withBias ? bias : null, 0);
                float[] probabilities = new float[n];
                for (int i = 0; i < n; i++) {
                    probabilities[i] = padded[i] * inv;
                }
                assertClose(expected, probabilities, 1e-6, "n " + n + (withBias ? ", biased" : ""));
                for (int i = n; i < padded.length; i++) {
                    assertEquals(0, Float.floatToRawIntBits(padded[i]), "padding's weight, n " + n);
                }
            }
        }
        float[] masked = paddedToVectors(new float[] {1f, 2f, -Float.MAX_VALUE, 3f});
        float inv = RowKernels.softmaxWeights(masked, 0, masked.length, null, 0);
        assertEquals(0f, masked[2]);
        assertEquals(1.0, (masked[0] + masked[1] + masked[3]) * inv, 1e-6);
    }

    @Test
    void softmaxWeightsAreExpToTheFloatAndNeverSubnormal() {
        // Every x from 0 down past WEIGHT_MIN, in steps of a few ulps near the edge.
        float[] x = new float[16 * 1024];
        for (int i = 0; i < x.length; i++) {
            x[i] = i < x.length / 2 ? -88f * i / (x.length / 2) : -86.5f - 1f * (i - x.length / 2) / (x.length / 2);
        }
        float[] e = x.clone();
        VectorMath.weights(e, 0, e.length, 0f);
        for (int i = 0; i < x.length; i++) {
            if (x[i] < VectorMath.WEIGHT_MIN) {
                assertEquals(0f, e[i], "below the minimum: " + x[i]);
            } else {
                assertTrue(e[i] >= Float.MIN_NORMAL, "subnormal weight at " + x[i]);
                assertEquals(Math.exp(x[i]), e[i], 2e-7 * Math.exp(x[i]), "e^" + x[i]);
            }
        }
    }

    /** a, then -∞ up to a whole number of vectors, as attention pads its score rows. */
    static float[] paddedToVectors(float[] a) {
        int n = Math.max(VectorMath.L, (a.length + VectorMath.L - 1) / VectorMath.L * VectorMath.L);
        float[] padded = Arrays.copyOf(a, n);
        Arrays.fill(padded, a.length, n, Float.NEGATIVE_INFINITY);
        return padded;
    }

    @Test
    void attentionMatchesItsTwin() {
        // Lengths below, at and past a pair of vectors (1 to 300 keys), so rows are padded by 0 to 2L - 1 keys whose
        // probability must be exactly 0; every key, then a sliding window of 3 (within one block of keys) and of 40
        // (across blocks, and across query chunks at 300).
        for (int seq : new int[] {1, 2, 5, 17, 40, 70, 130, 300}) {
            for (int[] shape : new int[][] {{8, 2}, {64, 4}, {48, 3}, {256, 4}, {64, 2}, {160, 2}}) {
                for (int window : new int[] {0, 3, 40}) {
                    assertAttentionMatchesItsTwin(seq, shape[0], shape[1], window);
                }
            }
        }
    }

    private void assertAttentionMatchesItsTwin(int seq, int hidden, int heads, int window) {
        int d = hidden / heads;
        float[] q = random(seq * hidden, 1);
        float[] k = random(seq * hidden, 1);
        float[] v = random(seq * hidden, 1);
        float[] mask = new float[seq];
        if (seq > 2) {
            mask[seq - 1] = -Float.MAX_VALUE;
        }
        float[] ctx = new float[seq * hidden];
        float[] scores = new float[seq * seq];
        // The odd heads with a relative bias (MPNet's): query i's row of it begins at seq - 1 - i.
        float[] bias = random(2 * seq + 64, 2);
        int[] biasRows = IntStream.range(0, seq).map(i -> seq - 1 - i).toArray();
        for (int h = 0; h < heads; h++) {
            boolean biased = h % 2 == 1;
            AttentionKernel.head(q, 0, seq, k, v, hidden, 0, seq, h * d, d, mask, 0, biased ? bias : null, biased ? biasRows : null,
                    null, window, scores, 0, ctx, new float[Kernels.attentionScratch(seq, d)], 0);
        }
        assertClose(ScalarKernels.attention(q, k, v, seq, hidden, heads, mask, bias, seq - 1, window), ctx, 1e-5,
                "seq " + seq + " hidden " + hidden + " window " + window);
    }

    @Test
    void expAndTanhFromFmasAreWithinAnUlpOrTwo() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        int n = 1001;   // not a multiple of the vector length: the last partial vector too
        float[] x = new float[n];
        float[] e = new float[n];
        float[] t = new float[n];
        double worstExp = 0;
        double worstTanh = 0;
        for (int round = 0; round < 200; round++) {
            for (int i = 0; i < x.length; i++) {
                x[i] = round % 2 == 0 ? (float) random.nextDouble(-87, 88) : (float) random.nextDouble(-10, 10);
            }
            System.arraycopy(x, 0, e, 0, n);
            VectorMath.expInPlace(e, 0, n, 0f, new float[VectorMath.L], 0);
            System.arraycopy(x, 0, t, 0, n);
            VectorMath.tanhInPlace(t, 0, n);
            for (int i = 0; i < x.length; i++) {
                double exact = Math.exp(x[i]);
                worstExp = Math.max(worstExp, Math.abs(e[i] - exact) / Math.ulp((float) exact));
                double th = Math.tanh(x[i]);
                worstTanh = Math.max(worstTanh, Math.abs(t[i] - th) / Math.ulp((float) Math.max(Math.abs(th), 1e-30)));
            }
        }
        assertTrue(worstExp <= 2, "exp off by " + worstExp + " ulp");
        assertTrue(worstTanh <= 4, "tanh off by " + worstTanh + " ulp");
        float[] edge = {-Float.MAX_VALUE, 100f, 0f};
        VectorMath.expInPlace(edge, 0, 3, 0f, new float[VectorMath.L], 0);
        assertEquals(0f, edge[0]);
        assertEquals(Float.POSITIVE_INFINITY, edge[1]);
        assertEquals(1f, edge[2]);
    }

    @Test
    void expGivesItsPlainTwinsBitsForEveryShiftAndLengthAndTouchesNothingElse() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        float[] special = {Float.NaN, Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY, -0f, 0f, -87.33654f, 88.72283f,
            Math.nextDown(-87.33654f), Math.nextUp(88.72283f), -Float.MAX_VALUE, Float.MAX_VALUE, Float.MIN_VALUE, -103.9f};
        float[] shifts = {0f, 3.5f, -2f, 80f, -Float.MAX_VALUE, Float.NEGATIVE_INFINITY};
        for (int n = 0; n <= 3 * VectorMath.L + 1; n++) {
            for (float shift : shifts) {
                float[] a = new float[n + 6];
                for (int i = 0; i < a.length; i++) {
                    a[i] = random.nextInt(4) == 0 ? special[random.nextInt(special.length)] : (float) random.nextDouble(-100, 100);
                }
                float[] before = a.clone();
                float[] tail = new float[VectorMath.L + 2];
                VectorMath.expInPlace(a, 3, n, shift, tail, 1);
                for (int i = 0; i < a.length; i++) {
                    float expected = i < 3 || i >= 3 + n ? before[i] : PlainRows.exp(before[i] - shift);
                    assertEquals(Float.floatToRawIntBits(expected), Float.floatToRawIntBits(a[i]),
                            "n " + n + " shift " + shift + " at " + i + " of " + before[i]);
                }
            }
        }
    }
}
