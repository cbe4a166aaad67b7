package org.vectorbert.bench;

import java.util.SplittableRandom;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.vectorbert.engine.DenseLayer;
import org.vectorbert.engine.Parallel;

/**
 * Whether an int8 matrix product can beat the float32 kernel with the Vector API, before building an int8 mode:
 * ONNX Runtime's dynamic quantisation (int8 weights with per-channel scales, activations quantised per row at run
 * time, int32 sums) against the engine's float32 tile ({@link DenseLayer}), one thread, bert-base's shapes, timed
 * side by side (interleaved rounds).
 *
 * <p>The Vector API has no 8-bit dot product (AVX-512 VNNI's {@code vpdpbusd}, AVX2's {@code vpmaddubsw}), so the int8
 * kernel widens: weights stored as int8 in the float32 kernel's panel layout ([in][16] per panel of 16 columns),
 * loaded 16 at a time and widened to shorts, multiplied by the row's quantised input as a broadcast short (products
 * of two int8 values fit in 16 bits), and each product vector split into two int vectors by shifts and added to int32
 * accumulators: four rows a tile, 8 accumulators, as the float32 tile keeps its sums in registers. Per input element
 * and row that is a multiply, three shifts and two adds for 16 products, where float32 does two FMAs. The result is
 * checked against a scalar int8 product (exact: integers), so the timing is of a kernel that computes the right thing.
 *
 * <pre>bench/run int8 [--rounds N]</pre>
 */
public final class Int8Benchmark {
    private static final VectorSpecies<Byte> B128 = ByteVector.SPECIES_128;
    private static final VectorSpecies<Short> S256 = ShortVector.SPECIES_256;
    private static final VectorSpecies<Integer> I256 = IntVector.SPECIES_256;
    /** Columns per panel: 16 shorts fill a 256-bit vector. */
    private static final int PANEL = 16;
    private static final int TILE_ROWS = 4;

    private Int8Benchmark() {}

