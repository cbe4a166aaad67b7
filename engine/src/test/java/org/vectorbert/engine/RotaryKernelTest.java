package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * ModernBERT's kernels beside the shared ones: rotary positions and the GeGLU's gate, the vector kernels against a
 * scalar double-precision twin ({@link ScalarKernels#rotary}) and against their plain twins bit for bit, over head widths
 * that are and are not multiples of the vector length. Run at both vector widths (the engine's surefire executions).
 */
class RotaryKernelTest {
    private final Random random = new Random(52);

    private float[] random(int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    @Test
    void rotaryMatchesTheDefinitionAndItsPlainTwin() {
        for (int headSize : new int[] {2, 6, 16, 18, 32, 34, 64, 70}) {
            for (int heads : new int[] {1, 3}) {
                for (int count : new int[] {1, 5, 40, 300}) {
                    for (double base : new double[] {10000.0, 160000.0}) {
                        int hidden = heads * headSize;
                        int row0 = 2;     // the sequence's rows start past others: positions count from its first row
                        Rotary tables = Rotary.of(base, headSize, count);
                        float[] x = random((row0 + count + 1) * hidden);
                        float[] vector = x.clone();
                        float[] plain = x.clone();
                        RowKernels.rotary(vector, row0, count, hidden, headSize, tables.cos(), tables.sin());
                        PlainRows.rotary(plain, row0, count, hidden, headSize, tables.cos(), tables.sin());
                        String at = "d " + headSize + ", heads " + heads + ", rows " + count + ", base " + base;
                        assertArrayEquals(plain, vector, at);
                        double[] want = ScalarKernels.rotary(Arrays.copyOfRange(x, row0 * hidden, (row0 + count) * hidden), count,
                                hidden, headSize, base);
                        double largest = 0;
                        for (float v : x) {
                            largest = Math.max(largest, Math.abs(v));
                        }
                        for (int i = 0; i < want.length; i++) {
                            // float32 angles (as transformers forces) are off the exact ones by a few ulps of p radians
                            int p = i / hidden;
                            double tolerance = 2e-6 + 4 * p * 0x1p-24 * 2 * largest;
                            double d = Math.abs(want[i] - vector[row0 * hidden + i]);
                            assertTrue(d <= tolerance, at + ": position " + p + " differs by " + d);
                        }
                        assertArrayEquals(Arrays.copyOf(x, row0 * hidden), Arrays.copyOf(vector, row0 * hidden), "rows before untouched");
                        assertArrayEquals(Arrays.copyOfRange(x, (row0 + count) * hidden, x.length),
                                Arrays.copyOfRange(vector, (row0 + count) * hidden, x.length), "rows after untouched");
                    }
                }
            }
        }
    }

    @Test
    void theGateMultipliesAsItsPlainTwinAndTheDefinition() {
        for (int n : new int[] {1, 3, 7, 8, 16, 17, 33, 100, 257}) {
            float[] a = random(n);
            float[] b = random(n + 5);
            float[] vector = a.clone();
            float[] plain = a.clone();
            RowKernels.multiplyInPlace(vector, b, 5, n);
            PlainRows.multiplyInPlace(plain, b, 5, n);
            assertArrayEquals(plain, vector, "n " + n);
            for (int i = 0; i < n; i++) {
                assertTrue(vector[i] == a[i] * b[5 + i], "n " + n + " at " + i);
            }
        }
    }
}
