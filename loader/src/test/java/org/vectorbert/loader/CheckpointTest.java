package org.vectorbert.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.TinyCheckpoints;

/** config.json, model directories, weight-name spellings and shape checks, on small made-up checkpoints. */
class CheckpointTest {
    @TempDir
    Path dir;

    private static String refusal(Runnable action) {
        return assertThrows(LoaderException.class, action::run).getMessage();
    }

    private BertConfig config(String json) throws IOException {
        return BertConfig.load(Files.writeString(dir.resolve("config.json"), json));
    }

    @Test
    void configDefaultsAreHuggingFaces() throws IOException {
        BertConfig c = config("{\"some_unknown_field\": [1, 2], \"architectures\": [\"BertModel\"]}");
        assertEquals(768, c.hiddenSize());
        assertEquals(12, c.numHiddenLayers());
        assertEquals("gelu", c.hiddenAct());
        assertEquals(1e-12, c.layerNormEps());
        assertEquals(List.of("BertModel"), c.architectures());
        assertFalse(c.preLayerNorm());
        assertEquals(BertConfig.bertBaseUncased().withArchitectures(List.of("BertModel")), c);
    }

    @Test
    void configValidationNamesTheField() throws IOException {
        assertEquals("config.json: hidden_size (770) must be divisible by num_attention_heads (12)",
                refusal(() -> load("{\"hidden_size\": 770}")));
        assertEquals("config.json: num_hidden_layers must be positive, was 0", refusal(() -> load("{\"num_hidden_layers\": 0}")));
        assertEquals("config.json: hidden_act 'mish' is not supported (supported: gelu, gelu_new, gelu_pytorch_tanh, relu, silu, swish)",
                refusal(() -> load("{\"hidden_act\": \"mish\"}")));
        assertEquals("config.json: position_embedding_type 'relative_key' is not supported; vectorbert implements 'absolute' position embeddings",
                refusal(() -> load("{\"position_embedding_type\": \"relative_key\"}")));
        assertEquals("config.json: vocab_size must be an integer, was \"big\"", refusal(() -> load("{\"vocab_size\": \"big\"}")));
        assertEquals("config.json: final_layer_norm needs pre_layer_norm", refusal(() -> load("{\"final_layer_norm\": true}")));
        assertTrue(refusal(() -> load("{\"hidden_size\": ")).startsWith("cannot parse " + dir.resolve("config.json")));
    }

    @Test
    void preLayerNormIsDeclaredInConfigJson() throws IOException {
        BertConfig c = config("{\"pre_layer_norm\": true, \"final_layer_norm\": true}");
        assertTrue(c.preLayerNorm());
        assertTrue(c.finalLayerNorm());
        assertTrue(c.toJson().get("pre_layer_norm").booleanValue());
    }

