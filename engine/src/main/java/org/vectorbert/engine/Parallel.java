package org.vectorbert.engine;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;

/**
 * The one pool every kernel runs on. Its size is the machine's core count unless set with
 * {@link #setThreads(int)} or the system property {@code vectorbert.threads}.
 */
public final class Parallel {
    private static volatile ForkJoinPool pool = new ForkJoinPool(initialThreads());

    private Parallel() {}

    private static int initialThreads() {
        String configured = System.getProperty("vectorbert.threads");
        if (configured != null) {
            try {
                int n = Integer.parseInt(configured.trim());
                if (n > 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // fall through to the default
            }
        }
        return Runtime.getRuntime().availableProcessors();
    }

    /** Sets how many threads kernels use from now on. */
    public static synchronized void setThreads(int threads) {
        if (threads <= 0) {
            throw new IllegalArgumentException("threads must be positive, was " + threads);
        }
        if (threads != pool.getParallelism()) {
            ForkJoinPool old = pool;
            pool = new ForkJoinPool(threads);
            old.shutdown();
        }
    }

    /** How many threads the kernels use. */
    public static int threads() {
        return pool.getParallelism();
    }

    /** A body run over a half-open range of indices. */
    @FunctionalInterface
    public interface Range {
        /** Does the work for indices [from, to). */
        void run(int from, int to);
    }

    /**
     * Runs {@code body} over [0, n) split into about one chunk per thread, each a multiple of
     * {@code grain} long (but the last), and returns when all are done.
     */
    public static void forRange(int n, int grain, Range body) {
        int threads = threads();
        int chunks = Math.min(threads, (n + grain - 1) / grain);
        if (chunks <= 1) {
            body.run(0, n);
            return;
        }
        int per = (n / grain + chunks - 1) / chunks * grain;
        pool.invoke(new Split(body, 0, n, per));
    }

    private static final class Split extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        private final transient Range body;
        private final int from;
        private final int to;
        private final int per;

        Split(Range body, int from, int to, int per) {
            this.body = body;
            this.from = from;
            this.to = to;
            this.per = per;
        }

        @Override
        protected void compute() {
            if (to - from <= per) {
                body.run(from, to);
                return;
            }
            int chunks = (to - from + per - 1) / per;
            int mid = from + (chunks / 2) * per;
            invokeAll(new Split(body, from, mid, per), new Split(body, mid, to, per));
        }
    }
}
