package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.vectorbert.tokenizer.TokenizerException;

/** Broken tokenizer.json files fail with one line that names the problem and where it is. */
class BadInputTest {
    private static String message(String json) {
        return assertThrows(TokenizerException.class, () -> TokenizerFiles.parseTokenizerJson(json, "t.json")).getMessage();
    }

    private static final String WORDPIECE = "{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\",\"vocab\":{\"[UNK]\":0,\"a\":1}}";

    @Test
    void unknownStageTypeIsNamedWithItsPlace() {
        assertEquals("t.json: normalizer.normalizers[1]: unknown normalizer type 'Fancy'",
                message("{\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"NFC\"},{\"type\":\"Fancy\"}]},"
                        + "\"model\":" + WORDPIECE + "}"));
        assertEquals("t.json: pre_tokenizer: unknown pre_tokenizer type 'Nope'",
                message("{\"pre_tokenizer\":{\"type\":\"Nope\"},\"model\":" + WORDPIECE + "}"));
        assertEquals("t.json: model: unknown model type 'WordLevel2'",
                message("{\"model\":{\"type\":\"WordLevel2\"}}"));
    }

    @Test
    void aNameWithALineBreakStaysOnOneLine() {
        // The tokenizer.json fuzz target's fourth finding: the file's own text, quoted in the message, broke the line.
        assertEquals("t.json: normalizer: unknown normalizer type 'Seque\\u000ace'",
                message("{\"normalizer\":{\"type\":\"Seque\\nce\"},\"model\":" + WORDPIECE + "}"));
    }

    @Test
    void mergesNamingMissingTokens() {
        assertEquals("t.json: model: merge 1 \"a z\" names token 'z', which is not in the vocabulary",
                message("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1,\"ab\":2},\"merges\":[\"a z\"]}}"));
        assertEquals("t.json: model: merge 1 \"a b\" makes 'ab', which is not in the vocabulary",
                message("{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[[\"a\",\"b\"]]}}"));
    }

    @Test
    void aTemplateThatCannotPlaceItsSequences() {
        // TokenizerJsonFuzzTest's second finding: a single template naming sequence B failed deep in encode.
        String specials = "\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[0],\"tokens\":[\"[UNK]\"]}}";
        String a = "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}";
        String b = "{\"Sequence\":{\"id\":\"B\",\"type_id\":1}}";
        String s = "{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}}";
        assertEquals("t.json: post_processor.single: a single text has no sequence B",
                message("{\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[" + s + "," + b + "],\"pair\":[" + a + ","
                        + b + "]," + specials + "},\"model\":" + WORDPIECE + "}"));
        assertEquals("t.json: post_processor.pair: the template for a pair must use both sequences, A and B",
                message("{\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[" + a + "],\"pair\":[" + s + "," + a
                        + "]," + specials + "},\"model\":" + WORDPIECE + "}"));
    }

    @Test
    void unigramWithoutScores() {
        assertEquals("t.json: model.vocab[0] of a Unigram model is not [piece, score]: the vocabulary has no scores",
                message("{\"model\":{\"type\":\"Unigram\",\"unk_id\":0,\"vocab\":[[\"<unk>\"],[\"a\"]]}}"));
    }

    @Test
    void aHugeIdOrScoreIsRefusedNotAllocatedOrUsed() {
        // Ids index an array; one id of 2e9 would otherwise allocate 16 GB.
        assertEquals("t.json: model: token id 2000000000 is far past the vocabulary's 2 entries",
                message("{\"model\":{\"type\":\"WordPiece\",\"unk_token\":\"[UNK]\",\"vocab\":{\"[UNK]\":0,\"a\":2000000000}}}"));
        // serde_json refuses a number that overflows to infinity; so does the Unigram reader.
        assertEquals("t.json: model.vocab[1] has a score out of range: 1E+400",
                message("{\"model\":{\"type\":\"Unigram\",\"unk_id\":0,\"vocab\":[[\"<unk>\",0.0],[\"a\",1e400]]}}"));
    }

    @Test
    void malformedJson() {
        String m = message("{\"model\": {");
        assertEquals(true, m.startsWith("cannot parse t.json at line 1, column 12: "), m);
        assertEquals(1, m.lines().count());
    }

    @Test
    void aNormalizerThatInsertsTextEverywhereIsRefusedWhenItExplodes() {
        // The tokenizer.json fuzz target's slow inputs: Replace " {0,}" (empty matches everywhere) by a long text, twice.
        String content = "x".repeat(1000);
        String replace = "{\"type\":\"Replace\",\"pattern\":{\"Regex\":\" {0,}\"},\"content\":\"" + content + "\"}";
        var tokenizer = TokenizerFiles.parseTokenizerJson("{\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[" + replace + ","
                + replace + "]},\"model\":" + WORDPIECE + "}", "t.json");
        var e = assertThrows(TokenizerException.class, () -> tokenizer.encode("hello world"));
        assertEquals("normalizing a text of 12010 characters made it longer than 1048576: a normalizer that inserts text at every "
                + "position (a Replace whose pattern matches the empty string?) is refused", e.getMessage());
    }
}
