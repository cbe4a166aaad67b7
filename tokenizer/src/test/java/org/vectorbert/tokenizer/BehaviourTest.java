package org.vectorbert.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Behaviour beyond the parity fixtures: choices made where Hugging Face's two tokenizers differ, and the API. */
class BehaviourTest {
    private static final BertTokenizer UNCASED = new BertTokenizer(Vocabulary.load(RealVocabulary.path()),
            TokenizerConfig.uncased());

    @Test
    void nonSpacingMarksOfEveryUnicodeVersionAreStripped() {
        // U+1ACE (Unicode 14) is a non-spacing mark: stripped, as Python's BertTokenizer does. The tokenizers
        // library's older tables do not know it, keep it, and give "[UNK]" for the whole word instead.
        assertEquals(List.of("cafe"), UNCASED.tokenize("cafe\u1ACE"));
        assertEquals(List.of("cafe"), UNCASED.tokenize("cafe\u0301"));
    }

    @Test
    void latinOneBelowAGraveHasNoCanonicalDecomposition() {
        // The accent-stripping path skips NFD for U+0080..U+00BF; this proves that is safe.
        for (char c = 0x80; c < 0xC0; c++) {
            assertEquals(String.valueOf(c), Normalizer.normalize(String.valueOf(c), Normalizer.Form.NFD), "U+" + (int) c);
        }
    }

    @Test
    void offsetsAreUtf16IndicesIntoTheSource() {
        String text = "😀 Café [MASK]!";
        Encoding e = UNCASED.encode(text);
        List<String> covered = new ArrayList<>();
        for (int i = 0; i < e.length(); i++) {
            covered.add(text.substring(e.starts()[i], e.ends()[i]));
        }
        assertEquals(List.of("", "😀", "Café", "[MASK]", "!", ""), covered);
        assertArrayEquals(new int[] {3, 7}, new int[] {e.starts()[2], e.ends()[2]});
        assertArrayEquals(new int[] {2, 6}, e.codePointOffsets(text, null)[2], "code points: the emoji counts once");
    }

    @Test
    void paddingToMaxLength() {
        Encoding e = UNCASED.encode("hello world", EncodeOptions.defaults().withMaxLength(6).withPadding(Padding.MAX_LENGTH));
        assertEquals(List.of("[CLS]", "hello", "world", "[SEP]", "[PAD]", "[PAD]"), e.tokens());
        assertArrayEquals(new int[] {1, 1, 1, 1, 0, 0}, e.attentionMask());
        assertArrayEquals(new int[] {1, 0, 0, 1, 1, 1}, e.specialTokensMask());
    }

    @Test
    void truncationUsesTheModelMaximumByDefault() {
        String longText = "word ".repeat(600);
        assertEquals(1202 / 2, UNCASED.encode(longText).length() - 1, "no truncation unless asked");
        Encoding truncated = UNCASED.encode(longText, EncodeOptions.defaults().withTruncation(Truncation.LONGEST_FIRST));
        assertEquals(512, truncated.length());
        assertEquals("[SEP]", truncated.tokens().get(511));
    }

    @Test
    void maxLengthTooSmallForSpecialTokensIsAnError() {
        var e = assertThrows(TokenizerException.class,
                () -> UNCASED.encode("a", "b", EncodeOptions.truncatedTo(2)));
        assertEquals("max length 2 leaves no room for the 3 special tokens", e.getMessage());
    }

    @Test
    void truncationStrategiesParseHuggingFaceSpellings() {
        assertEquals(Truncation.LONGEST_FIRST, Truncation.parse("longest_first"));
        assertEquals(Truncation.ONLY_SECOND, Truncation.parse("only-second"));
        assertEquals(Truncation.NONE, Truncation.parse("do_not_truncate"));
        assertThrows(TokenizerException.class, () -> Truncation.parse("shortest"));
    }

    @Test
    void decodeRefusesIdsOutsideTheVocabulary() {
        var e = assertThrows(TokenizerException.class, () -> UNCASED.decode(new int[] {101, 40000}));
        assertEquals("token id 40000 is outside the vocabulary (0..30521)", e.getMessage());
    }

    @Test
    void batchOfPairsNeedsMatchingSizes() {
        assertThrows(TokenizerException.class,
                () -> UNCASED.encodeBatch(List.of("a", "b"), List.of("c"), EncodeOptions.defaults()));
        List<Encoding> pairs = UNCASED.encodeBatch(List.of("a", "b c"), List.of("d e f", "g"),
                EncodeOptions.defaults().withPadding(Padding.LONGEST));
        assertEquals(List.of("[CLS]", "a", "[SEP]", "d", "e", "f", "[SEP]"), pairs.get(0).tokens());
        assertEquals(List.of("[CLS]", "b", "c", "[SEP]", "g", "[SEP]", "[PAD]"), pairs.get(1).tokens());
        assertArrayEquals(new int[] {0, 0, 0, 0, 1, 1, 0}, pairs.get(1).typeIds());
    }

    @Test
    void oneTokenizerServesManyThreads() throws Exception {
        List<String> texts = List.of("Hello, world!", "Café au lait", "東京 is big", "unbelievably [MASK] text");
        List<Encoding> expected = texts.stream().map(UNCASED::encode).toList();
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                results.add(pool.submit(() -> {
                    for (int round = 0; round < 2000; round++) {
                        int i = round % texts.size();
                        if (!UNCASED.encode(texts.get(i)).equals(expected.get(i))) {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            for (Future<Boolean> r : results) {
                assertEquals(true, r.get());
            }
        }
    }
}
