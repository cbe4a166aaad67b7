package org.vectorbert.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Parity with Hugging Face's tokenizers library on the real bert-base-uncased vocabulary. The
 * expected results were produced by tools/tokenizer-reference (HF tokenizers 0.23.2), never by
 * this tokenizer.
 */
class ParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Vocabulary VOCAB = Vocabulary.load(RealVocabulary.path());
    private static final Map<String, TokenizerConfig> CONFIGS = Map.of(
            "uncased", TokenizerConfig.uncased(),
            "cased", TokenizerConfig.cased(),
            "cased-strip-accents", TokenizerConfig.cased().withStripAccents(true),
            "lowercase-keep-accents", TokenizerConfig.uncased().withStripAccents(false),
            "no-chinese-split", TokenizerConfig.uncased().withTokenizeChineseChars(false));

    static JsonNode resource(String name) throws IOException {
        try (InputStream in = ParityTest.class.getResourceAsStream("/parity/" + name)) {
            return JSON.readTree(in);
        }
    }

    static List<JsonNode> expectedLines() throws IOException {
        try (InputStream in = ParityTest.class.getResourceAsStream("/parity/expected.jsonl")) {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                lines.add(JSON.readTree(line));
            }
            return lines;
        }
    }

    @TestFactory
    Stream<DynamicTest> matchesHuggingFaceOnEveryCase() throws IOException {
        return cases(name -> new BertTokenizer(VOCAB, CONFIGS.get(name)));
    }

    /** The same cases through a tokenizer.json written by Hugging Face's library. */
    @TestFactory
    Stream<DynamicTest> tokenizerJsonGivesTheSameResults() throws IOException {
        BertTokenizer fromJson = BertTokenizer.fromTokenizerJson(Path.of(resourcePath("tokenizer.json")));
        return cases(name -> name.equals("uncased") ? fromJson : null);
    }

    private Stream<DynamicTest> cases(java.util.function.Function<String, BertTokenizer> tokenizers) throws IOException {
        JsonNode cases = resource("cases.json");
        List<JsonNode> expected = expectedLines();
        assertEquals(cases.size(), expected.size(), "cases.json and expected.jsonl are out of step");
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            JsonNode c = cases.get(i);
            JsonNode want = expected.get(i);
            BertTokenizer tokenizer = tokenizers.apply(c.path("config").asText("uncased"));
            if (tokenizer == null) {
                continue;
            }
            String name = "#" + i + " " + c.get("text").asText().replaceAll("\\p{C}", "?")
                    + (c.has("pair") ? " | " + c.get("pair").asText() : "");
            tests.add(DynamicTest.dynamicTest(name, () -> check(tokenizer, c, want)));
        }
        return tests.stream();
    }

    private static void check(BertTokenizer tokenizer, JsonNode c, JsonNode want) {
        String text = c.get("text").asText();
        String pair = c.has("pair") ? c.get("pair").asText() : null;
        EncodeOptions options = EncodeOptions.defaults().withAddSpecialTokens(c.path("addSpecialTokens").asBoolean(true));
        if (c.has("maxLength")) {
            options = options.withMaxLength(c.get("maxLength").asInt())
                    .withTruncation(Truncation.parse(c.path("truncation").asText("longest_first")));
        }
        if (want.has("error")) {
            EncodeOptions failing = options;
            assertThrows(TokenizerException.class, () -> tokenizer.encode(text, pair, failing));
            return;
        }
        Encoding e = tokenizer.encode(text, pair, options);
        assertEquals(strings(want.get("tokens")), e.tokens(), "tokens");
        assertArrayEquals(ints(want.get("ids")), e.ids(), "ids");
        assertArrayEquals(ints(want.get("typeIds")), e.typeIds(), "token_type_ids");
        assertArrayEquals(ints(want.get("attentionMask")), e.attentionMask(), "attention_mask");
        assertArrayEquals(ints(want.get("specialTokensMask")), e.specialTokensMask(), "special_tokens_mask");
        int[][] offsets = e.codePointOffsets(text, pair);
        for (int t = 0; t < offsets.length; t++) {
            JsonNode o = want.get("offsets").get(t);
            assertArrayEquals(new int[] {o.get(0).asInt(), o.get(1).asInt()}, offsets[t], "offsets of token " + t);
        }
        assertEquals(want.get("decoded").asText(), tokenizer.decode(e.ids(), false), "decode");
        assertEquals(want.get("decodedSkipSpecial").asText(), tokenizer.decode(e.ids(), true), "decode, special tokens skipped");
        if (c.path("addSpecialTokens").asBoolean(true) && !c.has("maxLength") && pair == null) {
            List<String> pieces = e.tokens().subList(1, e.length() - 1);
            assertEquals(pieces, tokenizer.tokenize(text), "tokenize");
        }
    }

    /** 1,500 seeded random texts (and some pairs) mixing every character class the rules treat apart. */
    @Test
    void matchesHuggingFaceOnRandomTexts() throws IOException {
        BertTokenizer tokenizer = new BertTokenizer(VOCAB, TokenizerConfig.uncased());
        int checked = 0;
        List<String> failures = new ArrayList<>();
        try (InputStream in = ParityTest.class.getResourceAsStream("/parity/fuzz.jsonl")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                JsonNode want = JSON.readTree(line);
                String text = want.get("text").asText();
                String pair = want.get("pair").isNull() ? null : want.get("pair").asText();
                Encoding e = tokenizer.encode(text, pair);
                String label = "random text " + checked + " " + JSON.writeValueAsString(text)
                        + (pair == null ? "" : " + " + JSON.writeValueAsString(pair));
                int[] wantIds = ints(want.get("ids"));
                if (!java.util.Arrays.equals(wantIds, e.ids())) {
                    failures.add(label + ": expected " + tokens(wantIds) + " but got " + e.tokens());
                } else {
                    int[][] offsets = e.codePointOffsets(text, pair);
                    for (int t = 0; t < offsets.length; t++) {
                        JsonNode o = want.get("offsets").get(t);
                        if (offsets[t][0] != o.get(0).asInt() || offsets[t][1] != o.get(1).asInt()) {
                            failures.add(label + ": token " + t + " spans " + java.util.Arrays.toString(offsets[t])
                                    + ", expected " + o);
                        }
                    }
                    assertArrayEquals(ints(want.get("typeIds")), e.typeIds(), label);
                    assertEquals(want.get("decodedSkipSpecial").asText(), tokenizer.decode(e.ids(), true), label);
                }
                checked++;
            }
        }
        assertEquals(1500, checked);
        assertEquals(List.of(), failures.subList(0, Math.min(10, failures.size())), failures.size() + " random texts differ");
    }

    private static List<String> tokens(int[] ids) {
        List<String> tokens = new ArrayList<>();
        for (int id : ids) {
            tokens.add(VOCAB.token(id));
        }
        return tokens;
    }

    @Test
    void batchPaddedToTheLongest() throws IOException {
        JsonNode batch = resource("batch.json");
        BertTokenizer tokenizer = new BertTokenizer(VOCAB, TokenizerConfig.uncased());
        List<String> texts = strings(batch.get("texts"));
        List<Encoding> encodings = tokenizer.encodeBatch(texts, EncodeOptions.defaults().withPadding(Padding.LONGEST));
        for (int i = 0; i < texts.size(); i++) {
            JsonNode want = batch.get("encodings").get(i);
            Encoding e = encodings.get(i);
            assertEquals(strings(want.get("tokens")), e.tokens());
            assertArrayEquals(ints(want.get("ids")), e.ids());
            assertArrayEquals(ints(want.get("typeIds")), e.typeIds());
            assertArrayEquals(ints(want.get("attentionMask")), e.attentionMask());
            assertArrayEquals(ints(want.get("specialTokensMask")), e.specialTokensMask());
        }
    }

    static String resourcePath(String name) {
        try {
            return Path.of(ParityTest.class.getResource("/parity/" + name).toURI()).toString();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static int[] ints(JsonNode array) {
        int[] values = new int[array.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = array.get(i).asInt();
        }
        return values;
    }

    static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }
}
