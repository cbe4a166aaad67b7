package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * GTE v1.5 against the independent PyTorch reference written from the hub code (tools/torch-reference/make_gte_fixtures.py;
 * the cases and the semantics are in architectures/gte/NOTES.md): the tokenizers' ids (WordPiece and Unigram), the
 * encoder at the real positions with NTK-scaled rotary positions, token types or none, the reranker's pooler and
 * classifier, a 2,972-token input, and the sentence-transformers directories ([CLS] pooling, normalised).
 */
class GteReferenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(GteReferenceTest.class.getResource("/architectures/gte/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int pad(String name) {
        return name.startsWith("gte-multilingual") ? 1 : 0;
    }

    @ParameterizedTest
    @ValueSource(strings = {"gte-base-en", "gte-en-token-types", "gte-multilingual", "gte-multilingual-reranker", "gte-long"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        assertTheLibrarysIds(resource(name), pad(name));
    }

    /**
     * The directory's tokenizer gives inputs.json's ids for each case's texts (with {@code pairs}, each text and its pair):
     * the ids npm {@code tokenizers} gave, padded with {@code pad}.
     */
    static void assertTheLibrarysIds(Path dir, int pad) throws IOException {
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : JSON.readTree(dir.resolve("inputs.json").toFile())) {
            Batch batch = FamilyReferenceTest.batch(c, pad);
            for (int s = 0; s < c.get("texts").size(); s++) {
                String text = c.get("texts").get(s).asText();
                var encoding = c.has("pairs") ? tokenizer.encode(text, c.get("pairs").get(s).asText()) : tokenizer.encode(text);
                int[] want = new int[batch.lengths()[s]];
                System.arraycopy(batch.ids(), s * batch.length(), want, 0, want.length);
                assertArrayEquals(want, encoding.ids(), dir.getFileName() + " " + c.get("name").asText() + " text " + s);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"gte-base-en", "gte-en-token-types", "gte-multilingual", "gte-multilingual-reranker", "gte-long"})
    void encoderAndHeadsMatchPyTorch(String name) throws IOException {
        Path dir = resource(name);
        Encoder model = Encoder.load(dir);
        assertTrue(model instanceof PostNormEncoder, name);
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                Batch batch = FamilyReferenceTest.batch(cases.get(k), pad(name));
                String at = name + " case" + k;
                String c = "case" + k + ".";
                if (name.endsWith("-reranker")) {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.SEQUENCE_CLASSIFIER, null));
                    ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    ModernBertReferenceTest.assertClose(expected, c + "logits", out.heads().get(HeadKind.SEQUENCE_CLASSIFIER), at);
                } else {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState());
                    ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    float[] packed = model.forward(batch, Encoder.Request.lastHiddenState(), o -> o.lastHiddenState().clone());
                    ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", packed, batch, at + " (packed)");
                }
            }
        }
    }

    /** gte-multilingual-base's file holds an untrained one-logit token classifier and no labels: it loads as an embedding model. */
    @Test
    void anUnlabelledTokenClassifierIsNotAHead() {
        Encoder model = Encoder.load(resource("gte-multilingual"));
        assertFalse(model.heads().contains(HeadKind.TOKEN_CLASSIFIER));
        assertEquals(null, model.labels());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gte-base-en", "gte-en-token-types", "gte-multilingual"})
    void sentenceTransformersDirectoriesGiveTheReferenceEmbeddings(String name) throws IOException {
        Path dir = resource(name);
        Embeddings embeddings = Embeddings.load(dir.toString());
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                if (c.has("pairs")) {
                    continue;     // sentence-transformers embeds texts, not pairs
                }
                List<String> texts = new ArrayList<>();
                c.get("texts").forEach(t -> texts.add(t.asText()));
                List<float[]> vectors = embeddings.embed(texts);
                float[] all = ModernBertReferenceTest.concat(vectors);
                ModernBertReferenceTest.assertClose(expected, "case" + k + ".sentence_embedding", all, name + " case" + k);
            }
        }
    }

    /** The reranker's one logit is the score: rerank gives its sigmoid, or the logit itself when asked for raw scores. */
    @Test
    void theRerankerScoresAsTheReferenceSays() throws IOException {
        Path dir = resource("gte-multilingual-reranker");
        JsonNode c = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
        Reranker reranker = Reranker.load(dir.toString());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case0.logits").toFloatArray();
            for (int s = 0; s < c.get("texts").size(); s++) {
                String query = c.get("texts").get(s).asText();
                List<String> document = List.of(c.get("pairs").get(s).asText());
                assertEquals(logits[s], reranker.scores(query, document, true)[0], 1e-4, "raw score of pair " + s);
                assertEquals(1 / (1 + Math.exp(-logits[s])), reranker.scores(query, document, false)[0], 1e-4, "score of pair " + s);
            }
        }
    }

    /**
     * snowflake-arctic-embed-m-v2.0 declares {@code model_type: gte} and auto_map to its own copy of new-impl's code
     * ({@code modeling_hf_alibaba_nlp_gte.GteModel}) with the same tensor names: the same weights give the same states.
     */
    @Test
    void snowflakeArcticEmbedV2sConfigRunsAsGte(@TempDir Path tmp) throws IOException {
        Path from = resource("gte-en-token-types");
        try (var files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, tmp.resolve(from.relativize(f).toString()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        ObjectNode config = (ObjectNode) JSON.readTree(from.resolve("config.json").toFile());
        config.put("model_type", "gte").putArray("architectures").add("GteModel");
        config.putObject("auto_map").put("AutoConfig", "configuration_hf_alibaba_nlp_gte.GteConfig")
                .put("AutoModel", "modeling_hf_alibaba_nlp_gte.GteModel");
        JSON.writeValue(tmp.resolve("config.json").toFile(), config);
        Encoder model = Encoder.load(tmp);
        assertTrue(model instanceof PostNormEncoder);
        JsonNode cases = JSON.readTree(tmp.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(tmp.resolve("expected.safetensors"))) {
            Batch batch = FamilyReferenceTest.batch(cases.get(0), 0);
            ModernBertReferenceTest.assertRealClose(expected, "case0.last_hidden_state",
                    model.forward(batch, Encoder.Request.lastHiddenState()).lastHiddenState(), batch, "snowflake-shaped");
        }
        config.remove("auto_map");
        JSON.writeValue(tmp.resolve("config.json").toFile(), config);
        assertTrue(Encoder.load(tmp) instanceof PostNormEncoder, "by model_type gte alone");
    }

    @Test
    void configsItCannotRunAreRefusedByName(@TempDir Path tmp) throws IOException {
        NomicBertReferenceTest.assertRefused(tmp.resolve("a"), resource("gte-logn"), c -> { }, "logn_attention_scale true");
        NomicBertReferenceTest.assertRefused(tmp.resolve("b"), resource("gte-base-en"), c -> c.put("layer_norm_type", "rms_norm"),
                "layer_norm_type 'rms_norm'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("c"), resource("gte-base-en"), c -> c.put("pack_qkv", false), "pack_qkv");
        NomicBertReferenceTest.assertRefused(tmp.resolve("d"), resource("gte-base-en"),
                c -> c.putObject("rope_scaling").put("type", "yarn").put("factor", 2.0), "rope_scaling");
        NomicBertReferenceTest.assertRefused(tmp.resolve("e"), resource("gte-base-en"), c -> c.put("type_vocab_size", 2),
                "token_type_embeddings");
        NomicBertReferenceTest.assertRefused(tmp.resolve("f"), resource("gte-base-en"), c -> c.put("hidden_act", "mish"), "hidden_act 'mish'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("g"), resource("gte-base-en"), c -> c.put("intermediate_size", 40),
                "up_gate_proj.weight");
    }
}
