package org.vectorbert.server;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.TruncationSide;

/**
 * Forward passes of assorted shapes before a server says it is ready, so the JIT compiles the
 * kernels, having seen short and long, few and many texts, before traffic competes with it.
 *
 * <p>Why: a server started cold and hit at once by many connections compiles its kernels from
 * whatever runs first, on two compiler threads that Jetty's, Jackson's and the JDK's methods want
 * too; in some starts the attention-score kernel then stayed in C1's tiers, running the Vector API's
 * slow Java fallback. These passes, and C2 alone for {@code serve} (bin/vectorbert says why), avoid it.
 */
final class Warmup {
    /** Texts per pass and words per text: short and long, few and many, odd and even, as traffic brings them. */
    private static final int[][] SHAPES = {{1, 6}, {3, 11}, {5, 17}, {8, 25}, {16, 9}, {2, 50}, {7, 30}, {1, 120}, {12, 14}, {4, 60}};

    private Warmup() {}

    /** Runs the shapes until {@code millis} have passed (at least twice each), on the calling thread. */
    static void run(Embeddings embeddings, long millis) {
        Embeddings cutting = embeddings.with(embeddings.options().withTruncate(true));
        long deadline = System.nanoTime() + millis * 1_000_000;
        for (int round = 0; round < 2 || System.nanoTime() < deadline; round++) {
            for (int[] shape : SHAPES) {
                List<String> texts = new ArrayList<>();
                for (int i = 0; i < shape[0]; i++) {
                    texts.add("warm up the kernels " + i + " " + "word ".repeat(shape[1] + i % 3));
                }
                embeddings.forward(cutting.prepare(texts, null, TruncationSide.RIGHT));
            }
        }
    }
}
