package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;

/**
 * JinaBERT v2 against the independent PyTorch reference written from jina-bert-implementation's code
 * (tools/torch-reference/make_jinabert_fixtures.py; the cases and the semantics are in architectures/jinabert/NOTES.md):
 * the tokenizer's ids, the encoder at the real positions with ALiBi for 4, 6, 8 and 12 heads, the pooler, the MLM head, a
 * reranker with ReGLU, a 3,000-token input, the sentence-transformers directory, and jina-bert-v2-qk-post-norm's layer
 * (jina-embeddings-v2-base-code's).
 */
class JinaBertReferenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(JinaBertReferenceTest.class.getResource("/architectures/jinabert/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jinabert-base", "jinabert-mlm", "jinabert-rerank", "jinabert-sentence-mean"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        GteReferenceTest.assertTheLibrarysIds(resource(name), 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jinabert-base", "jinabert-mlm", "jinabert-rerank", "jinabert-long", "jinabert-qk-post-norm"})
    void encoderAndHeadsMatchPyTorch(String name) throws IOException {
        Path dir = resource(name);
        Encoder model = Encoder.load(dir);
        assertTrue(model instanceof PostNormEncoder, name);
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                Batch batch = FamilyReferenceTest.batch(cases.get(k), 0);
                String at = name + " case" + k;
                String c = "case" + k + ".";
                Encoder.Request request = switch (name) {
                    case "jinabert-mlm" -> Encoder.Request.lastHiddenState().withMlmLogitsAt(IntStream.range(0, batch.rows()).toArray());
                    case "jinabert-rerank" -> Encoder.Request.lastHiddenState().withHead(HeadKind.SEQUENCE_CLASSIFIER, null);
                    case "jinabert-qk-post-norm" -> Encoder.Request.lastHiddenState();
                    default -> Encoder.Request.lastHiddenState().withPooled();
                };
                Encoder.Output out = model.forward(batch, request);
                ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                switch (name) {
                    case "jinabert-mlm" -> ModernBertReferenceTest.assertRealClose(expected, c + "logits", out.mlmLogits(), batch, at);
                    case "jinabert-rerank" -> ModernBertReferenceTest.assertClose(expected, c + "logits",
                            out.heads().get(HeadKind.SEQUENCE_CLASSIFIER), at);
                    case "jinabert-qk-post-norm" -> { }
                    default -> ModernBertReferenceTest.assertClose(expected, c + "pooler_output", out.pooled(), at);
                }
                float[] packed = model.forward(batch, Encoder.Request.lastHiddenState(), o -> o.lastHiddenState().clone());
                ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", packed, batch, at + " (packed)");
            }
        }
    }

    @Test
    void theSentenceTransformersDirectoryGivesTheReferenceEmbeddings() throws IOException {
        Path dir = resource("jinabert-sentence-mean");
        Embeddings embeddings = Embeddings.load(dir.toString());
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                List<String> texts = new ArrayList<>();
                cases.get(k).get("texts").forEach(t -> texts.add(t.asText()));
                List<float[]> vectors = embeddings.embed(texts);
                float[] all = ModernBertReferenceTest.concat(vectors);
                ModernBertReferenceTest.assertClose(expected, "case" + k + ".sentence_embedding", all, "case" + k);
            }
        }
    }

    /** jina-reranker-v1's shape: one logit on the pooler, which rerank gives raw or through a sigmoid. */
    @Test
    void theRerankerScoresAsTheReferenceSays() throws IOException {
        Path dir = resource("jinabert-rerank");
        JsonNode c = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
        Reranker reranker = Reranker.load(dir.toString());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case0.logits").toFloatArray();
            for (int s = 0; s < c.get("texts").size(); s++) {
                List<String> document = List.of(c.get("pairs").get(s).asText());
                assertEquals(logits[s], reranker.scores(c.get("texts").get(s).asText(), document, true)[0], 1e-4, "pair " + s);
            }
        }
    }

    /** ALiBi's slopes for head counts that are not powers of two: the m slopes of m heads, then every other one of 2m. */
    @Test
    void alibiSlopesAreJinasList() {
        assertArrayEquals(new double[] {0.25, 1 / 16.0, 1 / 64.0, 1 / 256.0}, RelativePositionBias.alibiSlopes(4));
        assertArrayEquals(new double[] {0.25, 1 / 16.0, 1 / 64.0, 1 / 256.0, 0.5, 0.125}, RelativePositionBias.alibiSlopes(6));
        double[] twelve = RelativePositionBias.alibiSlopes(12);
        assertEquals(1 / 256.0, twelve[7]);
        assertEquals(Math.pow(2, -0.5), twelve[8], 1e-15);
        assertEquals(Math.pow(2, -3.5), twelve[11], 1e-15);
    }

    @Test
    void configsItCannotRunAreRefusedByName(@TempDir Path tmp) throws IOException {
        NomicBertReferenceTest.assertRefused(tmp.resolve("a"), resource("jinabert-base"), c -> c.put("feed_forward_type", "original"),
                "feed_forward_type 'original'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("b"), resource("jinabert-base"), c -> c.put("position_embedding_type", "absolute"),
                "position_embedding_type 'absolute'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("c"), resource("jinabert-base"), c -> c.put("intermediate_size", 40),
                "gated_layers.weight");
        NomicBertReferenceTest.assertRefused(tmp.resolve("d"), resource("jinabert-base"), c -> c.put("num_hidden_layers", 1),
                "encoder.layer.1.");
    }
}
