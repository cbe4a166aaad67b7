package org.vectorbert.bench;

import java.util.Arrays;

/** Runs a task for warm-up rounds, then timed rounds, and reports the median and the best. */
record Measure(double medianSeconds, double minSeconds, double maxSeconds, int rounds) {

    static Measure of(int warmupRounds, int rounds, Runnable task) {
        for (int i = 0; i < warmupRounds; i++) {
            task.run();
        }
        double[] seconds = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            task.run();
            seconds[i] = (System.nanoTime() - start) / 1e9;
        }
        Arrays.sort(seconds);
        double median = rounds % 2 == 1 ? seconds[rounds / 2] : (seconds[rounds / 2 - 1] + seconds[rounds / 2]) / 2;
        return new Measure(median, seconds[0], seconds[rounds - 1], rounds);
    }
}