    private void load(String json) {
        try {
            config(json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private Path tinyModel(Path modelDir, Map<String, long[]> tensors, String extraConfig) throws IOException {
        return TinyCheckpoints.write(modelDir, tensors, extraConfig);
    }

    @Test
    void sentenceTransformersAndLegacyNamesResolve() throws IOException {
        Path model = tinyModel(dir.resolve("st"), Map.of(
                "embeddings.word_embeddings.weight", new long[] {10, 4},
                "embeddings.LayerNorm.gamma", new long[] {4},
                "encoder.layer.0.output.LayerNorm.beta", new long[] {4}), "");
        try (BertCheckpoint c = BertCheckpoint.open(model)) {
            assertEquals("embeddings.word_embeddings.weight", c.require(WeightNames.WORD_EMBEDDINGS, 10, 4).name());
            assertEquals("embeddings.LayerNorm.gamma", c.require("bert.embeddings.LayerNorm.weight", 4).name());
            assertEquals("encoder.layer.0.output.LayerNorm.beta", c.require("bert.encoder.layer.0.output.LayerNorm.bias", 4).name());
            String missing = refusal(() -> c.require("cls.predictions.transform.dense.weight", 4, 4));
            assertTrue(missing.startsWith(model + ": missing weight cls.predictions.transform.dense.weight"), missing);
            // Which heads this checkpoint has, and the encoder weights it lacks, are the engine's to say: BlocksTest.
        }
    }

    @Test
    void explicitDecoderWinsOverTying() throws IOException {
        Path model = tinyModel(dir.resolve("explicit"), Map.of(
                "bert.embeddings.word_embeddings.weight", new long[] {10, 4},
                "cls.predictions.decoder.weight", new long[] {10, 4},
                "cls.predictions.decoder.bias", new long[] {10}), "");
        try (BertCheckpoint c = BertCheckpoint.open(model)) {
            assertEquals("cls.predictions.decoder.weight", c.find(WeightNames.MLM_DECODER).orElseThrow().name());
            assertEquals("cls.predictions.decoder.bias", c.find(WeightNames.MLM_BIAS).orElseThrow().name());
        }
    }

    @Test
    void shapesAreCheckedByName() throws IOException {
        Path model = tinyModel(dir.resolve("bad-shape"), Map.of("bert.embeddings.word_embeddings.weight", new long[] {10, 5}), "");
        try (BertCheckpoint c = BertCheckpoint.open(model)) {
            assertEquals(model + ": weight bert.embeddings.word_embeddings.weight has shape [10, 5], expected [10, 4] for this config",
                    refusal(() -> c.require(WeightNames.WORD_EMBEDDINGS, 10, 4)));
        }
    }

    @Test
    void shardedCheckpointsLoadThroughTheIndex() throws IOException {
        Path a = tinyModel(dir.resolve("a"), Map.of("bert.embeddings.word_embeddings.weight", new long[] {10, 4}), "");
        Path b = tinyModel(dir.resolve("b"), Map.of("bert.pooler.dense.weight", new long[] {4, 4},
                "bert.pooler.dense.bias", new long[] {4}), "");
        Path sharded = Files.createDirectories(dir.resolve("sharded"));
        Files.copy(a.resolve("config.json"), sharded.resolve("config.json"));
        Files.copy(a.resolve("model.safetensors"), sharded.resolve("model-00001-of-00002.safetensors"));
        Files.copy(b.resolve("model.safetensors"), sharded.resolve("model-00002-of-00002.safetensors"));
        Files.writeString(sharded.resolve("model.safetensors.index.json"), """
                {"metadata": {"total_size": 224}, "weight_map": {
                  "bert.embeddings.word_embeddings.weight": "model-00001-of-00002.safetensors",
                  "bert.pooler.dense.weight": "model-00002-of-00002.safetensors",
                  "bert.pooler.dense.bias": "model-00002-of-00002.safetensors"}}""");
        try (BertCheckpoint c = BertCheckpoint.open(sharded)) {
            assertEquals(3, c.tensors().size());
            assertTrue(c.find("bert.pooler.dense.weight").isPresent() && c.find("bert.pooler.dense.bias").isPresent());
            assertEquals(60, c.parameterCount());
        }
        Files.writeString(sharded.resolve("model.safetensors.index.json"),
                "{\"weight_map\": {\"x\": \"../../etc/passwd\"}}");
        assertTrue(refusal(() -> BertCheckpoint.open(sharded)).contains("maps to an invalid file name"));
        Files.writeString(sharded.resolve("model.safetensors.index.json"),
                "{\"weight_map\": {\"x\": \"model-00003-of-00003.safetensors\"}}");
        assertTrue(refusal(() -> BertCheckpoint.open(sharded)).contains("shard model-00003-of-00003.safetensors (for 'x') is missing"));
    }

    @Test
    void missingPiecesAreNamed() throws IOException {
        assertEquals("model directory not found: " + dir.resolve("nope"), refusal(() -> BertCheckpoint.open(dir.resolve("nope"))));
        Path noConfig = Files.createDirectories(dir.resolve("no-config"));
        assertEquals("no config.json in " + noConfig, refusal(() -> BertCheckpoint.open(noConfig)));
        Files.writeString(noConfig.resolve("config.json"), "{}");
        assertEquals("no model.safetensors, model.safetensors.index.json, pytorch_model.bin or pytorch_model.bin.index.json in "
                + noConfig, refusal(() -> BertCheckpoint.open(noConfig)));
        Files.writeString(noConfig.resolve("pytorch_model.bin"), "");
        assertEquals(noConfig.resolve("pytorch_model.bin") + " is not a PyTorch checkpoint: it does not start as a zip file does",
                refusal(() -> BertCheckpoint.open(noConfig)));
    }
}
