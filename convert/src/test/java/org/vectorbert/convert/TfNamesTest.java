package org.vectorbert.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.LoaderException;

/** TensorFlow names (BERT's and ELECTRA's), and checkpoints that are not what they claim, on small made-up inputs. */
class TfNamesTest {
    @TempDir
    Path dir;

    private static String refusal(Runnable action) {
        return assertThrows(LoaderException.class, action::run).getMessage();
    }

    @Test
    void tensorFlowNamesMapToHuggingFace() {
        assertEquals(new TfNames.Mapped("bert.encoder.layer.10.attention.self.query.weight", true),
                TfNames.Scheme.BERT.map("module/bert/encoder/layer_10/attention/self/query/kernel"));
        assertEquals(new TfNames.Mapped("bert.embeddings.LayerNorm.weight", false),
                TfNames.Scheme.BERT.map("bert/embeddings/LayerNorm/gamma"));
        assertEquals(new TfNames.Mapped("bert.embeddings.position_embeddings.weight", false),
                TfNames.Scheme.BERT.map("bert/embeddings/position_embeddings"));
        assertEquals(new TfNames.Mapped("cls.predictions.bias", false), TfNames.Scheme.BERT.map("cls/predictions/output_bias"));
        assertEquals(null, TfNames.Scheme.BERT.map("global_step"));
        assertEquals(null, TfNames.Scheme.BERT.map("bert/pooler/dense/kernel/adam_m"));
    }

    @Test
    void electraPreTrainingNamesMapToTheDiscriminatorOrTheGenerator() {
        List<String> checkpoint = List.of("electra/embeddings/word_embeddings", "electra/embeddings_project/kernel",
                "electra/encoder/layer_0/attention/self/query/kernel", "discriminator_predictions/dense/kernel",
                "discriminator_predictions/dense_1/bias", "generator/embeddings_project/bias",
                "generator/encoder/layer_0/output/LayerNorm/gamma", "generator_predictions/dense/kernel",
                "generator_predictions/LayerNorm/beta", "generator_predictions/output_bias", "global_step",
                "electra/encoder/layer_0/output/dense/bias/adam_v");
        TfNames.Scheme discriminator = TfNames.Scheme.of(checkpoint, false, "ckpt");
        assertEquals(TfNames.Model.ELECTRA_DISCRIMINATOR, discriminator.model());
        assertEquals(Map.of("electra/embeddings/word_embeddings", "electra.embeddings.word_embeddings.weight",
                "electra/embeddings_project/kernel", "electra.embeddings_project.weight T",
                "electra/encoder/layer_0/attention/self/query/kernel", "electra.encoder.layer.0.attention.self.query.weight T",
                "discriminator_predictions/dense/kernel", "discriminator_predictions.dense.weight T",
                "discriminator_predictions/dense_1/bias", "discriminator_predictions.dense_prediction.bias"), mapped(discriminator, checkpoint));

        // The generator reads the discriminator's embeddings (ELECTRA ties them by default) through its own projection.
        TfNames.Scheme generator = TfNames.Scheme.of(checkpoint, true, "ckpt");
        assertEquals(Map.of("electra/embeddings/word_embeddings", "electra.embeddings.word_embeddings.weight",
                "generator/embeddings_project/bias", "electra.embeddings_project.bias",
                "generator/encoder/layer_0/output/LayerNorm/gamma", "electra.encoder.layer.0.output.LayerNorm.weight",
                "generator_predictions/dense/kernel", "generator_predictions.dense.weight T",
                "generator_predictions/LayerNorm/beta", "generator_predictions.LayerNorm.bias",
                "generator_predictions/output_bias", "generator_lm_head.bias"), mapped(generator, checkpoint));

        // With untied_generator_embeddings, the generator has its own, and the discriminator's are not its.
        List<String> untied = new ArrayList<>(checkpoint);
        untied.add("generator/embeddings/word_embeddings");
        TfNames.Scheme own = TfNames.Scheme.of(untied, true, "ckpt");
        assertEquals("electra.embeddings.word_embeddings.weight", own.map("generator/embeddings/word_embeddings").name());
        assertEquals(null, own.map("electra/embeddings/word_embeddings"));

        // With untied_generator=false the generator has no encoder of its own: it is the electra/ model with its head.
        TfNames.Scheme shared = TfNames.Scheme.of(List.of("electra/encoder/layer_0/output/dense/bias", "generator_predictions/output_bias"),
                true, "ckpt");
        assertEquals("electra.encoder.layer.0.output.dense.bias", shared.map("electra/encoder/layer_0/output/dense/bias").name());
        assertEquals(null, shared.map("electra/encoder/layer_0/output/dense/temperature"), "only layers' weights");
    }

    /** The names {@code scheme} maps, each to its Hugging Face name (" T" when transposed). */
    private static Map<String, String> mapped(TfNames.Scheme scheme, List<String> names) {
        Map<String, String> mapped = new TreeMap<>();
        names.forEach(n -> Optional.ofNullable(scheme.map(n)).ifPresent(m -> mapped.put(n, m.name() + (m.transpose() ? " T" : ""))));
        return mapped;
    }

    @Test
    void checkpointsThatAreNotWhatIsAskedAreRefused() {
        assertTrue(refusal(() -> TfNames.Scheme.of(List.of("bert/embeddings/word_embeddings", "electra/embeddings/word_embeddings"), false, "x"))
                .contains("has both bert/ and electra/ variables"));
        assertTrue(refusal(() -> TfNames.Scheme.of(List.of("bert/embeddings/word_embeddings"), true, "x"))
                .contains("not an ELECTRA checkpoint"));
        assertTrue(refusal(() -> TfNames.Scheme.of(List.of("electra/encoder/layer_0/output/dense/bias"), true, "x"))
                .contains("(no generator_predictions variables): it holds the discriminator alone"));
    }

    @Test
    void corruptTensorBundlesAreRefused() throws IOException {
        assertTrue(refusal(() -> TensorBundle.parseIndex(new byte[100], "x.index")).contains("no table magic number"));
        assertTrue(refusal(() -> TfImport.convert(dir.resolve("nothing"), dir.resolve("out"), (d, t) -> { }))
                .startsWith("no TensorFlow checkpoint at " + dir.resolve("nothing")));
        Path notAJar = Files.writeString(dir.resolve("notes.txt"), "hello");
        assertTrue(refusal(() -> TfImport.convert(notAJar, dir.resolve("out"), (d, t) -> { }))
                .contains("is neither a TensorFlow checkpoint nor a jar/zip"));
    }
}
