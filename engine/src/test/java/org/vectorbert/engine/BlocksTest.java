package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.testing.TinyCheckpoints;

/** The model's blocks take their weights by the checkpoint's names: what is missing is named, and heads are optional. */
class BlocksTest {
    @TempDir
    Path dir;

    @Test
    void aCheckpointWithoutHeadsOrWithoutPartsOfTheEncoderIsToldApart() throws IOException {
        Path model = TinyCheckpoints.write(dir.resolve("st"), Map.of(
                "embeddings.word_embeddings.weight", new long[] {10, 4},
                "embeddings.LayerNorm.gamma", new long[] {4},
                "encoder.layer.0.output.LayerNorm.beta", new long[] {4}), "");
        try (BertCheckpoint c = BertCheckpoint.open(model)) {
            assertEquals(java.util.Set.of(), BertModel.headsIn(c));
        }
        String encoder = assertThrows(VectorbertException.class, () -> BertModel.load(model)).getMessage();
        assertTrue(encoder.startsWith(model + ": missing weight bert.embeddings.position_embeddings.weight"), encoder);
    }

    @Test
    void aModelWithoutItsMlmHeadSaysWhatIsMissing() {
        Path tiny = ReferenceTest.resource("tiny-pre-ln");
        BertModel model = BertModel.load(tiny);
        assertTrue(model.hasPooler());
        assertFalse(model.hasMlmHead());
        String noHead = assertThrows(EngineException.class, model::requireMlmHead).getMessage();
        assertTrue(noHead.startsWith(tiny + " has no masked-language-model head (missing cls.predictions.transform.dense.weight,"), noHead);
        assertTrue(noHead.endsWith("): it can give embeddings but not fill-mask"), noHead);
    }

    @Tag("heavy")
    @Test
    void theRealModelHasBothHeadsAndATiedDecoder() {
        BertModel model = RealModel.model();
        assertTrue(model.hasPooler());
        assertTrue(model.hasMlmHead());
        try (BertCheckpoint c = BertCheckpoint.open(RealModel.directory())) {
            assertEquals(java.util.Set.of(HeadKind.MASKED_LM, HeadKind.POOLER), BertModel.headsIn(c));
        }
        // The tied decoder shares the word embeddings' panels: the model holds the checkpoint's bytes, not 94 MB more.
        long fileBytes;
        try (BertCheckpoint c = BertCheckpoint.open(RealModel.directory())) {
            fileBytes = c.byteCount();
        }
        assertTrue(model.weightBytes() < fileBytes * 1.01, model.weightBytes() + " bytes held for " + fileBytes + " in the file");
    }
}
