package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * NomicBERT against the independent PyTorch reference written from the hub code (tools/torch-reference/
 * make_nomicbert_fixtures.py; the cases and the semantics are in architectures/nomicbert/NOTES.md): the tokenizer's ids,
 * the encoder at the real positions, the MLM head, partial and interleaved rotary positions, dynamic NTK scaling by the
 * padded batch length, a 2,968-token input, and nomic-embed-text-v1.5's sentence-transformers directory with its prompts.
 */
class NomicBertReferenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> ALL = List.of("nomicbert-base", "nomicbert-mlm", "nomicbert-variants", "nomicbert-scaled",
            "nomicbert-long", "nomicbert-sentence");

    static Path resource(String name) {
        try {
            return Path.of(NomicBertReferenceTest.class.getResource("/architectures/nomicbert/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void theTokenizerGivesTheLibrarysIds() throws IOException {
        for (String name : ALL) {
            Path dir = resource(name);
            Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
            for (JsonNode c : JSON.readTree(dir.resolve("inputs.json").toFile())) {
                String prompt = c.path("prompt").asText("");
                for (int s = 0; s < c.get("texts").size(); s++) {
                    JsonNode text = c.get("texts").get(s);
                    int[] ids = text.isArray() ? tokenizer.encode(text.get(0).asText(), text.get(1).asText()).ids()
                            : tokenizer.encode(prompt + text.asText()).ids();
                    Batch batch = FamilyReferenceTest.batch(c, 0);
                    int[] want = new int[batch.lengths()[s]];
                    System.arraycopy(batch.ids(), s * batch.length(), want, 0, want.length);
                    assertArrayEquals(want, ids, name + " " + c.get("name").asText() + " text " + s);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"nomicbert-base", "nomicbert-mlm", "nomicbert-variants", "nomicbert-scaled", "nomicbert-long"})
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
                if (name.endsWith("-mlm")) {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState()
                            .withMlmLogitsAt(IntStream.range(0, batch.rows()).toArray()));
                    ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    ModernBertReferenceTest.assertRealClose(expected, c + "logits", out.mlmLogits(), batch, at);
                } else {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState());
                    ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    float[] packed = model.forward(batch, Encoder.Request.lastHiddenState(), o -> o.lastHiddenState().clone());
                    ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", packed, batch, at + " (packed)");
                }
            }
        }
    }

    /** v1.5's directory: mean pooling with the prompt's tokens, no Normalize module, so the vectors are not normalised. */
    @Test
    void theSentenceTransformersDirectoryGivesTheReferenceEmbeddings() throws IOException {
        Path dir = resource("nomicbert-sentence");
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                String at = "nomicbert-sentence case" + k;
                EmbeddingOptions options = c.path("prompt_name").isTextual()
                        ? EmbeddingOptions.defaults().withPromptName(c.get("prompt_name").asText()) : EmbeddingOptions.defaults();
                Embeddings embeddings = Embeddings.load(dir.toString(), options);
                Batch batch = FamilyReferenceTest.batch(c, 0);
                Encoder.Output out = embeddings.model().forward(batch, Encoder.Request.lastHiddenState());
                ModernBertReferenceTest.assertRealClose(expected, "case" + k + ".token_embeddings", out.lastHiddenState(), batch, at);
                List<String> texts = new ArrayList<>();
                c.get("texts").forEach(t -> texts.add(t.asText()));
                List<float[]> vectors = embeddings.embed(texts);
                float[] all = ModernBertReferenceTest.concat(vectors);
                ModernBertReferenceTest.assertClose(expected, "case" + k + ".sentence_embedding", all, at);
            }
        }
    }

    /** Matryoshka dimensions as nomic-embed-text-v1.5's card cuts them: layer_norm over the full width, the cut, then normalise. */
    @ParameterizedTest
    @ValueSource(ints = {32, 16})
    void dimensionsFollowTheModelCardsRecipe(int dimensions) throws IOException {
        Path dir = resource("nomicbert-sentence");
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                EmbeddingOptions options = EmbeddingOptions.defaults().withNormalize(true).withDimensions(dimensions);
                if (c.path("prompt_name").isTextual()) {
                    options = options.withPromptName(c.get("prompt_name").asText());
                }
                List<String> texts = new ArrayList<>();
                c.get("texts").forEach(t -> texts.add(t.asText()));
                List<float[]> vectors = Embeddings.load(dir.toString(), options).embed(texts);
                float[] all = new float[vectors.size() * dimensions];
                for (int i = 0; i < vectors.size(); i++) {
                    assertEquals(dimensions, vectors.get(i).length);
                    System.arraycopy(vectors.get(i), 0, all, i * dimensions, dimensions);
                }
                ModernBertReferenceTest.assertClose(expected, "case" + k + ".matryoshka_" + dimensions, all, "case" + k);
            }
        }
    }

    /** Fill-mask runs NomicBERT's MLM head through the task, ranking the 321 ids the tokenizer has of the 384 rows. */
    @Test
    void fillMaskRunsTheMlmHead() throws IOException {
        Path dir = resource("nomicbert-mlm");
        JsonNode c = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
        List<String> texts = new ArrayList<>();
        c.get("texts").forEach(t -> texts.add(t.asText()));
        List<FillMask.Prediction> predictions = FillMask.load(dir.toString()).predict(texts);
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            var logits = expected.tensor("case0.logits");
            float[] all = logits.toFloatArray();
            int length = (int) logits.shape()[1];
            for (int s = 0; s < texts.size(); s++) {
                int at = -1;
                for (int i = 0; i < length; i++) {
                    at = c.get("input_ids").get(s).get(i).asInt() == 7 ? i : at;     // [MASK]
                }
                int row = (s * length + at) * 384;
                int best = IntStream.range(0, 321).reduce((a, b) -> all[row + b] > all[row + a] ? b : a).orElseThrow();
                assertEquals(best, predictions.get(s).masks().getFirst().getFirst().token(), "text " + s);
            }
        }
    }

    /** The JVM's plain first pass gives the vector kernels' bits, on the variant with every bias and reordered rotary columns. */
    @Test
    void aPlainPassGivesTheVectorBits() throws IOException {
        Encoder model = Encoder.load(resource("nomicbert-variants"));
        Batch batch = FamilyReferenceTest.batch(JSON.readTree(resource("nomicbert-variants").resolve("inputs.json").toFile()).get(0), 0);
        Encoder.Request request = Encoder.Request.lastHiddenState().withAllHiddenStates().withAttentions();
        Encoder.Output vector = model.forward(batch, request);
        Encoder.Output plain = PlainKernels.runPlain(() -> model.forward(batch, request));
        assertArrayEquals(vector.lastHiddenState(), plain.lastHiddenState());
        assertEquals(model.config().numHiddenLayers() + 1, vector.hiddenStates().size());
        for (int l = 0; l < vector.attentions().size(); l++) {
            assertArrayEquals(vector.attentions().get(l), plain.attentions().get(l), "attentions of layer " + l);
        }
    }

    @Test
    void rotaryOrderPairsTheModelsColumns() {
        assertEquals(null, NomicBertModel.rotaryOrder(8, 8, false));
        assertArrayEquals(new int[] {0, 2, 4, 6, 1, 3, 5, 7}, NomicBertModel.rotaryOrder(8, 8, true));
        assertArrayEquals(new int[] {0, 1, 4, 5, 2, 3, 6, 7}, NomicBertModel.rotaryOrder(8, 4, false));
        assertArrayEquals(new int[] {0, 2, 4, 5, 1, 3, 6, 7}, NomicBertModel.rotaryOrder(8, 4, true));
    }

    @Test
    void configsItCannotRunAreRefusedByName(@TempDir Path tmp) throws IOException {
        assertRefused(tmp.resolve("a"), "nomicbert-base", c -> c.put("prenorm", true), "prenorm true");
        assertRefused(tmp.resolve("b"), "nomicbert-base", c -> c.put("activation_function", "gelu"), "activation_function 'gelu'");
        assertRefused(tmp.resolve("c"), "nomicbert-base", c -> c.put("rotary_emb_scale_base", 512), "rotary_emb_scale_base");
        assertRefused(tmp.resolve("d"), "nomicbert-base", c -> c.put("rotary_emb_fraction", 0.0), "rotary_emb_fraction");
        assertRefused(tmp.resolve("e"), "nomicbert-base", c -> c.put("qkv_proj_bias", true), "Wqkv.bias");
        assertRefused(tmp.resolve("f"), "nomicbert-base", c -> c.put("n_layer", 1), "encoder.layers.1.");
        assertRefused(tmp.resolve("g"), "nomicbert-base", c -> c.put("n_inner", 512), "fc12.weight");
    }

    /** A copy of fixture {@code name} with its config.json changed by {@code edit} must fail to load, naming {@code what}. */
    static void assertRefused(Path dir, Path from, Consumer<ObjectNode> edit, String what) throws IOException {
        Files.createDirectories(dir);
        for (String f : List.of("model.safetensors", "tokenizer.json")) {
            Files.copy(from.resolve(f), dir.resolve(f));
        }
        ObjectNode config = (ObjectNode) JSON.readTree(from.resolve("config.json").toFile());
        edit.accept(config);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        LoaderException e = assertThrows(LoaderException.class, () -> Encoder.load(dir));
        assertTrue(e.getMessage().contains(what), e.getMessage());
    }

    private static void assertRefused(Path dir, String name, Consumer<ObjectNode> edit, String what) throws IOException {
        assertRefused(dir, resource(name), edit, what);
    }
}
