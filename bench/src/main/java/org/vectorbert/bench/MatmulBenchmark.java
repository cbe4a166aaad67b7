package org.vectorbert.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.vectorbert.engine.DenseLayer;
import org.vectorbert.engine.Parallel;

/**
 * The encoder's matrix kernel alone on bert-base's shapes, against the fp32 ceiling measured in
 * the same run: register-only FMA chains on every kernel thread, nothing loaded or stored.
 *
 * <pre>bench/run matmul [--threads N] [--shape ROWSxINxOUT ...]</pre>
 */
public final class MatmulBenchmark {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;

    private MatmulBenchmark() {}

    /** One kernel shape's result. */
    public record Result(int rows, int in, int out, Measure time) {
        public double gflops() {
            return 2.0 * rows * in * out / time.medianSeconds() / 1e9;
        }
    }

    public static void main(String[] args) {
        List<int[]> shapes = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--threads") && i + 1 < args.length) {
                Parallel.setThreads(Integer.parseInt(args[++i]));
            } else if (args[i].equals("--shape") && i + 1 < args.length && args[i + 1].matches("\\d+x\\d+x\\d+")) {
                String[] parts = args[++i].split("x");
                shapes.add(new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2])});
            } else {
                System.err.println("usage: bench/run matmul [--threads N] [--shape ROWSxINxOUT ...]");
                System.exit(2);
            }
        }
        double ceiling = fmaCeiling(Parallel.threads());
        System.out.printf("fp32 FMA ceiling measured now: %.0f GFLOP/s on %d threads (%s, %d-lane vectors)%n", ceiling,
                Parallel.threads(), Runtime.version(), S.length());
        List<Result> results = new ArrayList<>();
        for (int[] shape : shapes) {
            results.add(measure(shape[0], shape[1], shape[2]));
        }
        for (Result r : shapes.isEmpty() ? run() : results) {
            System.out.println(describe(r, ceiling));
        }
    }

    public static String describe(Result r, double ceiling) {
        return String.format("matmul %4d x %4d -> %4d: median %7.3f ms (best %7.3f), %4.0f GFLOP/s = %3.0f%% of the ceiling",
                r.rows(), r.in(), r.out(), r.time().medianMs(), r.time().minMs(), r.gflops(), 100 * r.gflops() / ceiling);
    }

    /** bert-base's projections (768 -> 768), up-projection (768 -> 3072) and down-projection, at 128 and 1024 rows. */
    public static List<Result> run() {
        List<Result> results = new ArrayList<>();
        for (int rows : new int[] {128, 1024}) {
            for (int[] shape : new int[][] {{768, 768}, {768, 3072}, {3072, 768}}) {
                results.add(measure(rows, shape[0], shape[1]));
            }
        }
        return results;
    }

    static Result measure(int rows, int in, int out) {
        SplittableRandom random = new SplittableRandom(rows * 31L + in * 7L + out);
        float[] w = new float[out * in];
        float[] b = new float[out];
        float[] x = new float[rows * in];
        fill(random, w);
        fill(random, b);
        fill(random, x);
        DenseLayer layer = DenseLayer.of(w, out, in, b);
        float[] y = new float[rows * out];
        Runnable task = () -> layer.apply(x, rows, y);
        // Warm up for a second at least, so C2 has compiled the kernel before timing starts.
        long until = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < until) {
            task.run();
        }
        Measure m = Measure.of(0, rows >= 1024 ? 15 : 51, task);
        return new Result(rows, in, out, m);
    }

    private static void fill(SplittableRandom random, float[] a) {
        for (int i = 0; i < a.length; i++) {
            a[i] = (float) (random.nextDouble() - 0.5);
        }
    }

    /** Iterations of one call of {@link #fmaChains}: short enough that the method is called often. */
    private static final int CHAIN_CALL = 20_000;

    /**
     * GFLOP/s of independent register-only FMA chains on {@code threads} threads, best of five.
     *
     * <p>The chains run in calls of {@link #CHAIN_CALL} iterations, warmed up before any timing, so
     * that every timed round runs C2's compiled method, and the threads start together.
     */
    public static double fmaCeiling(int threads) {
        float warm = 0;
        for (long until = System.nanoTime() + 500_000_000L; System.nanoTime() < until; ) {
            warm += fmaChains(CHAIN_CALL, warm);
        }
        double best = 0;
        int calls = 1_000;
        for (int round = 0; round < 6; round++) {
            Thread[] workers = new Thread[threads];
            float[] sink = new float[threads];
            CyclicBarrier start = new CyclicBarrier(threads + 1);
            for (int t = 0; t < threads; t++) {
                int id = t;
                workers[t] = new Thread(() -> {
                    float s = fmaChains(CHAIN_CALL, id);
                    await(start);
                    for (int c = 0; c < calls; c++) {
                        s += fmaChains(CHAIN_CALL, s);
                    }
                    sink[id] = s;
                });
                workers[t].start();
            }
            await(start);
            long begin = System.nanoTime();
            for (Thread t : workers) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            }
            double seconds = (System.nanoTime() - begin) / 1e9;
            if (round > 0) { // the first round is the JIT's
                best = Math.max(best, threads * (double) calls * CHAIN_CALL * 12 * S.length() * 2 / seconds / 1e9);
            }
        }
        return best;
    }

    private static void await(CyclicBarrier barrier) {
        try {
            barrier.await();
        } catch (InterruptedException | BrokenBarrierException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Twelve independent FMA chains, enough to cover the FMA latency on both pipes. Each accumulates
     * into its addend ({@code a += b·c}), as the tiles do: C2 then keeps the chain in one register.
     * Written {@code a = a·b + c}, C2 copied c into a fresh register for every FMA, spilled, and ran
     * a chain's FMAs back to back, at half the machine's rate.
     */
    private static float fmaChains(int n, float seed) {
        FloatVector b = FloatVector.broadcast(S, 0.999f);
        FloatVector c = FloatVector.broadcast(S, 0.001f);
        FloatVector a0 = FloatVector.broadcast(S, seed), a1 = a0.add(1), a2 = a0.add(2), a3 = a0.add(3);
        FloatVector a4 = a0.add(4), a5 = a0.add(5), a6 = a0.add(6), a7 = a0.add(7);
        FloatVector a8 = a0.add(8), a9 = a0.add(9), a10 = a0.add(10), a11 = a0.add(11);
        for (int i = 0; i < n; i++) {
            a0 = b.fma(c, a0);
            a1 = b.fma(c, a1);
            a2 = b.fma(c, a2);
            a3 = b.fma(c, a3);
            a4 = b.fma(c, a4);
            a5 = b.fma(c, a5);
            a6 = b.fma(c, a6);
            a7 = b.fma(c, a7);
            a8 = b.fma(c, a8);
            a9 = b.fma(c, a9);
            a10 = b.fma(c, a10);
            a11 = b.fma(c, a11);
        }
        return a0.add(a1).add(a2).add(a3).add(a4).add(a5).add(a6).add(a7).add(a8).add(a9).add(a10).add(a11)
                .reduceLanes(VectorOperators.ADD);
    }
}
