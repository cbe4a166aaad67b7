package org.vectorbert.bench;

import java.util.Arrays;

/** Runs a task for warm-up rounds, then timed rounds, and reports the median and the best. */
public record Measure(double medianSeconds, double minSeconds, double maxSeconds, int rounds) {

    public static Measure of(int warmupRounds, int rounds, Runnable task) {
        return interleaved(warmupRounds, rounds, task)[0];
    }

    /**
     * Measures several tasks side by side: after warming each up, the timed rounds alternate
     * between them (a, b, a, b, ...), so a noisy neighbour on a shared machine slows all alike.
     */
    public static Measure[] interleaved(int warmupRounds, int rounds, Runnable... tasks) {
        return settled(warmupRounds, rounds, next -> { }, tasks);
    }

    /** What runs, untimed, before each timed run of {@code next}. */
    @FunctionalInterface
    public interface Settle {
        void before(Runnable next);
    }

    /**
     * {@link #interleaved}, running {@code settle} untimed before every timed run, so that what the previous
     * task left behind (threads still spinning, garbage) is not charged to the next.
     */
    public static Measure[] settled(int warmupRounds, int rounds, Settle settle, Runnable... tasks) {
        for (Runnable task : tasks) {
            for (int i = 0; i < warmupRounds; i++) {
                task.run();
            }
        }
        double[][] seconds = new double[tasks.length][rounds];
        for (int i = 0; i < rounds; i++) {
            for (int t = 0; t < tasks.length; t++) {
                settle.before(tasks[t]);
                long start = System.nanoTime();
                tasks[t].run();
                seconds[t][i] = (System.nanoTime() - start) / 1e9;
            }
        }
        Measure[] measures = new Measure[tasks.length];
        for (int t = 0; t < tasks.length; t++) {
            measures[t] = summary(seconds[t]);
        }
        return measures;
    }

    /** Sleeps, untimed: a settle step for {@link #settled}. */
    public static Settle pause(long millis, boolean collectGarbage) {
        return next -> {
            if (collectGarbage) {
                System.gc();
            }
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /**
     * Runs the next task untimed, once and then until {@code millis} have passed: a settle step for {@link #settled}
     * when the tasks are engines whose thread pools spin after a run. The previous engine's threads stop
     * spinning and the next engine's are awake, as they are when one engine serves requests back to back.
     * (A sleep instead leaves every engine waking from idle, and the machine's wake-up time in every figure.)
     */
    public static Settle runFor(long millis) {
        return next -> {
            long end = System.nanoTime() + millis * 1_000_000;
            do {
                next.run();
            } while (System.nanoTime() < end);
        };
    }

    static Measure summary(double[] seconds) {
        double[] s = seconds.clone();
        Arrays.sort(s);
        int n = s.length;
        double median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        return new Measure(median, s[0], s[n - 1], n);
    }

    public double medianMs() {
        return medianSeconds * 1e3;
    }

    public double minMs() {
        return minSeconds * 1e3;
    }
}
