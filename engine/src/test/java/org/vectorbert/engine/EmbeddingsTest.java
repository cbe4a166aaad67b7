package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.BertTokenizer;

/** Pooling, normalisation and batching of the embeddings pipeline, against the PyTorch reference where it has one. */
class EmbeddingsTest {
    private static Embeddings embeddings(boolean truncate) {
        return new Embeddings(RealModel.model(), BertTokenizer.fromDirectory(RealModel.directory()), truncate);
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
            assertArrayEquals(java.util.Arrays.copyOf(hidden, 768), e.embed(text, Embeddings.Pooling.CLS, false), 1e-4f);
            assertArrayEquals(mean, e.embed(text, Embeddings.Pooling.MEAN, false), 1e-4f);
            assertArrayEquals(pooled, e.embed(text, Embeddings.Pooling.POOLER, false), 1e-4f);
        }
    }

    @Test
    void normalisedVectorsHaveUnitLengthAndBatchesEqualSingles() {
        Embeddings e = embeddings(false);
        List<String> texts = List.of("short", "a somewhat longer text than the first one", "middle length text");
        List<float[]> batch = e.embedBatch(texts, null, Embeddings.Pooling.MEAN, true);
        for (int i = 0; i < texts.size(); i++) {
            float[] single = e.embed(texts.get(i), Embeddings.Pooling.MEAN, true);
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
        Embeddings.TokenVectors tv = e.tokenVectors(List.of("hello world"), null).getFirst();
        assertArrayEquals(new int[] {101, 7592, 2088, 102}, tv.ids());
        assertEquals(4 * 768, tv.vectors().length);
        float[][][][] att = e.attentions("hello world", null);
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
        var refused = assertThrows(EngineException.class, () -> embeddings(false).embed(tooLong, Embeddings.Pooling.CLS, false));
        assertEquals("the text \"word word word word word word word word ...\" is 602 tokens, longer than the model's 512; shorten it or let vectorbert truncate it (--truncate)",
                refused.getMessage());
        assertEquals(768, embeddings(true).embed(tooLong, Embeddings.Pooling.CLS, false).length);
    }

    @Test
    void headsAreReportedAsPresentOrNot() {
        try (BertModel tiny = BertModel.load(ReferenceTest.resource("tiny-pre-ln"))) {
            assertTrue(tiny.hasPooler());
            assertTrue(!tiny.hasMlmHead());
        }
    }
}
