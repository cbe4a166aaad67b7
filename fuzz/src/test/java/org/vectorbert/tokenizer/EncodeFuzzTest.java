package org.vectorbert.tokenizer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.code_intelligence.jazzer.mutation.annotation.NotNull;
import org.junit.jupiter.api.Tag;

/**
 * bert-base-uncased's tokenizer on any string: no exception, ids inside the vocabulary, every text
 * token's span inside the text and in order, and decoding what encoding gives settles (a second
 * round changes nothing more).
 */
@Tag("heavy")
class EncodeFuzzTest {
    private static final BertTokenizer TOKENIZER = new BertTokenizer(Vocabulary.load(RealVocabulary.path()), TokenizerConfig.uncased());

    @FuzzTest
    void encode(@NotNull String text) {
        Encoding e = TOKENIZER.encode(text);
        int vocab = TOKENIZER.vocabulary().size();
        int lastStart = 0;
        for (int i = 0; i < e.length(); i++) {
            assertTrue(e.ids()[i] >= 0 && e.ids()[i] < vocab, "id " + e.ids()[i]);
            if (e.sequenceIds()[i] == 0) {
                assertTrue(e.starts()[i] >= lastStart && e.starts()[i] <= e.ends()[i] && e.ends()[i] <= text.length(),
                        "span " + e.starts()[i] + ".." + e.ends()[i] + " of " + text.length() + " chars");
                lastStart = e.starts()[i];
            }
        }
        String once = TOKENIZER.decode(TOKENIZER.encode(TOKENIZER.decode(e.ids(), true)).ids(), true);
        String twice = TOKENIZER.decode(TOKENIZER.encode(once).ids(), true);
        assertEquals(once, twice);
    }
}
