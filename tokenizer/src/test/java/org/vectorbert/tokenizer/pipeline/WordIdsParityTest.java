package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * {@link Tokenizer#wordIds} against the tokenizers library's {@code Encoding.word_ids} (0.23.2, npm), texts
 * encoded alone without special tokens: tools/tokenizer-reference/make-word-ids.mjs wrote the fixtures from the
 * parity fixtures' texts. WordPiece files are checked through BertTokenizer too.
 */
class WordIdsParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"minilm", "wordpiece-trained", "bpe-roberta", "unigram-xlmr", "unigram-xlmr-precompiled",
        "stages-llama", "stages-splits"})
    void matchTheLibrary(String name) throws IOException {
        List<Tokenizer> tokenizers = new ArrayList<>(List.of(
                Tokenizer.fromTokenizerJson(PipelineParityTest.resource(name + ".tokenizer.json"))));
        if (name.equals("minilm") || name.equals("wordpiece-trained")) {
            tokenizers.add(BertTokenizer.fromTokenizerJson(PipelineParityTest.resource(name + ".tokenizer.json")));
        }
        List<JsonNode> cases = cases(name);
        assertEquals(name.startsWith("stages-") ? 198 : 400, cases.size());
        for (Tokenizer tokenizer : tokenizers) {
            for (JsonNode c : cases) {
                String text = c.get("text").asText();
                int[] expected = new int[c.get("word_ids").size()];
                for (int i = 0; i < expected.length; i++) {
                    expected[i] = c.get("word_ids").get(i).asInt();
                }
                assertArrayEquals(expected, tokenizer.wordIds(text),
                        () -> tokenizer.getClass().getSimpleName() + " " + name + ": " + text + " " + c.get("tokens"));
            }
        }
    }

    private static List<JsonNode> cases(String name) throws IOException {
        try (InputStream in = new GZIPInputStream(WordIdsParityTest.class.getResourceAsStream(
                "/pipeline/" + name + ".word-ids.jsonl.gz"))) {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isEmpty()) {
                    lines.add(JSON.readTree(line));
                }
            }
            return lines;
        }
    }
}
