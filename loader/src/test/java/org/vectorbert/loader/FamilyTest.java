package org.vectorbert.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Model families by config.json's model_type: their keys, their switches, and where their weights are named. */
class FamilyTest {
    @TempDir
    Path dir;

    private BertConfig config(String json) throws IOException {
        return BertConfig.load(Files.writeString(dir.resolve("config.json"), json));
    }

    @Test
    void distilBertReadsItsOwnKeys() throws IOException {
        BertConfig c = config("""
                {"model_type": "distilbert", "dim": 64, "n_layers": 3, "n_heads": 4, "hidden_dim": 96, "activation": "gelu",
                 "vocab_size": 100, "max_position_embeddings": 40, "pad_token_id": 0, "sinusoidal_pos_embds": true}""");
        assertEquals(List.of(64, 3, 4, 96, 100, 40, 0), List.of(c.hiddenSize(), c.numHiddenLayers(), c.numAttentionHeads(),
                c.intermediateSize(), c.vocabSize(), c.maxPositionEmbeddings(), c.typeVocabSize()));
        assertFalse(c.hasTokenTypes());
        assertEquals(1e-12, c.layerNormEps());
        assertEquals(40, c.maxTokens());
    }

    @Test
    void robertaPositionsStartAfterThePaddingId() throws IOException {
        BertConfig c = config("{\"model_type\": \"xlm-roberta\", \"max_position_embeddings\": 514, \"hidden_act\": \"gelu_new\"}");
        assertEquals(1, c.padTokenId(), "RobertaConfig's default pad_token_id");
        assertTrue(c.positionsSkipPadding());
        assertEquals(2, c.firstPosition());
        assertEquals(512, c.maxTokens());
        assertEquals("gelu", c.mlmActivation(), "lm_head applies GELU whatever hidden_act says");
    }

    @Test
    void electraReadsItsEmbeddingSize() throws IOException {
        BertConfig c = config("{\"model_type\": \"electra\", \"embedding_size\": 128, \"hidden_size\": 256, \"num_attention_heads\": 4}");
        assertEquals(128, c.embeddingSize());
        assertEquals(256, c.hiddenSize());
        // ELECTRA reads a missing embedding_size as 128: a config written for embeddings as wide as the hidden state
        // (electra-base's 768) must say so, or it reads back as another model.
        BertConfig base = config("{\"model_type\": \"electra\", \"embedding_size\": 768, \"hidden_size\": 768, \"num_attention_heads\": 12}");
        assertEquals(768, base.toJson().get("embedding_size").asInt());
        assertEquals(base, config(base.toJson().toString()));
    }

    @Test
    void anUnknownModelTypeIsRefusedWithTheSupportedOnes() {
        var e = assertThrows(LoaderException.class, () -> config("{\"model_type\": \"gpt2\"}"));
        assertEquals("config.json: model_type 'gpt2' is not supported (supported: bert, distilbert, roberta, xlm-roberta, camembert, "
                + "electra, mpnet)", e.getMessage());
    }

    @Test
    void familiesRenameBertsWeightNames() {
        Family distil = DistilBertFamily.FAMILY;
        assertEquals(List.of("distilbert.transformer.layer.2.attention.q_lin.weight", "transformer.layer.2.attention.q_lin.weight"),
                distil.spellings("bert.encoder.layer.2.attention.self.query.weight"));
        assertEquals("distilbert.transformer.layer.0.sa_layer_norm.bias", distil.rename("bert.encoder.layer.0.attention.output.LayerNorm.bias"));
        assertEquals("distilbert.transformer.layer.0.ffn.lin2.weight", distil.rename("bert.encoder.layer.0.output.dense.weight"));
        assertEquals("distilbert.transformer.layer.0.output_layer_norm.weight", distil.rename("bert.encoder.layer.0.output.LayerNorm.weight"));
        assertEquals("vocab_projector.bias", distil.rename(WeightNames.MLM_BIAS));
        assertEquals(List.of("lm_head.bias", "lm_head.decoder.bias"), RobertaFamily.FAMILY.spellings(WeightNames.MLM_BIAS));
        assertEquals("lm_head.layer_norm.weight", RobertaFamily.FAMILY.rename("cls.predictions.transform.LayerNorm.weight"));
        assertEquals("generator_predictions.LayerNorm.weight", ElectraFamily.FAMILY.rename("cls.predictions.transform.LayerNorm.weight"));
        assertEquals("generator_lm_head.weight", ElectraFamily.FAMILY.rename(WeightNames.MLM_DECODER));
        assertEquals("electra.embeddings_project.weight", ElectraFamily.FAMILY.rename("bert.embeddings_project.weight"));
        assertEquals(List.of("bert.pooler.dense.weight", "pooler.dense.weight"), BertFamily.FAMILY.spellings("bert.pooler.dense.weight"));
    }

    @Test
    void aCheckpointWithTheEncoderUnderTwoPrefixesIsRefused() throws IOException {
        Path model = org.vectorbert.loader.testing.TinyCheckpoints.write(dir.resolve("two"), java.util.Map.of(
                "bert.embeddings.word_embeddings.weight", new long[] {10, 4},
                "embeddings.word_embeddings.weight", new long[] {10, 4}), "");
        var e = assertThrows(LoaderException.class, () -> BertCheckpoint.open(model));
        assertEquals(model + ": the weights hold the encoder twice, with the 'bert.' prefix and without "
                + "(bert.embeddings.word_embeddings.weight and embeddings.word_embeddings.weight): keep one", e.getMessage());
    }
}
