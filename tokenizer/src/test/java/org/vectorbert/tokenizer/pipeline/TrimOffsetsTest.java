package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Byte-level offset trimming, with and without the per-id space counts, against the plain per-token rule. */
class TrimOffsetsTest {
    private static final String[] VOCAB = {"a", "\u0120a", "a\u0120", "\u0120", "\u0120\u0120", " b ", "\u0120\u0120c\u0120", "\t", "x y"};

    @Test
    void movesSpansAsThePlainRuleDoes() {
        Model model = new Model() {
            @Override
            public void tokenize(Normalized word, Tokens out) {
                throw new UnsupportedOperationException();
            }

            @Override
            public int tokenToId(String token) {
                return Arrays.asList(VOCAB).indexOf(token);
            }

            @Override
            public String idToToken(int id) {
                return VOCAB[id];
            }

            @Override
            public int vocabSize() {
                return VOCAB.length;
            }
        };
        TokenSpaces spaces = TokenSpaces.of(model);
        Random random = new Random(27);
        for (int n = 0; n < 20_000; n++) {
            Tokens t = new Tokens();
            for (int k = random.nextInt(6); k > 0; k--) {
                int id = random.nextInt(VOCAB.length);
                // Mostly the model's own string; sometimes an equal copy or another string for the id (an added token).
                String value = switch (random.nextInt(4)) {
                    case 0 -> new String(VOCAB[id]);
                    case 1 -> VOCAB[random.nextInt(VOCAB.length)];
                    default -> VOCAB[id];
                };
                int start = random.nextInt(4) == 0 ? 0 : random.nextInt(8);
                int end = random.nextInt(10) == 0 ? random.nextInt(4) : start + random.nextInt(5);
                t.add(id, value, start, end, 0, 0, 0);
            }
            for (boolean prefix : new boolean[] {false, true}) {
                Tokens expected = t.range(0, t.size);
                plain(expected, prefix);
                for (TokenSpaces table : new TokenSpaces[] {null, spaces}) {
                    Tokens actual = t.range(0, t.size);
                    actual.spaces = table;
                    PostProcessor.trimByteLevelOffsets(actual, prefix);
                    assertArrayEquals(Arrays.copyOf(expected.starts, t.size), Arrays.copyOf(actual.starts, t.size));
                    assertArrayEquals(Arrays.copyOf(expected.ends, t.size), Arrays.copyOf(actual.ends, t.size));
                }
            }
        }
    }

    /** The rule as written before the table: count the token string's spaces, move only when there are some. */
    private static void plain(Tokens t, boolean addPrefixSpace) {
        for (int i = 0; i < t.size; i++) {
            String v = t.values[i];
            int lead = 0;
            while (lead < v.length() && TokenSpaces.isSpaceChar(v.charAt(lead))) {
                lead++;
            }
            int trail = 0;
            while (trail < v.length() && TokenSpaces.isSpaceChar(v.charAt(v.length() - 1 - trail))) {
                trail++;
            }
            if (lead > 0) {
                boolean first = i == 0 || t.starts[i] == 0;
                if (first && addPrefixSpace && lead == 1) {
                    lead = 0;
                }
                t.starts[i] = Math.min(t.starts[i] + lead, t.ends[i]);
            }
            if (trail > 0 && t.ends[i] >= trail) {
                t.ends[i] = Math.max(t.ends[i] - trail, t.starts[i]);
            }
        }
    }
}
