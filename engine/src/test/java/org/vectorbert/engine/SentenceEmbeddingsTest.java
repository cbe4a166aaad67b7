package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.BertTokenizer;

/**
 * sentence-transformers semantics on the real all-MiniLM-L6-v2 weights (langchain4j's jar, imported
 * from ONNX), against vectors from an independent PyTorch implementation (tools/st-reference): the
 * model directory's own settings, with no options, give encode()'s vectors for a few hundred real
 * texts, some cut at 256 tokens; other pooling modes, and a prompt left out of the pooling, likewise.
 */
@Tag("heavy")
class SentenceEmbeddingsTest {
    private static JsonNode cases;
    private static BertModel model;
    private static BertTokenizer tokenizer;

    @TempDir
    Path temp;

    @BeforeAll
    static void load() throws IOException {
        try (var json = ReferenceTest.class.getResourceAsStream("/sentence/all-minilm-l6-v2.json")) {
            cases = new ObjectMapper().readTree(json);
        }
        model = BertModel.load(RealModels.allMiniLm());
        tokenizer = BertTokenizer.fromDirectory(RealModels.allMiniLm());
    }

    private static List<String> texts(JsonNode c) {
        List<String> texts = new ArrayList<>();
        c.get("texts").forEach(t -> texts.add(t.asText()));
        return texts;
    }

    /** Every vector within cosine 0.99999 of the reference's (and close in every component). */
    private static void assertMatches(String name, float[] expected, List<float[]> actual, int dim) {
        assertEquals(expected.length, actual.size() * dim, name);
        double worstCosine = 1;
        double worstDiff = 0;
        for (int i = 0; i < actual.size(); i++) {
            double dot = 0;
            double a = 0;
            double b = 0;
            for (int d = 0; d < dim; d++) {
                float e = expected[i * dim + d];
                float v = actual.get(i)[d];
                dot += (double) e * v;
                a += (double) e * e;
                b += (double) v * v;
                worstDiff = Math.max(worstDiff, Math.abs(e - v));
            }
            worstCosine = Math.min(worstCosine, dot / Math.sqrt(a * b));
        }
        assertTrue(worstCosine >= 0.99999, name + ": worst cosine " + worstCosine);
        assertTrue(worstDiff <= 1e-4, name + ": worst component difference " + worstDiff);
    }

    private static float[] expected(int i) throws IOException {
        try (SafetensorsFile ref = SafetensorsFile.open(Path.of(ReferenceTest.class.getResource("/sentence/all-minilm-l6-v2.safetensors")
                .getPath()))) {
            return ref.tensor("case" + i + ".vectors").toFloatArray();
        }
    }

    @Test
    void theModelsOwnSettingsGiveSentenceTransformersVectors() throws IOException {
        JsonNode hub = cases.get(0);
        Embeddings embeddings = Embeddings.of(model, tokenizer, EmbeddingOptions.defaults());
        assertEquals(List.of(Pooling.MEAN), embeddings.options().pooling());
        assertTrue(embeddings.options().normalize());
        assertTrue(embeddings.options().truncate());
        assertEquals(256, embeddings.maxTokens());
        assertEquals(384, embeddings.dimension());
        List<String> texts = texts(hub);
        List<Embeddings.Result> results = embeddings.run(texts, null);
        assertMatches("hub", expected(0), results.stream().map(Embeddings.Result::pooled).toList(), 384);
        long cut = results.stream().filter(Embeddings.Result::truncated).count();
        assertEquals(5, cut, "texts of over 256 tokens, cut as sentence-transformers cuts them");
        for (int i = 0; i < results.size(); i++) {
            assertEquals(hub.get("lengths").get(i).asInt(), results.get(i).ids().length, "tokens of text " + i);
        }
    }

    @Test
    void poolingModesConcatenateInSentenceTransformersOrder() throws IOException {
        JsonNode modes = cases.get(1);
        Path dir = variant("modes", """
                {"pooling_mode_cls_token": true, "pooling_mode_max_tokens": true, "pooling_mode_mean_sqrt_len_tokens": true,
                 "pooling_mode_lasttoken": true}""", false, 128, null);
        Embeddings embeddings = Embeddings.of(BertModel.load(dir), tokenizer, EmbeddingOptions.defaults());
        assertEquals(List.of(Pooling.CLS, Pooling.MAX, Pooling.MEAN_SQRT_LEN, Pooling.LAST_TOKEN), embeddings.options().pooling());
        assertEquals(4 * 384, embeddings.dimension());
        assertMatches("modes", expected(1), embeddings.embed(texts(modes)), 4 * 384);
    }

