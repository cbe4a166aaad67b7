package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vectorbert.loader.SafetensorsFile;

/** Pooling, normalisation and batching of the embeddings pipeline, against the PyTorch reference where it has one. */
class EmbeddingsTest {
    private static Embeddings embeddings(boolean truncate) {
        return Embeddings.of(RealModel.model(), RealModel.tokenizer(), EmbeddingOptions.defaults().withTruncate(truncate));
    }

    private static Embeddings embeddings(Pooling pooling, boolean normalize) {
        return embeddings(false).with(EmbeddingOptions.defaults().withPooling(pooling).withNormalize(normalize));
    }

    @Test
    void poolingsAgreeWithTheReferenceHiddenStates() throws IOException {
        // Case 1 of the PyTorch fixtures is this sentence.
        String text = "The quick brown fox jumps over the lazy dog.";
        try (SafetensorsFile ref = SafetensorsFile.open(ReferenceTest.resource("bert-base-uncased.safetensors"))) {
            float[] hidden = ref.tensor("case1.last_hidden_state").toFloatArray();
            float[] pooled = ref.tensor("case1.pooler_output").toFloatArray();
            int n = hidden.length / 768;
            float[] mean = new float[768];
            for (int t = 0; t < n; t++) {
                for (int i = 0; i < 768; i++) {
                    mean[i] += hidden[t * 768 + i] / n;
                }
            }
            Embeddings e = embeddings(false);
            assertArrayEquals(java.util.Arrays.copyOf(hidden, 768), embeddings(Pooling.CLS, false).embed(text), 1e-4f);
            assertArrayEquals(mean, embeddings(Pooling.MEAN, false).embed(text), 1e-4f);
            assertArrayEquals(pooled, embeddings(Pooling.POOLER, false).embed(text), 1e-4f);
        }
    }

    @Test
    void normalisedVectorsHaveUnitLengthAndBatchesEqualSingles() {
        Embeddings e = embeddings(false);
        List<String> texts = List.of("short", "a somewhat longer text than the first one", "middle length text");
        List<float[]> batch = embeddings(Pooling.MEAN, true).embed(texts);
        for (int i = 0; i < texts.size(); i++) {
            float[] single = embeddings(Pooling.MEAN, true).embed(texts.get(i));
            assertArrayEquals(single, batch.get(i), 1e-5f, texts.get(i));
            double norm = 0;
            for (float x : single) {
                norm += x * x;
            }
            assertEquals(1.0, norm, 1e-5);
        }
    }

    @Test
    void tokenVectorsAndAttentionsHaveTheirShapes() {
        Embeddings e = embeddings(false);
        Embeddings.Result tv = e.run(List.of("hello world"), null, Embeddings.Include.TOKEN_VECTORS).getFirst();
        assertArrayEquals(new int[] {101, 7592, 2088, 102}, tv.ids());
        assertEquals(4 * 768, tv.tokenVectors().length);
        float[][][][] att = e.run(List.of("hello world"), null, Embeddings.Include.ATTENTIONS).getFirst().attentions();
        assertEquals(12, att.length);
        assertEquals(12, att[0].length);
        assertEquals(4, att[0][0].length);
        double rowSum = 0;
        for (float p : att[3][5][2]) {
            rowSum += p;
        }
        assertEquals(1.0, rowSum, 1e-5);
    }

    @Test
    void overlongTextsAreRefusedUnlessTruncationIsAsked() {
        String tooLong = "word ".repeat(600);
        var refused = assertThrows(EngineException.class, () -> embeddings(false).embed(tooLong));
        assertEquals("the text \"word word word word word word word word word word word word ... (3000 characters)\" is 602 tokens,"
                + " longer than the model's 512; shorten it or turn truncation on",
                refused.getMessage());
        assertEquals(768, embeddings(true).embed(tooLong).length);
    }

    @Test
    void headsAreReportedAsPresentOrNot() {
        BertModel tiny = BertModel.load(ReferenceTest.resource("tiny-pre-ln"));
        assertTrue(tiny.hasPooler());
        assertTrue(!tiny.hasMlmHead());
    }
}
