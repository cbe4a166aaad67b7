package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Tag;
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

    @Tag("heavy")
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

    @Tag("heavy")
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

    @Tag("heavy")
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

    @Tag("heavy")
    @Test
    void overlongTextsAreRefusedUnlessTruncationIsAsked() {
        String tooLong = "word ".repeat(600);
        var refused = assertThrows(EngineException.class, () -> embeddings(false).embed(tooLong));
        assertEquals("the text \"word word word word word word word word word word word word ... (3000 characters)\" is 602 tokens,"
                + " longer than the model's 512; shorten it or turn truncation on",
                refused.getMessage());
        assertEquals(768, embeddings(true).embed(tooLong).length);
    }

    @Tag("heavy")
    @Test
    void textsPreparedByDifferentPipelinesShareAPassAndGetWhatTheirOwnWouldGive() {
        // How the server batches many clients together: normalised or not, cut or not, in one forward pass.
        Embeddings plain = embeddings(Pooling.MEAN, false);
        Embeddings unit = plain.with(plain.options().withNormalize(true));
        Embeddings cut = plain.with(plain.options().withTruncate(true));
        String tooLong = "word ".repeat(600);
        List<Embeddings.Prepared> batch = new java.util.ArrayList<>();
        batch.addAll(plain.prepare(List.of("short"), null, TruncationSide.RIGHT));
        batch.addAll(unit.prepare(List.of("a somewhat longer text than the first one"), null, TruncationSide.RIGHT));
        batch.addAll(cut.prepare(List.of(tooLong), null, TruncationSide.RIGHT));
        List<Embeddings.Result> shared = plain.forward(batch);
        assertArrayEquals(plain.embed("short"), shared.get(0).pooled());
        assertArrayEquals(unit.embed("a somewhat longer text than the first one"), shared.get(1).pooled());
        assertArrayEquals(cut.embed(tooLong), shared.get(2).pooled());
        assertTrue(shared.get(2).truncated());
        assertEquals(512, shared.get(2).batchLength());
    }

    @Tag("heavy")
    @Test
    void textsCutFromTheLeftKeepTheirEnd() {
        Embeddings cut = embeddings(true);
        String text = "first ".repeat(300) + "last ".repeat(300);
        Embeddings.Prepared left = cut.prepare(List.of(text), null, TruncationSide.LEFT).getFirst();
        Embeddings.Prepared right = cut.prepare(List.of(text), null, TruncationSide.RIGHT).getFirst();
        int first = RealModel.tokenizer().tokenId("first");
        int last = RealModel.tokenizer().tokenId("last");
        assertEquals(512, left.length());
        // 600 words, 510 places: the left cut keeps 210 "first" then all 300 "last", the right cut the other way round.
        assertArrayEquals(new int[] {101, first, last, 102}, new int[] {left.ids()[0], left.ids()[1], left.ids()[510], left.ids()[511]});
        assertEquals(210, java.util.Arrays.stream(left.ids()).filter(id -> id == first).count());
        assertEquals(210, java.util.Arrays.stream(right.ids()).filter(id -> id == last).count());
        assertThrows(EngineException.class, () -> cut.prepare(List.of("a"), List.of("b"), TruncationSide.LEFT));
        assertThrows(TextTooLongException.class, () -> embeddings(false).prepare(List.of(text), null, TruncationSide.LEFT));
    }

    @Test
    void headsAreReportedAsPresentOrNot() {
        BertModel tiny = BertModel.load(ReferenceTest.resource("tiny-pre-ln"));
        assertTrue(tiny.hasPooler());
        assertTrue(!tiny.hasMlmHead());
    }
}
