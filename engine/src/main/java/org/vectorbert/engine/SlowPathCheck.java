package org.vectorbert.engine;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A timed self-check, after warm-up, that the kernels run compiled by C2: each hot kernel is timed
 * once on a small input shaped like the model's recent passes, and one that runs far below any speed
 * C2's code reaches is on the Vector API's slow path (interpreted or C1 code, every vector boxed).
 * That is said once per JVM through {@code System.Logger} {@code org.vectorbert}, naming the kernel
 * and its speed, instead of running slowly in silence.
 *
 * <p>The floors sit between the two paths with a wide margin on both sides (see {@link Kernel}): a
 * loaded machine or a slow core costs a factor of two or three, not the hundred between the paths;
 * and a kernel must be slow in two checks, a warm-up apart, before it is reported.
 *
 * <p>When: after {@link #PASSES} forward passes and {@link #WARM_UP_NANOS} since the model was
 * loaded (C2 compiles the kernels within seconds of steady use), then once more a warm-up later if
 * something was slow. A check costs a few milliseconds on the fast path, and runs on the thread that
 * finished the pass.
 */
final class SlowPathCheck {
    private static final System.Logger LOG = System.getLogger("org.vectorbert");
    static final int PASSES = 100;
    static final long WARM_UP_NANOS = 30_000_000_000L;
    /** One report per JVM, whichever model finds it. */
    private static final AtomicBoolean REPORTED = new AtomicBoolean();

    /**
     * A kernel and the speed below which it is on the slow path. Each floor is near the geometric mean of
     * the speeds C2's code and C1's reach on bert-base's first layer ({@code SlowPathMain} in the tests
     * measures them): about ten times below the first and above the second.
     */
    enum Kernel {
        MATRIX("the matrix kernel (PanelTiles)", "PanelTiles", "GFLOP/s", 3),
        ATTENTION("the attention kernel (AttentionKernel)", "AttentionKernel", "GFLOP/s", 1.5),
        LAYER_NORM("LayerNorm (RowKernels.layerNorm)", "RowKernels", "M floats/s", 200),
        ACTIVATION("the activation (RowKernels.activate)", "RowKernels", "M floats/s", 25);

        final String title;
        /** The class holding its vector code (one of {@link KernelCompilation#KERNEL_CLASSES}). */
        final String className;
        final String unit;
        /** The floor in the unit shown (GFLOP/s = flop/ns; M floats/s = 1000 floats/ns). */
        final double floor;

        Kernel(String title, String className, String unit, double floor) {
            this.title = title;
            this.className = className;
            this.unit = unit;
            this.floor = floor;
        }
    }

    /** A kernel's measured speed, in its unit. */
    record Speed(Kernel kernel, double value) {
        boolean slow() {
            return value < kernel.floor;
        }

        @Override
        public String toString() {
            return kernel.title + " at " + String.format(java.util.Locale.ROOT, "%.3g", value) + " " + kernel.unit;
        }
    }

    private final int passesPerCheck;
    private final long warmUpNanos;
    private final AtomicLong passes = new AtomicLong();
    private final AtomicBoolean checking = new AtomicBoolean();
    /** The pass count at which the next check is due; Long.MAX_VALUE once settled. */
    private volatile long dueAtPass;
    private volatile long dueAtNanos;
    private volatile List<Speed> firstSlow = List.of();

    SlowPathCheck() {
        this(PASSES, WARM_UP_NANOS);
    }

    /** A check after {@code passesPerCheck} passes and {@code warmUpNanos} from now, and once more as long after if slow. */
    SlowPathCheck(int passesPerCheck, long warmUpNanos) {
        this.passesPerCheck = passesPerCheck;
        this.warmUpNanos = warmUpNanos;
        this.dueAtPass = passesPerCheck;
        this.dueAtNanos = System.nanoTime() + warmUpNanos;
    }

    /**
     * The weights of a model's first layer the kernels are timed with: a square matrix (hidden to hidden), the norm after it,
     * and the feed-forward's inner width and activation.
     */
    record Probe(PackedMatrix square, LayerNorm norm, int inner, Activation activation) {
        static Probe of(BertLayer layer) {
            return new Probe(layer.attentionOutput().dense(), layer.attentionOutput().layerNorm(), layer.intermediate().out, layer.activation());
        }
    }

    /** After each forward pass of {@code layer}'s model over {@code rows} rows of sequences of {@code seq}. */
    void passDone(Probe layer, int headSize, int rows, int seq) {
        long n = passes.incrementAndGet();
        if (n < dueAtPass || System.nanoTime() < dueAtNanos || REPORTED.get() || PlainKernels.active()
                || !checking.compareAndSet(false, true)) {
            return;
        }
        try {
            List<Speed> speeds = measure(layer, headSize, rows, seq);
            List<Speed> slow = speeds.stream().filter(Speed::slow).toList();
            if (slow.isEmpty()) {
                dueAtPass = Long.MAX_VALUE;
            } else if (firstSlow.isEmpty()) {
                firstSlow = slow;                              // maybe still warming up: look again a warm-up later
                dueAtPass = n + passesPerCheck;
                dueAtNanos = System.nanoTime() + warmUpNanos;
            } else {
                dueAtPass = Long.MAX_VALUE;
                report(speeds, shape(layer, rows, seq));
            }
        } finally {
            checking.set(false);
        }
    }

    /**
     * Says once per JVM which of {@code speeds} are slow, then, for whoever looks into it, what was measured: the shape,
     * the other kernels' speeds, and what the JIT holds for the slow kernels' classes: a kernel never compiled by C2, or
     * one that C2 compiled and that still runs slowly (a virtual call C2 left in a loop, as RowKernels.layerNormRow
     * once had).
     */
    static void report(List<Speed> speeds, String shape) {
        if (REPORTED.compareAndSet(false, true)) {
            List<Speed> slow = speeds.stream().filter(Speed::slow).toList();
            List<Speed> fast = speeds.stream().filter(s -> !s.slow()).toList();
            StringBuilder jit = new StringBuilder();
            slow.stream().map(s -> s.kernel().className).distinct().forEach(c -> KernelCompilation.compiledNow(c)
                    .ifPresent(state -> jit.append(jit.isEmpty() ? "; compiled now: " : "; ").append(c).append(": ").append(state)));
            LOG.log(Level.WARNING, "slow path: after warm-up, " + String.join(", ", slow.stream().map(Speed::toString).toList())
                    + ", far below the speed of code compiled by the JVM's C2 compiler: the Vector API is running its"
                    + " slow fallback (interpreted or C1 code), and every pass is several times slower than this machine"
                    + " allows. Check the JVM flags for -Xint, -XX:TieredStopAtLevel or -XX:CompileCommand=exclude"
                    + " naming org.vectorbert; -XX:-TieredCompilation compiles the kernels with C2 alone. (Measured on "
                    + shape + (fast.isEmpty() ? "" : "; " + String.join(", ", fast.stream().map(Speed::toString).toList())) + jit + ".)");
        }
    }

    /** The shape {@link #measure} times, for the report. */
    static String shape(Probe layer, int rows, int seq) {
        return measuredRows(rows) + " rows of " + layer.square().out + " and " + measuredPositions(seq) + " positions";
    }

    /** The rows {@link #measure} times for a pass of {@code rows}: at most 16. */
    private static int measuredRows(int rows) {
        return Math.max(1, Math.min(rows, 16));
    }

    /** The positions {@link #measure} times for sequences of {@code seq}: at most 64. */
    private static int measuredPositions(int seq) {
        return Math.max(1, Math.min(seq, 64));
    }

    /** Times each kernel on an input shaped like the recent pass (at most 16 rows and 64 positions): best of three. */
    static List<Speed> measure(Probe layer, int headSize, int rows, int seq) {
        int r = measuredRows(rows);
        int s = measuredPositions(seq);
        PackedMatrix w = layer.square();
        int hidden = w.out;
        Random random = new Random(42);
        float[] x = randoms(random, r * w.in);
        float[] out = new float[r * hidden];
        float[] inner = randoms(random, r * layer.inner());
        float[] q = randoms(random, s * hidden);
        float[] k = randoms(random, s * hidden);
        float[] v = randoms(random, s * hidden);
        float[] mask = new float[s];
        float[] ctx = new float[s * hidden];
        int square = s * s;
        float[] scratch = new float[Kernels.attentionScratch(s, headSize)];
        LayerNorm norm = layer.norm();
        List<Speed> speeds = new ArrayList<>();
        speeds.add(new Speed(Kernel.MATRIX, 2.0 * r * w.in * hidden / best(() -> MatMul.linear(x, r, w, out))));
        speeds.add(new Speed(Kernel.ATTENTION, 4.0 * square * headSize / best(() -> AttentionKernel.head(q, 0, s, k, v, hidden, 0, s, 0, headSize,
                mask, 0, null, null, null, 0, null, 0, ctx, scratch, 0))));
        // The row kernels one row (or 4096 floats) per call, which runs on this thread: handing 16 rows to the
        // kernel threads costs more than the work, and would hide the kernel's own speed.
        speeds.add(new Speed(Kernel.LAYER_NORM, 1000.0 * r * hidden / best(() -> {
            for (int i = 0; i < r; i++) {
                norm.apply(out, 1, ctx);
            }
        })));
        int chunk = Math.min(inner.length, 4096);
        speeds.add(new Speed(Kernel.ACTIVATION, 1000.0 * chunk * r / best(() -> {
            for (int i = 0; i < r; i++) {
                RowKernels.activate(layer.activation(), inner, chunk);
            }
        })));
        return speeds;
    }

    /** n standard normal floats from random. */
    static float[] randoms(Random random, int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) random.nextGaussian();
        }
        return a;
    }

    /** The fastest of three runs, in nanoseconds (at least 1). */
    private static double best(Runnable kernel) {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            kernel.run();
            best = Math.min(best, System.nanoTime() - t0);
        }
        return Math.max(1, best);
    }
}
