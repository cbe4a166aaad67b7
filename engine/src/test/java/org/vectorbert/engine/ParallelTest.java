package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ParallelTest {
    private final int before = Parallel.threads();

    @AfterEach
    void restore() {
        Parallel.setThreads(before);
    }

    @Test
    void everyIndexRunsExactlyOnceForAnySplit() {
        for (int threads : new int[] {1, 2, 3, 5}) {
            Parallel.setThreads(threads);
            for (int n = 0; n <= 70; n++) {
                for (int grain : new int[] {1, 2, 4, 16, 33}) {
                    AtomicIntegerArray seen = new AtomicIntegerArray(n);
                    Parallel.forRange(n, grain, (from, to) -> {
                        for (int i = from; i < to; i++) {
                            seen.incrementAndGet(i);
                        }
                    });
                    for (int i = 0; i < n; i++) {
                        assertEquals(1, seen.get(i), "threads " + threads + ", n " + n + ", grain " + grain + ", index " + i);
                    }
                }
            }
        }
    }

    @Test
    void nestedCallsRunOnTheCallingThread() {
        Parallel.setThreads(2);
        AtomicIntegerArray seen = new AtomicIntegerArray(100);
        Parallel.forRange(10, 1, (from, to) -> {
            for (int outer = from; outer < to; outer++) {
                int base = outer * 10;
                Parallel.forRange(10, 1, (f, t) -> {
                    for (int i = f; i < t; i++) {
                        seen.incrementAndGet(base + i);
                    }
                });
            }
        });
        for (int i = 0; i < 100; i++) {
            assertEquals(1, seen.get(i));
        }
    }

    @Test
    void aFailureInAnyChunkReachesTheCaller() {
        Parallel.setThreads(2);
        IllegalStateException boom = new IllegalStateException("boom");
        assertSame(boom, assertThrows(IllegalStateException.class, () -> Parallel.forRange(10, 1, (from, to) -> {
            if (from > 0) {
                throw boom;
            }
        })));
        // The threads are usable again afterwards.
        AtomicIntegerArray seen = new AtomicIntegerArray(10);
        Parallel.forRange(10, 1, (from, to) -> {
            for (int i = from; i < to; i++) {
                seen.incrementAndGet(i);
            }
        });
        for (int i = 0; i < 10; i++) {
            assertEquals(1, seen.get(i));
        }
    }

    @Test
    void concurrentCallersAllGetTheirWorkDone() throws Exception {
        Parallel.setThreads(2);
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            Future<?>[] futures = new Future<?>[4];
            for (int c = 0; c < futures.length; c++) {
                futures[c] = callers.submit(() -> {
                    for (int round = 0; round < 200; round++) {
                        AtomicIntegerArray seen = new AtomicIntegerArray(64);
                        Parallel.forRange(64, 4, (from, to) -> {
                            for (int i = from; i < to; i++) {
                                seen.incrementAndGet(i);
                            }
                        });
                        for (int i = 0; i < 64; i++) {
                            assertEquals(1, seen.get(i));
                        }
                    }
                });
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } finally {
            callers.shutdown();
        }
    }
}
