package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many application threads sharing one {@link FillMask} and one {@link Embeddings} (over one model)
 * for thousands of calls: every answer bit for bit what one thread alone gets, and the heap's live
 * data no larger at the end than after the first round.
 */
@Tag("heavy")
class ConcurrencyTest {
    private static final List<String> TEXTS = List.of("Paris is the [MASK] of France.", "The [MASK] barked at the mailman.",
            "She poured a cup of [MASK].", "Water boils at one hundred [MASK].", "I took the [MASK] to work this morning.",
            "The [MASK] is shining and the sky is blue.", "He plays the [MASK] in a band.", "A short [MASK].");
    private static final int THREADS = 8;
    private static final int CALLS_PER_THREAD = 150;

    @Test
    void sharedPipelinesGiveEachThreadWhatOneThreadGets() throws Exception {
        FillMask fill = FillMask.of(RealModel.model(), RealModel.tokenizer(), FillMaskOptions.defaults());
        Embeddings embed = Embeddings.of(RealModel.model(), RealModel.tokenizer(), EmbeddingOptions.defaults().withPooling(Pooling.MEAN));
        List<FillMask.Prediction> expectedFill = new ArrayList<>();
        List<float[]> expectedVectors = new ArrayList<>();
        for (String text : TEXTS) {
            expectedFill.add(fill.predict(text));
            expectedVectors.add(embed.embed(text));
        }
        long afterFirstRound = liveHeap();
        try (ExecutorService pool = Executors.newFixedThreadPool(THREADS)) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    for (int call = 0; call < CALLS_PER_THREAD; call++) {
                        int i = (thread * 7 + call) % TEXTS.size();
                        if ((thread + call) % 2 == 0) {
                            assertEquals(expectedFill.get(i), fill.predict(TEXTS.get(i)), TEXTS.get(i));
                        } else {
                            assertArrayEquals(expectedVectors.get(i), embed.embed(TEXTS.get(i)), TEXTS.get(i));
                        }
                    }
                    return CALLS_PER_THREAD;
                }));
            }
            int calls = 0;
            for (Future<Integer> f : done) {
                calls += f.get();
            }
            assertEquals(THREADS * CALLS_PER_THREAD, calls);
        }
        long atEnd = liveHeap();
        assertTrue(atEnd - afterFirstRound < 64L << 20,
                "live heap grew by " + ((atEnd - afterFirstRound) >> 20) + " MB over " + THREADS * CALLS_PER_THREAD + " calls");
    }

    private static long liveHeap() {
        System.gc();
        return Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
    }
}
