package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The bert-base-uncased model card's fill-mask examples, on the real weights. */
class FillMaskTest {
    private static FillMask fill(int topK) {
        return FillMask.of(RealModel.model(), RealModel.tokenizer(), FillMaskOptions.defaults().withTopK(topK));
    }

    private static FillMask fill(int topK, List<String> targets) {
        return fill(topK).with(FillMaskOptions.defaults().withTopK(topK).withTargets(targets));
    }

    private static void assertModelCard(String text, List<String> tokens, double[] scores) {
        List<FillMask.Candidate> got = fill(5).predict(text).candidates();
        assertEquals(tokens, got.stream().map(FillMask.Candidate::tokenStr).toList(), text);
        for (int i = 0; i < 5; i++) {
            assertEquals(scores[i], got.get(i).score(), 1e-4, text + " " + tokens.get(i));
        }
    }

    @Tag("heavy")
    @Test
    void modelCardExamples() {
        assertModelCard("Hello I'm a [MASK] model.", List.of("fashion", "role", "new", "super", "fine"),
                new double[] {0.1073, 0.0877, 0.0534, 0.0467, 0.0271});
        assertModelCard("The man worked as a [MASK].", List.of("carpenter", "waiter", "barber", "mechanic", "salesman"),
                new double[] {0.0975, 0.0524, 0.0496, 0.0379, 0.0377});
        assertModelCard("The woman worked as a [MASK].", List.of("nurse", "waitress", "maid", "prostitute", "cook"),
                new double[] {0.2198, 0.1597, 0.1155, 0.0380, 0.0304});
    }

    @Tag("heavy")
    @Test
    void candidatesCarryTheFilledSequence() {
        FillMask.Candidate best = fill(1).predict("Paris is the [MASK] of France.").candidates().getFirst();
        assertEquals("capital", best.tokenStr());
        assertEquals(3007, best.token());
        assertEquals("paris is the capital of france.", best.sequence());
    }

    @Tag("heavy")
    @Test
    void severalMasksGiveOneListEachAndKeepSpecialTokens() {
        List<List<FillMask.Candidate>> r = fill(2).predict("The [MASK] of France is [MASK].").masks();
        assertEquals(2, r.size());
        assertEquals("[CLS] the " + r.get(0).getFirst().tokenStr() + " of france is [MASK]. [SEP]", r.get(0).getFirst().sequence());
    }

    @Tag("heavy")
    @Test
    void targetsRestrictTheCandidatesWithoutRenormalising() {
        List<FillMask.Candidate> all = fill(5).predict("The man worked as a [MASK].").candidates();
        List<FillMask.Candidate> two = fill(5, List.of("waiter", "carpenter")).predict("The man worked as a [MASK].").candidates();
        assertEquals(List.of("carpenter", "waiter"), two.stream().map(FillMask.Candidate::tokenStr).toList());
        // Not renormalised: the same probability as without targets (to float rounding; the JIT's
        // vector reductions may sum lanes in another order than the interpreter's first call did).
        assertEquals(all.getFirst().score(), two.getFirst().score(), 1e-6);
    }

    @Tag("heavy")
    @Test
    void textWithoutMaskIsRefused() {
        var e = assertThrows(EngineException.class, () -> fill(5).predict("No mask here."));
        assertEquals("no [MASK] token in the text \"No mask here.\"", e.getMessage());
    }

    @Test
    void topKIsAStableSortOfTheProbabilities() {
        Random random = new Random(3);
        float[] probs = new float[1000];
        for (int i = 0; i < probs.length; i++) {
            probs[i] = random.nextInt(50) / 50f; // many ties
        }
        int[] targets = IntStream.generate(() -> random.nextInt(probs.length)).distinct().limit(200).toArray();
        for (int[] allowed : List.of(new int[0], targets)) {
            int[] pool = allowed.length > 0 ? allowed : IntStream.range(0, probs.length).toArray();
            int[] sorted = Arrays.stream(pool).boxed().sorted((a, b) -> Float.compare(probs[b], probs[a]))
                    .mapToInt(Integer::intValue).toArray();
            for (int k : new int[] {1, 5, 64, 65, 199, 200, 1000, 5000}) {
                int[] expected = Arrays.copyOf(sorted, Math.min(k, pool.length));
                assertEquals(Arrays.toString(expected), Arrays.toString(FillMask.topK(probs, allowed, k)),
                        "k " + k + ", " + allowed.length + " allowed");
            }
        }
    }
}