    @Test
    void aPromptLeftOutOfThePoolingIsStillSeenByTheModel() throws IOException {
        JsonNode prompt = cases.get(2);
        Path dir = variant("prompt", "{\"pooling_mode_mean_tokens\": true, \"include_prompt\": false}", true, 256, """
                {"prompts": {"query": "query: ", "passage": "passage: "}, "default_prompt_name": "query"}""");
        Embeddings embeddings = Embeddings.of(BertModel.load(dir), tokenizer, EmbeddingOptions.defaults());
        assertEquals("query: ", embeddings.options().prompt());
        assertMatches("prompt", expected(2), embeddings.embed(texts(prompt)), 384);
        // Named explicitly, or given as text: the same vectors; another prompt gives others.
        Embeddings named = embeddings.with(EmbeddingOptions.defaults().withPromptName("query"));
        Embeddings literal = embeddings.with(EmbeddingOptions.defaults().withPrompt("query: "));
        String text = texts(prompt).get(3);
        assertArrayEquals(embeddings.embed(text), named.embed(text));
        assertArrayEquals(embeddings.embed(text), literal.embed(text));
        assertTrue(!java.util.Arrays.equals(embeddings.embed(text),
                embeddings.with(EmbeddingOptions.defaults().withPromptName("passage")).embed(text)));
        var unknown = assertThrows(EngineException.class, () -> embeddings.with(EmbeddingOptions.defaults().withPromptName("title")));
        assertEquals("the model has no prompt named 'title' (it has [query, passage])", unknown.getMessage());
    }

    @Test
    void optionsOverrideWhatTheModelDeclares() {
        Embeddings declared = Embeddings.of(model, tokenizer, EmbeddingOptions.defaults());
        Embeddings strict = declared.with(EmbeddingOptions.defaults().withTruncate(false));
        String tooLong = "word ".repeat(300);
        var refused = assertThrows(TextTooLongException.class, () -> strict.embed(tooLong));
        assertEquals(302, refused.tokens());
        assertEquals(256, refused.maximum());
        Embeddings raw = declared.with(EmbeddingOptions.defaults().withPooling(Pooling.CLS).withNormalize(false));
        float[] v = raw.embed("A sentence.");
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        assertTrue(Math.abs(Math.sqrt(norm) - 1) > 0.1, "not normalised: " + Math.sqrt(norm));
    }

    @Test
    void dimensionsKeepTheFirstComponentsNormalisedAfterTheCut() {
        Embeddings full = Embeddings.of(model, tokenizer, EmbeddingOptions.defaults());
        Embeddings cut = full.with(EmbeddingOptions.defaults().withDimensions(128));
        assertEquals(128, cut.dimension());
        String text = "A cat sits on the mat.";
        float[] expected = Pool.l2Normalize(java.util.Arrays.copyOf(full.embed(text), 128));
        float[] actual = cut.embed(text);
        assertArrayEquals(expected, actual, 1e-6f);
        double norm = 0;
        for (float x : actual) {
            norm += x * x;
        }
        assertEquals(1, Math.sqrt(norm), 1e-5);
        // Without normalisation (as TEI does), the cut alone: the first components as they were.
        Embeddings raw = full.with(EmbeddingOptions.defaults().withNormalize(false));
        assertArrayEquals(java.util.Arrays.copyOf(raw.embed(text), 100),
                full.with(EmbeddingOptions.defaults().withNormalize(false).withDimensions(100)).embed(text));
        // Several pooling modes concatenated: the cut may reach into the second.
        assertEquals(500, full.with(EmbeddingOptions.defaults().withPooling(Pooling.MEAN, Pooling.CLS).withDimensions(500))
                .embed(text).length);
        for (int wrong : new int[] {0, -1, 385}) {
            var refused = assertThrows(EngineException.class, () -> full.with(EmbeddingOptions.defaults().withDimensions(wrong)));
            assertEquals("dimensions must be from 1 to the model's 384, was " + wrong, refused.getMessage());
        }
    }

    @Test
    void resultsComeBackInTheOrderGivenWhateverTheBatching() {
        Embeddings embeddings = Embeddings.of(model, tokenizer, EmbeddingOptions.defaults());
        List<String> texts = texts(cases.get(0)).subList(0, 60);
        List<float[]> alone = texts.stream().map(embeddings::embed).toList();
        for (int budget : new int[] {1, 64, 512, 100_000}) {
            List<float[]> together = embeddings.with(EmbeddingOptions.defaults().withBatchTokens(budget)).embed(texts);
            for (int i = 0; i < texts.size(); i++) {
                assertArrayEquals(alone.get(i), together.get(i), "text " + i + " with a budget of " + budget);
            }
        }
    }

    /** The imported model with other sentence-transformers files: the Pooling config, Normalize, max_seq_length, prompts. */
    private Path variant(String name, String pooling, boolean normalize, int maxSeqLength, String stConfig) throws IOException {
        Path dir = Files.createDirectories(temp.resolve(name));
        try (var files = Files.list(RealModels.allMiniLm())) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.createLink(dir.resolve(f.getFileName()), f);
            }
        }
        Files.delete(dir.resolve("modules.json"));
        Files.delete(dir.resolve("sentence_bert_config.json"));
        Files.writeString(dir.resolve("modules.json"), "[{\"path\": \"\", \"type\": \"sentence_transformers.models.Transformer\"},"
                + " {\"path\": \"1_Pooling\", \"type\": \"sentence_transformers.models.Pooling\"}"
                + (normalize ? ", {\"path\": \"2_Normalize\", \"type\": \"sentence_transformers.models.Normalize\"}" : "") + "]");
        Files.createDirectories(dir.resolve("1_Pooling"));
        Files.writeString(dir.resolve("1_Pooling/config.json"), pooling);
        Files.writeString(dir.resolve("sentence_bert_config.json"), "{\"max_seq_length\": " + maxSeqLength + "}");
        if (stConfig != null) {
            Files.writeString(dir.resolve("config_sentence_transformers.json"), stConfig);
        }
        return dir;
    }
}
