package org.vectorbert.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.ElectraReleases;
import org.vectorbert.convert.testing.TfBundles;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.LoaderException;

/**
 * An ELECTRA pre-training checkpoint shaped as Google's are ({@link ElectraReleases}), with no config beside it, as
 * ELECTRA's release has none: the sizes of each model come off its weights, and the imported directory loads. The
 * values are random; what they compute is checked on the family fixtures (the engine's TfElectraImportTest).
 */
class TfElectraSizesTest {
    @TempDir
    static Path work;

    static Path release;

    @BeforeAll
    static void writeRelease() {
        release = ElectraReleases.write(work.resolve("electra_small"));
    }

    @Test
    void theDiscriminatorsSizesComeOffItsWeights() {
        Path out = work.resolve("discriminator");
        BertConfig config = TfImport.convert(release, out, (d, t) -> { });
        assertEquals(new BertConfig(50, 128, 2, 2, 512, "gelu", 1e-12, 24, 2, 0, "absolute", "electra",
                List.of("ElectraForPreTraining"), false, false).withFamilySwitches(32, false, "gelu"), config);
        try (BertCheckpoint written = BertCheckpoint.open(out)) {
            assertEquals(config, written.config(), "config.json reads back as written");
            assertTrue(written.tensors().containsKey("discriminator_predictions.dense_prediction.weight"));
            assertEquals(List.of(1L, 128L), java.util.Arrays.stream(written.tensors().get("discriminator_predictions.dense_prediction.weight").shape())
                    .boxed().toList());
        }
    }

    @Test
    void theGeneratorIsNarrowerWithOneHead() {
        Path out = work.resolve("generator");
        BertConfig config = TfImport.convert(release, out, true, (d, t) -> { });
        assertEquals(new BertConfig(50, 48, 1, 1, 192, "gelu", 1e-12, 24, 2, 0, "absolute", "electra",
                List.of("ElectraForMaskedLM"), false, false).withFamilySwitches(32, false, "gelu"), config);
        try (BertCheckpoint written = BertCheckpoint.open(out)) {
            assertEquals(config, written.config(), "config.json reads back as written");
            assertEquals(List.of(48L, 32L), java.util.Arrays.stream(written.tensors().get("electra.embeddings_project.weight").shape())
                    .boxed().toList(), "the generator's own projection, not the discriminator's");
            assertTrue(written.tensors().containsKey("generator_lm_head.bias"));
            assertTrue(written.tensors().keySet().stream().noneMatch(n -> n.startsWith("discriminator")));
        }
    }

    @Test
    void aConfigBesideDescribesOneModelAndTheOtherIsRefused() throws IOException {
        Path withConfig = copy("with-discriminator-config");
        Files.writeString(withConfig.resolve("config.json"), """
                {"model_type": "electra", "vocab_size": 50, "embedding_size": 32, "hidden_size": 128, "num_hidden_layers": 2,
                 "num_attention_heads": 2, "intermediate_size": 512, "max_position_embeddings": 24}""");
        assertEquals(128, TfImport.convert(withConfig, work.resolve("with-config-disc"), (d, t) -> { }).hiddenSize());
        String message = assertThrows(LoaderException.class,
                () -> TfImport.convert(withConfig, work.resolve("with-config-gen"), true, (d, t) -> { })).getMessage();
        assertTrue(message.endsWith("the config beside the checkpoint says hidden_size 128, but the generator's weights have 48 "
                + "(an ELECTRA checkpoint holds two models; a config describes one)"), message);
    }

    @Test
    void aDirectoryOfSeveralCheckpointsNeedsItsCheckpointFileOrAPrefix() throws IOException {
        Path several = copy("several");
        for (String f : List.of("index", "data-00000-of-00001")) {
            Files.copy(release.resolve("electra_small." + f), several.resolve("model.ckpt-5." + f));
        }
        String message = assertThrows(LoaderException.class, () -> TfImport.convert(several, work.resolve("several-out"), (d, t) -> { }))
                .getMessage();
        assertEquals(several + " holds 2 checkpoints (electra_small.index, model.ckpt-5.index) and no checkpoint file naming one "
                + "of them: pass the one to convert as PATH/PREFIX", message);
        assertEquals(128, TfImport.convert(several.resolve("model.ckpt-5"), work.resolve("several-prefix"), (d, t) -> { }).hiddenSize());
    }

    @Test
    void aSizeVariableThatIsNotAMatrixIsRefused() {
        Path odd = work.resolve("odd");
        TfBundles.write(odd.resolve("model"), Map.of(
                "electra/embeddings/word_embeddings", new TfBundles.Variable(new long[] {50}, new float[50]),
                "electra/embeddings/position_embeddings", new TfBundles.Variable(new long[] {2, 2}, new float[4]),
                "electra/embeddings/token_type_embeddings", new TfBundles.Variable(new long[] {2, 2}, new float[4]),
                "electra/encoder/layer_0/attention/self/query/kernel", new TfBundles.Variable(new long[] {2, 2}, new float[4]),
                "electra/encoder/layer_0/intermediate/dense/kernel", new TfBundles.Variable(new long[] {2, 8}, new float[16])));
        String message = assertThrows(LoaderException.class, () -> TfImport.convert(odd.resolve("model"), work.resolve("odd-out"), (d, t) -> { }))
                .getMessage();
        assertTrue(message.endsWith("variable electra/embeddings/word_embeddings has shape [50], not a matrix"), message);
    }

    /** The release's checkpoint files in a directory of their own. */
    private static Path copy(String name) throws IOException {
        Path dir = Files.createDirectories(work.resolve(name));
        for (String f : List.of("electra_small.index", "electra_small.data-00000-of-00001")) {
            Files.copy(release.resolve(f), dir.resolve(f));
        }
        return dir;
    }

    @Test
    void aConfigOfAnotherModelTypeIsRefused() throws IOException {
        Path withBertConfig = copy("with-bert-config");
        Files.writeString(withBertConfig.resolve("bert_config.json"), """
                {"hidden_size": 128, "intermediate_size": 512, "max_position_embeddings": 24, "num_attention_heads": 2,
                 "num_hidden_layers": 2, "type_vocab_size": 2, "vocab_size": 50}""");
        String message = assertThrows(LoaderException.class, () -> TfImport.convert(withBertConfig, work.resolve("refused"), (d, t) -> { }))
                .getMessage();
        assertTrue(message.endsWith("the config beside the checkpoint says model_type bert, but the checkpoint's variables are ELECTRA's "
                + "(electra/...)"), message);
    }
}
