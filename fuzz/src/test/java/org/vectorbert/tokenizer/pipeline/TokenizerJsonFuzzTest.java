package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;

/**
 * Any bytes as a tokenizer.json ({@link TokenizerFiles#parseTokenizerJson}): refused with a
 * one-line TokenizerException, or a tokenizer that encodes a few texts (and a truncated pair with
 * a stride) with ids and offsets in range and decodes them, without any other exception.
 */
@Tag("heavy")
class TokenizerJsonFuzzTest {
    private static final String[] TEXTS = {"Hello, the world!", "naïve café 東京 😀 <mask> [MASK]", "  a\tb\n", ""};

    @FuzzTest
    void parse(byte[] json) {
        Tokenizer tokenizer;
        try {
            tokenizer = TokenizerFiles.parseTokenizerJson(new String(json, StandardCharsets.UTF_8), "tokenizer.json");
        } catch (VectorbertException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().contains("\n"), refused.getMessage());
            return;
        }
        try {
            for (String text : TEXTS) {
                check(tokenizer.encode(text), text.length());
            }
            EncodeOptions truncated = tokenizer.defaultOptions().withTruncation(Truncation.LONGEST_FIRST)
                    .withMaxLength(12).withStride(1);
            Encoding pair = tokenizer.encode(TEXTS[0], TEXTS[1], truncated);
            tokenizer.decode(pair.ids(), true);
        } catch (VectorbertException refused) {
            // a stage that cannot handle a text says so (a Unigram model without unk_id, a stride too large)
            assertTrue(refused.getMessage() != null && !refused.getMessage().contains("\n"), refused.getMessage());
        }
    }

    private static void check(Encoding e, int length) {
        for (int i = 0; i < e.length(); i++) {
            assertTrue(e.starts()[i] >= 0 && e.starts()[i] <= e.ends()[i] && e.ends()[i] <= length,
                    "span " + e.starts()[i] + ".." + e.ends()[i] + " of " + length + " chars");
        }
    }
}