    public static void main(String[] args) {
        int rounds = 31;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--rounds") && i + 1 < args.length) {
                rounds = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: bench/run int8 [--rounds N]");
                System.exit(2);
            }
        }
        Parallel.setThreads(1);
        System.out.printf("int8 (widened to shorts, int32 sums) against float32 (the engine's tile), 1 thread, %s, %d-bit vectors%n",
                Runtime.version(), jdk.incubator.vector.FloatVector.SPECIES_PREFERRED.vectorBitSize());
        for (int[] shape : new int[][] {{128, 768, 768}, {128, 768, 3072}, {128, 3072, 768}}) {
            run(shape[0], shape[1], shape[2], rounds);
        }
    }

    private static void run(int rows, int in, int out, int rounds) {
        SplittableRandom random = new SplittableRandom(rows * 31L + in * 7L + out);
        float[] w = new float[out * in];
        float[] x = new float[rows * in];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) random.nextGaussian() * 0.05f;
        }
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        DenseLayer f32 = DenseLayer.of(w, out, in, new float[out]);
        float[] y32 = new float[rows * out];

        // Weights: per output channel, symmetric, to [-127, 127], in panels [p][k][16].
        float[] wScale = new float[out];
        byte[] wq = new byte[out * in];
        for (int o = 0; o < out; o++) {
            float max = 0;
            for (int k = 0; k < in; k++) {
                max = Math.max(max, Math.abs(w[o * in + k]));
            }
            wScale[o] = max / 127f;
            for (int k = 0; k < in; k++) {
                wq[(o / PANEL) * in * PANEL + k * PANEL + o % PANEL] = (byte) Math.round(w[o * in + k] / wScale[o]);
            }
        }
        short[] xq = new short[rows * in];
        float[] xScale = new float[rows];
        int[] acc = new int[rows * out];
        float[] y8 = new float[rows * out];
        Runnable int8 = () -> {
            quantiseRows(x, rows, in, xq, xScale);
            product(xq, rows, in, wq, out, acc);
            for (int r = 0; r < rows; r++) {
                for (int o = 0; o < out; o++) {
                    y8[r * out + o] = acc[r * out + o] * xScale[r] * wScale[o];
                }
            }
        };
        Runnable float32 = () -> f32.apply(x, rows, y32);

        // Warm both up for a second at least, so C2 has compiled them before timing starts.
        long until = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < until) {
            int8.run();
            float32.run();
        }
        check(xq, rows, in, wq, out, acc);
        Measure[] m = Measure.interleaved(0, rounds, float32, int8);
        double macs = (double) rows * in * out;
        double worst = 0;
        double scale = 0;
        for (int i = 0; i < y32.length; i++) {
            worst = Math.max(worst, Math.abs(y8[i] - y32[i]));
            scale = Math.max(scale, Math.abs(y32[i]));
        }
        System.out.printf("%4d x %4d -> %4d: float32 %7.3f ms (%5.1f GMAC/s), int8 %7.3f ms (%5.1f GMAC/s): int8 takes %.2f x float32's "
                        + "time; int8's largest error %.4f of the largest output%n",
                rows, in, out, m[0].medianMs(), macs / m[0].medianSeconds() / 1e9, m[1].medianMs(), macs / m[1].medianSeconds() / 1e9,
                m[1].medianSeconds() / m[0].medianSeconds(), worst / scale);
    }

    /** Each row to [-127, 127] by its own scale (dynamic quantisation: the scale is found at run time). */
    private static void quantiseRows(float[] x, int rows, int in, short[] xq, float[] xScale) {
        for (int r = 0; r < rows; r++) {
            float max = 0;
            for (int k = 0; k < in; k++) {
                max = Math.max(max, Math.abs(x[r * in + k]));
            }
            float s = max == 0 ? 1 : max / 127f;
            xScale[r] = s;
            float inverse = 1 / s;
            for (int k = 0; k < in; k++) {
                xq[r * in + k] = (short) Math.round(x[r * in + k] * inverse);
            }
        }
    }

    /**
     * acc = xq · wqᵀ in int32, four rows at a time through each panel of 16 columns. Each 16-bit product vector is read
     * as 8 ints, whose low halves (the even columns) come out by a left then an arithmetic right shift and whose high
     * halves (the odd columns) by an arithmetic right shift: both are intrinsics. (Widening the upper half with
     * convertShape's part 1 is not: it ran the API's Java fallback, allocating on every call.)
     */
    static void product(short[] xq, int rows, int in, byte[] wq, int out, int[] acc) {
        int[] lanes = new int[8];
        for (int p = 0; p < out / PANEL; p++) {
            int panel = p * in * PANEL;
            for (int r = 0; r < rows; r += TILE_ROWS) {
                IntVector a0 = IntVector.zero(I256), a1 = IntVector.zero(I256);
                IntVector b0 = IntVector.zero(I256), b1 = IntVector.zero(I256);
                IntVector c0 = IntVector.zero(I256), c1 = IntVector.zero(I256);
                IntVector d0 = IntVector.zero(I256), d1 = IntVector.zero(I256);
                int x0 = r * in;
                for (int k = 0; k < in; k++) {
                    ShortVector wk = (ShortVector) ByteVector.fromArray(B128, wq, panel + k * PANEL).convertShape(VectorOperators.B2S, S256, 0);
                    IntVector pa = wk.mul(xq[x0 + k]).reinterpretAsInts();
                    IntVector pb = wk.mul(xq[x0 + in + k]).reinterpretAsInts();
                    IntVector pc = wk.mul(xq[x0 + 2 * in + k]).reinterpretAsInts();
                    IntVector pd = wk.mul(xq[x0 + 3 * in + k]).reinterpretAsInts();
                    a0 = a0.add(pa.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
                    a1 = a1.add(pa.lanewise(VectorOperators.ASHR, 16));
                    b0 = b0.add(pb.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
                    b1 = b1.add(pb.lanewise(VectorOperators.ASHR, 16));
                    c0 = c0.add(pc.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
                    c1 = c1.add(pc.lanewise(VectorOperators.ASHR, 16));
                    d0 = d0.add(pd.lanewise(VectorOperators.LSHL, 16).lanewise(VectorOperators.ASHR, 16));
                    d1 = d1.add(pd.lanewise(VectorOperators.ASHR, 16));
                }
                int o = r * out + p * PANEL;
                store(a0, a1, acc, o, lanes);
                store(b0, b1, acc, o + out, lanes);
                store(c0, c1, acc, o + 2 * out, lanes);
                store(d0, d1, acc, o + 3 * out, lanes);
            }
        }
    }

    /** Even columns' sums and odd columns' sums back into column order. */
    private static void store(IntVector even, IntVector odd, int[] acc, int o, int[] lanes) {
        even.intoArray(lanes, 0);
        for (int i = 0; i < 8; i++) {
            acc[o + 2 * i] = lanes[i];
        }
        odd.intoArray(lanes, 0);
        for (int i = 0; i < 8; i++) {
            acc[o + 2 * i + 1] = lanes[i];
        }
    }

    /** The vector kernel's sums against plain integer arithmetic: they must be equal. */
    private static void check(short[] xq, int rows, int in, byte[] wq, int out, int[] acc) {
        for (int r = 0; r < rows; r += 17) {
            for (int o = 0; o < out; o += 13) {
                int sum = 0;
                for (int k = 0; k < in; k++) {
                    sum += xq[r * in + k] * wq[(o / PANEL) * in * PANEL + k * PANEL + o % PANEL];
                }
                if (sum != acc[r * out + o]) {
                    throw new IllegalStateException("int8 kernel wrong at row " + r + ", column " + o + ": " + acc[r * out + o] + " != " + sum);
                }
            }
        }
    }
}
