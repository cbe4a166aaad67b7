package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * Spans of decomposed characters after NFD and NFKD, one token per character (a WordPiece vocabulary of
 * single characters), as the tokenizers library gives them (0.23.2 through its npm binding): a base that
 * decomposes and the marks after it, marks that canonical reordering moves, a compatibility expansion.
 */
class DecomposedAlignmentTest {
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "NFD  | \uc5b4\u0301        | 0-1 0-1 1-2",
        "NFD  | \u00f1\u093f\u0334  | 0-1 0-1 1-2 2-3",
        "NFD  | a\u0315\u0300       | 0-1 1-2 2-3",
        "NFD  | \u00e9\u0315\u0300x | 0-1 0-1 1-2 2-3 3-4",
        "NFD  | \u1e69              | 0-1 0-1 0-1",
        "NFD  | \u1e0b\u0323        | 0-1 1-2 1-2",
        "NFKD | \u00bd\u0301        | 0-1 0-1 0-1 1-2",
        "NFKD | \ufb01\u0301        | 0-1 0-1 1-2",
    })
    void spansAreTheLibrarys(String form, String text, String spans) {
        String normalized = java.text.Normalizer.normalize(text, java.text.Normalizer.Form.valueOf(form));
        Map<String, Integer> vocab = new LinkedHashMap<>();
        vocab.put("[UNK]", 0);
        normalized.codePoints().forEach(cp -> {
            vocab.putIfAbsent(Character.toString(cp), vocab.size());
            vocab.putIfAbsent("##" + Character.toString(cp), vocab.size());
        });
        StringBuilder json = new StringBuilder("{\"normalizer\":{\"type\":\"" + form + "\"},"
                + "\"pre_tokenizer\":{\"type\":\"WhitespaceSplit\"},\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\","
                + "\"continuing_subword_prefix\":\"##\",\"max_input_chars_per_word\":100,\"vocab\":{");
        vocab.forEach((token, id) -> json.append(id == 0 ? "" : ",").append('"').append(escaped(token)).append("\":").append(id));
        json.append("}}}");
        Tokenizer tokenizer = TokenizerFiles.parseTokenizerJson(json.toString(), "t.json");
        Encoding e = tokenizer.encode(text, EncodeOptions.defaults().withAddSpecialTokens(false));
        StringBuilder got = new StringBuilder();
        for (int[] span : e.codePointOffsets(text, null)) {
            got.append(got.isEmpty() ? "" : " ").append(span[0]).append('-').append(span[1]);
        }
        assertEquals(normalized.codePointCount(0, normalized.length()), e.length(), "one token per character");
        assertEquals(spans, got.toString());
    }

    private static String escaped(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(String.format("\\u%04x", c)));
        return b.toString();
    }
}
