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
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * MPNet against the independent PyTorch reference (tools/torch-reference/make_mpnet_fixtures.py; the cases and what
 * transformers does are in architectures/mpnet/NOTES.md): the bucket of every distance, the tokenizer's ids, the
 * encoder and each head at every position, and the sentence-transformers directories' embeddings.
 */
class MpnetReferenceTest {
    private static final double TOLERANCE = 1e-4;
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(MpnetReferenceTest.class.getResource("/architectures/mpnet/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @org.junit.jupiter.api.Test
    void everyDistanceFallsInTransformersBucket() throws IOException {
        JsonNode buckets = JSON.readTree(resource("buckets.json").toFile()).get("buckets");
        assertEquals(801, buckets.size());
        for (Map.Entry<String, JsonNode> e : buckets.properties()) {
            assertEquals(e.getValue().asInt(), RelativePositionBias.bucket(Integer.parseInt(e.getKey())), "distance " + e.getKey());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"mpnet-mlm", "mpnet-seqcls", "mpnet-tokcls", "mpnet-qa"})
    void encoderAndHeadsMatchPyTorch(String name) throws IOException {
        Path dir = resource(name);
        Encoder model = Encoder.load(dir);
        FamilyReferenceTest.assertMatchesReference(name, (BertModel) model, dir, name.endsWith("-mlm"), FamilyReferenceTest.task(name));
    }

    @ParameterizedTest
    @ValueSource(strings = {"mpnet-mlm", "mpnet-seqcls", "mpnet-tokcls", "mpnet-qa", "mpnet-sentence-mean", "mpnet-sentence-cls-dot"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        Path dir = resource(name);
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : JSON.readTree(dir.resolve("inputs.json").toFile())) {
            for (int s = 0; s < c.get("texts").size(); s++) {
                String text = c.get("texts").get(s).asText();
                int[] ids = c.has("pairs") ? tokenizer.encode(text, c.get("pairs").get(s).asText()).ids() : tokenizer.encode(text).ids();
                assertArrayEquals(unpadded(c, s), ids, name + " " + c.get("name").asText() + " text " + s);
            }
        }
    }

    /**
     * A WordPiece tokenizer.json whose {@code <mask>} is only an added token, past the vocabulary, as Hugging Face accepts
     * it: the ids are the library's (npm tokenizers 0.23.2 on this file).
     */
    @org.junit.jupiter.api.Test
    void anAddedTokenPastTheVocabularyIsTheLibrarys(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode json =
                (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(resource("mpnet-mlm").resolve("tokenizer.json").toFile());
        ((com.fasterxml.jackson.databind.node.ObjectNode) json.path("model").path("vocab")).remove("<mask>");
        JSON.writeValue(dir.resolve("tokenizer.json").toFile(), json);
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        assertArrayEquals(new int[] {0, 105, 83, 80, 325, 127, 32, 2}, tokenizer.encode("Where is the <mask> tower?").ids());
        assertArrayEquals(new int[] {0, 80, 325, 83, 2, 2, 87, 325, 114, 25, 2}, tokenizer.encode("the<mask>is", "it <mask> paris.").ids());
    }

    @ParameterizedTest
    @ValueSource(strings = {"mpnet-sentence-mean", "mpnet-sentence-cls-dot"})
    void sentenceTransformersDirectoriesGiveTheReferenceEmbeddings(String name) throws IOException {
        Path dir = resource(name);
        Embeddings embeddings = Embeddings.load(dir.toString(), EmbeddingOptions.defaults());
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                String at = name + " case" + k;
                Batch batch = FamilyReferenceTest.batch(c, 1);
                Encoder.Output out = embeddings.model().forward(batch, Encoder.Request.lastHiddenState().withPooled());
                assertClose(expected, "case" + k + ".last_hidden_state", out.lastHiddenState(), at);
                assertClose(expected, "case" + k + ".pooler_output", out.pooled(), at);
                if (c.has("pairs")) {
                    continue;     // sentence-transformers embeds single texts
                }
                List<String> texts = new ArrayList<>();
                c.get("texts").forEach(t -> texts.add(t.asText()));
                List<float[]> vectors = embeddings.embed(texts);
                float[] all = new float[vectors.size() * vectors.getFirst().length];
                for (int i = 0; i < vectors.size(); i++) {
                    System.arraycopy(vectors.get(i), 0, all, i * vectors.get(i).length, vectors.get(i).length);
                }
                assertClose(expected, "case" + k + ".sentence_embedding", all, at);
            }
        }
    }

    private static void assertClose(SafetensorsFile expected, String tensor, float[] actual, String at) {
        double d = ReferenceTest.maxAbsDiff(expected, tensor, actual);
        assertTrue(d <= TOLERANCE, at + ": " + tensor + " differs by " + d);
    }

    private static int[] unpadded(JsonNode c, int s) {
        JsonNode ids = c.get("input_ids").get(s);
        JsonNode mask = c.get("attention_mask").get(s);
        return IntStream.range(0, ids.size()).filter(i -> mask.get(i).asInt() == 1).map(i -> ids.get(i).asInt()).toArray();
    }
}
