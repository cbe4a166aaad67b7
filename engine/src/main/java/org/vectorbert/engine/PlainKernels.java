package org.vectorbert.engine;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The vector kernels' arithmetic in plain loops, for the JVM's first forward pass: the same IEEE
 * operations in the same order (FMA chains from the bias, lane sums through L lanes and the same
 * folding tree, the same polynomials), so a pass gives the same bits whichever runs it; the tests hold
 * every one to its vector kernel bit for bit.
 *
 * <p>Why: the Vector API is fast only once C2 has compiled a kernel; before that every vector operation
 * runs the API's Java fallback and allocates, so a one-shot command's only pass spent most of its time
 * waiting for C2. Plain loops are small methods that C1 compiles within a
 * few calls and C2 soon after, so the first pass runs at compiled speed from its first layers.
 * Later passes go back to the vector kernels, which the first pass did not run and so did not warm:
 * a long-running program starts warming them one pass later.
 *
 * <p>This class holds the switch (which pass runs plain); the plain twins live by kernel family in
 * {@link PlainMatMul}, {@link PlainRows} and {@link PlainAttention}.
 */
final class PlainKernels {
    /**
     * The largest first pass that runs plain, in positions (rows). Plain code is several times slower than
     * the vector kernels once C2 has compiled those, so a big first batch is better off waiting for them.
     */
    static final int MAX_POSITIONS = 64;
    /**
     * The largest first pass that runs plain, in positions times the model's weights: bert-base's (110M) 64 positions,
     * with room. Qwen3-Embedding-0.6B reaches it at 13 positions; at about 20 the vector kernels, waiting for C2, cost the
     * same (docs/benchmarks.md).
     */
    static final long MAX_WORK = 64L * 120_000_000L;
    /**
     * {@code -Dvectorbert.plainFirstPass=off} runs every pass on the vector kernels; {@code =every} runs every pass plain,
     * whatever its size, for a JVM without C2 ({@code -XX:TieredStopAtLevel=1}), where the vector kernels would only ever
     * run the Vector API's fallback: the launcher starts a one-shot {@code fill-mask} or {@code embed} that way (see
     * bin/vectorbert).
     */
    static final String SWITCH = "vectorbert.plainFirstPass";
    /** Every pass plain ({@code =every}): the vector kernels never run, nor need their compiler directive. */
    static final boolean EVERY_PASS = "every".equals(System.getProperty(SWITCH));

    private static final AtomicBoolean FIRST_PASS_TAKEN = new AtomicBoolean("off".equals(System.getProperty(SWITCH)));
    /** Set while the first pass runs; read by the kernels' entry points (a racing pass also runs plain: same bits). */
    private static volatile boolean active;

    private PlainKernels() {}

    /**
     * Refuses a JVM that could not run the model: one without the {@code jdk.incubator.vector} module, unless every pass
     * runs plain ({@link #EVERY_PASS}) and {@code -Dvectorbert.vector.bits} gives the width the vector kernels would have
     * had, on which the packed weights' layout and the plain lane sums depend (bin/vectorbert runs a one-shot command so).
     */
    static void checkVectorModule() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
            return;
        }
        String bits = System.getProperty("vectorbert.vector.bits");
        if (!EVERY_PASS || bits == null || bits.isBlank()) {
            throw new EngineException("this JVM was started without the Vector API: add --add-modules jdk.incubator.vector"
                    + " to its command line (or to JDK_JAVA_OPTIONS, or spark.executor.extraJavaOptions for Spark)");
        }
    }

    /** Whether the JVM's first pass is still to come (and so may run plain), or every pass runs plain. */
    static boolean firstPassAhead() {
        return EVERY_PASS || !FIRST_PASS_TAKEN.get();
    }

    /** Whether the kernels run plain now. */
    static boolean active() {
        return EVERY_PASS || active;
    }

    /**
     * Whether a pass over {@code positions} rows of a model of {@code weights} weights is the JVM's first and small enough
     * to run plain; if so, it does until {@link #end}. A first pass too big to run plain leaves every later pass to the
     * vector kernels. With {@link #EVERY_PASS}, every pass runs plain.
     */
    static boolean begin(int positions, long weights) {
        if (EVERY_PASS) {
            return true;
        }
        if (FIRST_PASS_TAKEN.get() || !FIRST_PASS_TAKEN.compareAndSet(false, true) || positions > MAX_POSITIONS
                || positions * weights > MAX_WORK) {
            return false;
        }
        active = true;
        return true;
    }

    /** Runs {@code pass} with the kernels plain, whichever pass it is: for tests that hold both kinds to the same bits. */
    static <T> T runPlain(Supplier<T> pass) {
        active = true;
        try {
            return pass.get();
        } finally {
            active = false;
        }
    }

    /** Ends the plain first pass. */
    static void end() {
        active = false;
    }
}
