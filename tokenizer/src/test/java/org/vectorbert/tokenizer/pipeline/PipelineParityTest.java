package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.TokenizerException;
import org.vectorbert.tokenizer.Truncation;

/**
 * Parity with Hugging Face's tokenizers 0.23.2, case by case and exactly: ids, type ids,
 * attention and special-token masks, offsets, overflow windows and decoding. The six main
 * fixtures (tokenizers the library trained, the real all-MiniLM-L6-v2 one, and the one
 * bge-small-en-v1.5 and e5-small-v2 share) have 2,200 seeded
 * texts each; a CamemBERT-layout Unigram and the stages-* tokenizers, which use the stages the
 * others do not, 300 each. The expected values were written by
 * tools/tokenizer-reference/make-pipeline-fixtures.mjs, never by vectorbert.
 */
class PipelineParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(PipelineParityTest.class.getResource("/pipeline/" + name).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<JsonNode> cases(String name) throws IOException {
        try (InputStream in = new GZIPInputStream(PipelineParityTest.class.getResourceAsStream(
                "/pipeline/" + name + ".expected.jsonl.gz"))) {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                lines.add(JSON.readTree(line));
            }
            return lines;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"minilm", "bge-e5", "wordpiece-trained", "bpe-roberta", "unigram-xlmr", "unigram-xlmr-precompiled",
        "unigram-camembert", "stages-llama", "stages-suffix", "stages-unigram-bytes", "stages-splits"})
    void matchesTheLibrary(String name) throws IOException {
        Tokenizer tokenizer = Tokenizer.fromTokenizerJson(resource(name + ".tokenizer.json"));
        List<JsonNode> cases = cases(name);
        assertEquals(name.startsWith("stages-") || name.equals("unigram-camembert") ? 300 : 2200, cases.size());
        assertEquals(List.of(), failures(tokenizer, cases), name);
    }

    /**
     * A model directory holding one of the real WordPiece tokenizer.json files loads as BertTokenizer
     * (what {@link Tokenizer#fromDirectory} gives BERT's own files), and its encodings agree with the
     * library too. That path follows transformers' {@code AutoTokenizer}, which pads only when asked and
     * decodes with {@code clean_up_tokenization_spaces} ("user's", where the library's WordPiece decoder,
     * cleaning token by token, keeps "user ' s"): so the file's padding is asked for here, and decoding is
     * {@code ParityTest}'s, against transformers.
     */
    @ParameterizedTest
    @ValueSource(strings = {"minilm", "bge-e5"})
    void aModelDirectoryWithARealBertTokenizerJsonMatchesTheLibrary(String name, @TempDir Path dir) throws IOException {
        Files.copy(resource(name + ".tokenizer.json"), dir.resolve("tokenizer.json"));
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        assertEquals("BertTokenizer", tokenizer.getClass().getSimpleName());
        EncodeOptions file = Tokenizer.fromTokenizerJson(resource(name + ".tokenizer.json")).defaultOptions();
        EncodeOptions filePadding = tokenizer.defaultOptions().withPadding(file.padding()).withPadToLength(file.padToLength());
        List<String> failures = new ArrayList<>();
        for (JsonNode c : cases(name)) {
            String failure = encodingDiff(tokenizer, c, options(filePadding, c));
            if (failure != null && failures.size() < 8) {
                failures.add(JSON.writeValueAsString(c.get("text")) + ": " + failure);
            }
        }
        assertEquals(List.of(), failures, name);
    }

    /** Every case that differs from the library, with what differs (the first 8). */
    static List<String> failures(Tokenizer tokenizer, List<JsonNode> cases) throws IOException {
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < cases.size() && failures.size() < 8; i++) {
            JsonNode c = cases.get(i);
            String failure = check(tokenizer, c);
            if (failure != null) {
                failures.add("#" + i + " " + JSON.writeValueAsString(c.get("text"))
                        + (c.has("pair") ? " + " + JSON.writeValueAsString(c.get("pair")) : "")
                        + (c.has("max") ? " max " + c.get("max") + " " + c.get("strategy") + " " + c.get("dir")
                                + " stride " + c.get("stride") : "") + ": " + failure);
            }
        }
        return failures;
    }

    /** The file's padding stays; the case's truncation replaces the file's (the script sets or disables it per case). */
    static EncodeOptions options(Tokenizer tokenizer, JsonNode c) {
        return options(tokenizer.defaultOptions(), c);
    }

    static EncodeOptions options(EncodeOptions defaults, JsonNode c) {
        EncodeOptions o = defaults.withTruncation(Truncation.NONE).withMaxLength(0)
                .withAddSpecialTokens(c.path("add").asBoolean(true));
        if (c.has("max")) {
            o = o.withMaxLength(c.get("max").asInt())
                    .withTruncation(Truncation.parse(c.get("strategy").asText()
                            .replaceAll("([a-z])([A-Z])", "$1_$2")))
                    .withStride(c.path("stride").asInt(0))
                    .withTruncationSide("left".equals(c.get("dir").asText())
                            ? EncodeOptions.Side.LEFT : EncodeOptions.Side.RIGHT);
        }
        return o;
    }

    /** Null when the encoding and its decoding equal the library's, else what differs. */
    static String check(Tokenizer tokenizer, JsonNode c) {
        String diff = encodingDiff(tokenizer, c, options(tokenizer, c));
        if (diff != null || c.has("error")) {
            return diff;
        }
        String decoded = tokenizer.decode(ints(c.get("ids")), true);
        if (!decoded.equals(c.get("decoded").asText())) {
            return "decoded " + decoded + " expected " + c.get("decoded").asText();
        }
        return null;
    }

    /** Null when the encoding with {@code options} (ids, masks, offsets, overflow windows) equals the library's. */
    static String encodingDiff(Tokenizer tokenizer, JsonNode c, EncodeOptions options) {
        String text = c.get("text").asText();
        String pair = c.has("pair") ? c.get("pair").asText() : null;
        Encoding e;
        try {
            e = tokenizer.encode(text, pair, options);
        } catch (TokenizerException ex) {
            return c.has("error") ? null : "threw " + ex.getMessage();
        }
        if (c.has("error")) {
            return "expected an error like " + c.get("error").asText();
        }
        String diff = compare(e, c, text, pair);
        if (diff != null) {
            return diff;
        }
        JsonNode overflow = c.get("overflow");
        if (overflow.size() != e.overflowing().size()) {
            return overflow.size() + " overflow windows expected, got " + e.overflowing().size();
        }
        for (int k = 0; k < overflow.size(); k++) {
            String d = compare(e.overflowing().get(k), overflow.get(k), text, pair);
            if (d != null) {
                return "overflow window " + k + ": " + d;
            }
        }
        return null;
    }

    private static String compare(Encoding e, JsonNode want, String text, String pair) {
        int[] ids = ints(want.get("ids"));
        if (!Arrays.equals(ids, e.ids())) {
            int at = Arrays.mismatch(ids, e.ids());
            int from = Math.max(0, at - 3);
            return "ids differ at " + at + ": " + e.tokens().subList(from, Math.min(e.length(), at + 4)) + " expected "
                    + (want.has("tokens") ? strings(want.get("tokens")).subList(from, Math.min(ids.length, at + 4))
                    : Arrays.toString(Arrays.copyOfRange(ids, from, Math.min(ids.length, at + 4))));
        }
        if (!Arrays.equals(ints(want.get("types")), e.typeIds())) {
            return "type ids " + Arrays.toString(e.typeIds()) + " expected " + want.get("types");
        }
        if (!Arrays.equals(ints(want.get("attn")), e.attentionMask())) {
            return "attention mask " + Arrays.toString(e.attentionMask()) + " expected " + want.get("attn");
        }
        if (!Arrays.equals(ints(want.get("special")), e.specialTokensMask())) {
            return "special tokens mask " + Arrays.toString(e.specialTokensMask()) + " expected " + want.get("special");
        }
        int[][] offsets = e.codePointOffsets(text, pair);
        int[] flat = new int[offsets.length * 2];
        for (int t = 0; t < offsets.length; t++) {
            flat[2 * t] = offsets[t][0];
            flat[2 * t + 1] = offsets[t][1];
        }
        if (!Arrays.equals(ints(want.get("offsets")), flat)) {
            return "offsets " + Arrays.toString(flat) + " expected " + want.get("offsets") + " tokens " + e.tokens();
        }
        return null;
    }

    static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }

    static int[] ints(JsonNode array) {
        int[] values = new int[array.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = array.get(i).asInt();
        }
        return values;
    }
}
