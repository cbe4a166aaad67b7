package org.vectorbert.engine;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The threads every kernel runs on: the calling thread plus {@code threads - 1} helpers. Their
 * number is the machine's core count unless set with {@link #setThreads(int)} or the system
 * property {@code vectorbert.threads}.
 *
 * <p>A forward pass hands out about a hundred short jobs (a matrix product, a LayerNorm) per
 * layer group. Waking a parked thread for each costs tens of microseconds, which at 8 tokens
 * was as much as the second core gained; so helpers spin for a moment after each job before
 * parking, and the caller does a share of the work itself instead of waiting for a pool.
 */
public final class Parallel {
    /** How long a helper keeps spinning for the next job before it parks. */
    private static final long SPIN_NANOS = 200_000;
    /**
     * How many pieces each thread's share of a job is cut into, for threads that finish early to take: fewer left
     * threads waiting for each other at the end of a job, more gained nothing.
     */
    private static final int PIECES_PER_THREAD = 8;

    private static volatile Team team = new Team(initialThreads());

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

    /**
     * Sets how many threads kernels use from now on.
     *
     * @param threads the calling thread and its helpers, at least 1
     */
    public static synchronized void setThreads(int threads) {
        if (threads <= 0) {
            throw new IllegalArgumentException("threads must be positive, was " + threads);
        }
        if (threads != team.threads) {
            Team old = team;
            team = new Team(threads);
            old.shutdown();
        }
    }

    /** {@return how many threads the kernels use} */
    public static int threads() {
        return team.threads;
    }

    /** A body run over a half-open range of indices. */
    @FunctionalInterface
    public interface Range {
        /**
         * Does the work for indices [from, to).
         *
         * @param from the first index
         * @param to   the index after the last
         */
        void run(int from, int to);
    }

    /**
     * Runs {@code body} over [0, n) split into a few pieces per thread, each a multiple of
     * {@code grain} long (but the last), and returns when all are done. A call made while the
     * threads are busy (from inside a body, or from a second application thread) runs on the
     * calling thread alone.
     *
     * @param n     the indices' count
     * @param grain pieces are multiples of this long
     * @param body  the work for one piece
     */
    public static void forRange(int n, int grain, Range body) {
        Team t = team;
        int units = (n + grain - 1) / grain;
        int chunks = Math.min(t.threads, units);
        if (chunks <= 1 || !t.busy.compareAndSet(false, true)) {
            body.run(0, n);
            return;
        }
        try {
            // Pieces are claimed as threads come free rather than dealt out one per thread: on a shared
            // machine one core often runs late, and the other then takes its share instead of waiting.
            int pieces = Math.min(units, chunks * PIECES_PER_THREAD);
            t.run(n, (units + pieces - 1) / pieces * grain, chunks, body);
        } finally {
            t.busy.set(false);
        }
    }

    /** One call of forRange: published to the helpers whole, through one volatile write. */
    private static final class Job {
        final long generation;
        final Range body;
        final int n;
        final int per;
        final int chunks;
        final AtomicInteger next = new AtomicInteger();
        volatile Throwable failure;

        Job(long generation, Range body, int n, int per, int chunks) {
            this.generation = generation;
            this.body = body;
            this.n = n;
            this.per = per;
            this.chunks = chunks;
        }

        /** Runs pieces of the job until none is left. */
        void work() {
            for (int from; (from = next.getAndIncrement() * per) < n; ) {
                body.run(from, Math.min(n, from + per));
            }
        }
    }

    /** The helper threads and the job they share. */
    private static final class Team {
        final int threads;
        final AtomicBoolean busy = new AtomicBoolean();
        private final Thread[] helpers;
        private final AtomicInteger pending = new AtomicInteger();
        private volatile Job job = new Job(0, null, 0, 0, 0);
        private volatile boolean stopped;

        Team(int threads) {
            this.threads = threads;
            helpers = new Thread[threads - 1];
            for (int i = 0; i < helpers.length; i++) {
                int chunk = i + 1;
                helpers[i] = Thread.ofPlatform().daemon().name("vectorbert-kernel-" + chunk).unstarted(() -> help(chunk));
                helpers[i].start();
            }
        }

        /** Called with busy held, so one job at a time. */
        void run(int n, int per, int chunks, Range body) {
            Job j = new Job(job.generation + 1, body, n, per, chunks);
            pending.set(chunks - 1);
            job = j;
            for (int i = 0; i < chunks - 1; i++) {
                LockSupport.unpark(helpers[i]);
            }
            Throwable thrown = null;
            try {
                j.work();
            } catch (Throwable e) {
                thrown = e;
            }
            while (pending.get() > 0) {
                Thread.onSpinWait();
            }
            job = new Job(j.generation, null, 0, 0, 0); // let go of the body and what it holds
            if (thrown == null) {
                thrown = j.failure;
            }
            if (thrown instanceof RuntimeException e) {
                throw e;
            }
            if (thrown instanceof Error e) {
                throw e;
            }
        }

        private void help(int chunk) {
            long seen = 0;
            while (true) {
                long spinUntil = System.nanoTime() + SPIN_NANOS;
                Job j;
                while ((j = job).generation == seen || j.body == null) {
                    if (stopped) {
                        return;
                    }
                    if (System.nanoTime() < spinUntil) {
                        Thread.onSpinWait();
                    } else {
                        LockSupport.park(this);
                    }
                }
                seen = j.generation;
                if (chunk < j.chunks) {
                    try {
                        j.work();
                    } catch (Throwable e) {
                        j.failure = e;
                    } finally {
                        pending.decrementAndGet();
                    }
                }
            }
        }

        void shutdown() {
            stopped = true;
            for (Thread h : helpers) {
                LockSupport.unpark(h);
            }
        }
    }
}
