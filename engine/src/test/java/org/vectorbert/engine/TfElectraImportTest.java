package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.TfBundles;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.Tensor;

/**
 * Google's ELECTRA pre-training checkpoints (google-research/electra) through the TensorFlow importer ({@code TfImport}), where the
 * engine can check what comes out. No real one can be had here, so the test writes one in that layout
 * ({@link TfBundles}) from the two ELECTRA family fixtures: the discriminator's weights under the names ELECTRA's
 * code gives them ({@code electra/...}, {@code discriminator_predictions/dense} and {@code dense_1}), and the
 * generator's beside them ({@code generator/...} with embeddings of its own, as {@code untied_generator_embeddings}
 * saves them, and {@code generator_predictions/...}), kernels stored [in, out]. Each import must give its fixture's
 * weights bit for bit and, through the engine, the independent PyTorch reference's hidden states and MLM logits.
 */
class TfElectraImportTest {
    @TempDir
    static Path work;

    static Path checkpoint;

    @BeforeAll
    static void writePreTrainingCheckpoint() throws IOException {
        Map<String, TfBundles.Variable> variables = new TreeMap<>();
        addAs(variables, FamilyReferenceTest.resource("electra-discriminator"), false);
        addAs(variables, FamilyReferenceTest.resource("electra-generator-mlm"), true);
        checkpoint = work.resolve("electra_tiny");
        TfBundles.write(checkpoint.resolve("electra_tiny"), variables);
        // As a training directory holds them: an older checkpoint beside, and the checkpoint file naming the latest
        // by the trainer's own path.
        TfBundles.write(checkpoint.resolve("model.ckpt-100"), Map.of("global_step", TfBundles.Variable.int64(100)));
        Files.writeString(checkpoint.resolve("checkpoint"), "model_checkpoint_path: \"gs://bucket/models/electra_tiny\"\n"
                + "all_model_checkpoint_paths: \"gs://bucket/models/model.ckpt-100\"\n"
                + "all_model_checkpoint_paths: \"gs://bucket/models/electra_tiny\"\n");
        // These tiny models have 8-wide heads, which the weights cannot tell: their config goes beside (the two fixtures
        // have the same sizes, so one config describes either).
        Files.copy(FamilyReferenceTest.resource("electra-discriminator").resolve("config.json"), checkpoint.resolve("config.json"));
    }

    /** A fixture's tensors under the TensorFlow names ELECTRA's pre-training gives its discriminator or generator. */
    private static void addAs(Map<String, TfBundles.Variable> variables, Path fixture, boolean generator) throws IOException {
        try (SafetensorsFile file = SafetensorsFile.open(fixture.resolve("model.safetensors"))) {
            for (Tensor t : file.tensors().values()) {
                String name = t.name();
                String tf;
                if (name.equals("generator_lm_head.bias")) {
                    tf = "generator_predictions/output_bias";
                } else if (name.startsWith("electra.")) {
                    tf = (generator ? "generator/" : "electra/") + name.substring("electra.".length());
                } else {
                    tf = name.replace("discriminator_predictions.dense_prediction.", "discriminator_predictions.dense_1.");
                }
                tf = tf.replaceAll("layer\\.(\\d+)", "layer_$1").replace('.', '/');
                float[] values = t.toFloatArray();
                long[] shape = t.shape();
                if (tf.endsWith("_embeddings/weight")) {
                    tf = tf.substring(0, tf.length() - "/weight".length());
                } else if (tf.contains("LayerNorm/")) {
                    tf = tf.replace("LayerNorm/weight", "LayerNorm/gamma").replace("LayerNorm/bias", "LayerNorm/beta");
                } else if (tf.endsWith("/weight")) {
                    // A Linear's [out, in] weight is a dense layer's [in, out] kernel.
                    tf = tf.substring(0, tf.length() - "weight".length()) + "kernel";
                    int out = (int) shape[0];
                    int in = (int) shape[1];
                    float[] kernel = new float[values.length];
                    for (int o = 0; o < out; o++) {
                        for (int i = 0; i < in; i++) {
                            kernel[i * out + o] = values[o * in + i];
                        }
                    }
                    values = kernel;
                    shape = new long[] {in, out};
                }
                variables.put(tf, new TfBundles.Variable(shape, values));
            }
        }
        // What a pre-training checkpoint also holds and an import must leave: the step counter and Adam's slots.
        variables.put("global_step", TfBundles.Variable.int64(1_000_000));
        variables.put((generator ? "generator" : "electra") + "/encoder/layer_0/output/dense/bias/adam_m",
                new TfBundles.Variable(new long[] {32}, new float[32]));
    }

    @Test
    void theDiscriminatorIsImportedByDefault() throws IOException {
        Path out = work.resolve("discriminator");
        BertConfig config = TfBundles.imported(checkpoint, out, false);
        assertEquals(List.of("ElectraForPreTraining"), config.architectures());
        assertImportedAs(out, "electra-discriminator", false);
    }

    @Test
    void theGeneratorIsImportedWhenAsked() throws IOException {
        Path out = work.resolve("generator");
        BertConfig config = TfBundles.imported(checkpoint.resolve("electra_tiny.index"), out, true);
        assertEquals(List.of("ElectraForMaskedLM"), config.architectures());
        assertImportedAs(out, "electra-generator-mlm", true);
    }

    /** The import holds exactly the fixture's tensors, bit for bit, and computes what PyTorch computes. */
    private static void assertImportedAs(Path out, String fixture, boolean mlm) throws IOException {
        Path reference = FamilyReferenceTest.resource(fixture);
        try (BertCheckpoint imported = BertCheckpoint.open(out);
             SafetensorsFile original = SafetensorsFile.open(reference.resolve("model.safetensors"))) {
            assertEquals(original.tensors().keySet(), new java.util.TreeSet<>(imported.tensors().keySet()), fixture + ": the tensors");
            for (Tensor t : imported.tensors().values()) {
                assertArrayEquals(original.tensor(t.name()).shape(), t.shape(), t.name());
                assertArrayEquals(original.tensor(t.name()).toFloatArray(), t.toFloatArray(), t.name());
            }
            assertEquals(16, imported.config().embeddingSize());
        }
        FamilyReferenceTest.assertMatchesReference("TF " + fixture, BertModel.load(out), reference, mlm, null);
    }
}
