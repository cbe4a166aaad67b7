package org.vectorbert.engine;

import java.util.Arrays;
import java.util.Random;

/**
 * The attention kernel's speed against the matrix kernel's, in one JVM on the kernel threads: one text of {@code --seq}
 * tokens, every head of a base-sized layer (12 of 64) through {@link Kernels#attention} as {@link AttentionHeads} runs
 * them, and the layer's [seq, 768] x [768 -> 3072] product through {@link MatMul}, timed in alternation after warm-up.
 * The long-text target of the architectures benchmark depends on the ratio: at 8,192 tokens attention is 57% of a
 * base encoder's arithmetic. Run by {@code bench/run attention}; the kernel is package-private, hence a main in the tests.
 *
 * <pre>bench/run attention [--seq N] [--rounds N] [--threads N]</pre>
 */
public final class AttentionTiming {
    private static final int HEADS = 12;
    private static final int HEAD_SIZE = 64;
    private static final int HIDDEN = HEADS * HEAD_SIZE;
    private static final int INNER = 4 * HIDDEN;

    private AttentionTiming() {}

    public static void main(String[] args) {
        int seq = 8192;
        int rounds = 5;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 < args.length && args[i + 1].matches("[1-9]\\d{0,5}")) {
                int n = Integer.parseInt(args[i + 1]);
                switch (args[i++]) {
                    case "--seq" -> seq = n;
                    case "--rounds" -> rounds = n;
                    case "--threads" -> Parallel.setThreads(n);
                    default -> usage();
                }
            } else {
                usage();
            }
        }
        Random random = new Random(1);
        float[] q = SlowPathCheck.randoms(random, seq * HIDDEN);
        float[] k = SlowPathCheck.randoms(random, seq * HIDDEN);
        float[] v = SlowPathCheck.randoms(random, seq * HIDDEN);
        float[] ctx = new float[seq * HIDDEN];
        float[] mask = new float[seq];
        PackedMatrix up = PackedMatrix.pack(SlowPathCheck.randoms(random, INNER * HIDDEN), INNER, HIDDEN, new float[INNER]);
        float[] inner = new float[seq * INNER];
        int length = seq;
        int work = Kernels.attentionScratch(seq, HEAD_SIZE);
        Runnable attention = () -> Parallel.forRange(HEADS, 1, (from, to) -> {
            float[] scratch = Kernels.attentionScratch(work);
            for (int h = from; h < to; h++) {
                Kernels.attention(q, 0, length, k, v, HIDDEN, 0, length, h * HEAD_SIZE, HEAD_SIZE, mask, 0, null, null, null,
                        0, null, 0, ctx, scratch, 0);
            }
        });
        Runnable matrix = () -> MatMul.linear(q, length, up, inner);
        double attentionFlops = 4.0 * seq * (double) seq * HIDDEN;
        double matrixFlops = 2.0 * seq * (double) HIDDEN * INNER;
        for (int i = 0; i < 2; i++) {
            attention.run();
            matrix.run();
        }
        double[] a = new double[rounds];
        double[] m = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            a[r] = seconds(attention);
            m[r] = seconds(matrix);
        }
        double aRate = attentionFlops / median(a) / 1e9;
        double mRate = matrixFlops / median(m) / 1e9;
        System.out.printf("%d tokens, %d heads of %d, %d threads, %s, medians of %d rounds%n", seq, HEADS, HEAD_SIZE,
                Parallel.threads(), Runtime.version(), rounds);
        System.out.printf("attention  : %8.1f ms, %4.0f GFLOP/s%n", median(a) * 1e3, aRate);
        System.out.printf("matrix %d x %d -> %d: %8.1f ms, %4.0f GFLOP/s%n", seq, HIDDEN, INNER, median(m) * 1e3, mRate);
        System.out.printf("attention / matrix GFLOP/s: %.2f%n", aRate / mRate);
    }

    private static void usage() {
        System.err.println("usage: bench/run attention [--seq N] [--rounds N] [--threads N]");
        System.exit(2);
    }

    private static double seconds(Runnable task) {
        long start = System.nanoTime();
        task.run();
        return (System.nanoTime() - start) / 1e9;
    }

    private static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
