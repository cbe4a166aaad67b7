package org.vectorbert.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.scoring.ScoringModel;
import dev.langchain4j.model.scoring.request.ScoringRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.Reranker;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * Every entry point of langchain4j 1.23's ScoringModel on a small random-weight reranker
 * (TinyTaskModels: the numbers mean nothing, the engine's tests hold the head to PyTorch), each
 * giving what vectorbert's Reranker gives; and what is refused.
 */
class VectorbertScoringModelTest {
    private static final String QUERY = "what is the capital of france ?";
    private static final List<String> TEXTS = List.of("paris is the capital of france .", "bananas are yellow .",
            "berlin is the capital of germany .", "john lives in london .");

    @TempDir
    static Path temp;
    private static Path rerankerModel;
    private static Reranker reranker;

    @BeforeAll
    static void write() throws IOException {
        rerankerModel = TinyTaskModels.sequenceClassifier(temp.resolve("reranker"), List.of("LABEL_0"), "");
        reranker = Reranker.load(rerankerModel.toString());
    }

    private static List<Double> expected(boolean raw) {
        float[] s = reranker.scores(QUERY, TEXTS, raw);
        return List.of((double) s[0], (double) s[1], (double) s[2], (double) s[3]);
    }

    @Test
    void everyEntryPointGivesTheRerankersScores() throws Exception {
        ScoringModel scoring = VectorbertScoringModel.builder().model(rerankerModel.toString()).build();
        List<Double> expected = expected(false);
        List<TextSegment> segments = TEXTS.stream().map(TextSegment::from).toList();
        assertEquals(expected, scoring.scoreAll(segments, QUERY).content());
        assertEquals(expected.get(0), scoring.score(TEXTS.get(0), QUERY).content());
        assertEquals(expected.get(2), scoring.score(segments.get(2), QUERY).content());
        assertEquals(expected, scoring.scoreAsync(ScoringRequest.builder().documents(TEXTS).query(QUERY).build())
                .get(60, TimeUnit.SECONDS).scores());
        for (double s : expected) {
            assertTrue(s > 0 && s < 1, "a sigmoid: " + s);
        }
        assertEquals(expected, VectorbertScoringModel.of(reranker).scoreAll(segments, QUERY).content());
    }

    @Test
    void rawScoresAreTheLogits() {
        ScoringModel raw = VectorbertScoringModel.builder().model(rerankerModel.toString()).rawScores(true).build();
        List<Double> logits = raw.scoreAll(TEXTS.stream().map(TextSegment::from).toList(), QUERY).content();
        assertEquals(expected(true), logits);
        List<Double> sigmoid = expected(false);
        for (int i = 0; i < logits.size(); i++) {
            assertEquals(1 / (1 + Math.exp(-logits.get(i))), sigmoid.get(i), 1e-6);
        }
    }

    @Tag("heavy")
    @Test
    void whatIsRefusedAndHow() throws IOException {
        ScoringModel scoring = VectorbertScoringModel.of(reranker);
        var empty = assertThrows(EngineException.class, () -> scoring.scoreAll(List.of(), QUERY));
        assertEquals("there are no texts to rerank", empty.getMessage());
        Path sentiment = TinyTaskModels.sequenceClassifier(temp.resolve("sentiment"), List.of("NEG", "POS"), "");
        var twoLabels = assertThrows(EngineException.class, () -> VectorbertScoringModel.builder().model(sentiment.toString()).build());
        assertEquals(sentiment + " is not a reranker: its classifier has 2 labels [NEG, POS], a reranker one score", twoLabels.getMessage());
        var noHead = assertThrows(RuntimeException.class, () -> VectorbertScoringModel.builder().model(TestModels.miniLmJar()).build());
        assertTrue(noHead instanceof org.vectorbert.common.VectorbertException, noHead.getClass() + ": " + noHead.getMessage());
        assertTrue(noHead.getMessage().endsWith(" has no sequence-classification head (missing classifier.weight, classifier.bias):"
                + " it cannot classify texts or rerank"), noHead.getMessage());
        var noModel = assertThrows(VectorbertLangchain4jException.class, () -> VectorbertScoringModel.builder().build());
        assertEquals("no model was given: builder().model(\"a directory or a Hugging Face id\")", noModel.getMessage());
    }
}
