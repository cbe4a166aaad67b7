package org.vectorbert.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.scoring.ScoringModel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vectorbert.loader.SafetensorsFile;

/**
 * langchain4j's EmbeddingModel and ScoringModel on MPNet, ModernBERT, NomicBERT, GTE and JinaBERT (the PyTorch reference fixtures in
 * engine's test resources): sentence embeddings with a named prompt, and ModernBERT's and GTE's cross-encoders' scores, as the
 * reference computed them.
 */
class ArchitecturesTest {
    private static final Path ARCHITECTURES = Path.of(System.getProperty("user.dir"))
            .resolve("../engine/src/test/resources/architectures").normalize();
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void embeddingsAreTheReferences() throws IOException {
        for (String fixture : new String[] {"modernbert/modernbert-sentence-mean", "mpnet/mpnet-sentence-mean", "nomicbert/nomicbert-sentence",
            "gte/gte-base-en", "jinabert/jinabert-sentence-mean"}) {
            Path dir = ARCHITECTURES.resolve(fixture);
            JsonNode first = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
            VectorbertEmbeddingModel.Builder builder = VectorbertEmbeddingModel.builder().model(dir.toString());
            if (first.has("prompt_name")) {
                builder.promptName(first.get("prompt_name").asText());
            }
            EmbeddingModel model = builder.build();
            List<TextSegment> segments = new ArrayList<>();
            first.get("texts").forEach(t -> segments.add(TextSegment.from(t.asText())));
            List<Embedding> got = model.embedAll(segments).content();
            try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
                float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
                int dim = want.length / segments.size();
                assertEquals(dim, model.dimension());
                for (int s = 0; s < segments.size(); s++) {
                    float[] vector = got.get(s).vector();
                    for (int i = 0; i < dim; i++) {
                        assertEquals(want[s * dim + i], vector[i], 1e-5, fixture + " text " + s + " [" + i + "]");
                    }
                }
            }
        }
    }

    @Test
    void aModernBertCrossEncoderScoresAsTheReference() throws IOException {
        Path dir = ARCHITECTURES.resolve("modernbert/modernbert-rerank");
        JsonNode pairs = JSON.readTree(dir.resolve("inputs.json").toFile()).get(1).get("texts");
        ScoringModel scoring = VectorbertScoringModel.builder().model(dir.toString()).build();
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case1.logits").toFloatArray();
            for (int s = 0; s < pairs.size(); s++) {
                double score = scoring.score(pairs.get(s).get(1).asText(), pairs.get(s).get(0).asText()).content();
                assertEquals(1 / (1 + Math.exp(-logits[s])), score, 1e-5, "pair " + s);
            }
        }
    }

    @Test
    void aGteRerankerScoresAsTheReference() throws IOException {
        Path dir = ARCHITECTURES.resolve("gte/gte-multilingual-reranker");
        JsonNode c = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
        ScoringModel scoring = VectorbertScoringModel.builder().model(dir.toString()).build();
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case0.logits").toFloatArray();
            for (int s = 0; s < c.get("texts").size(); s++) {
                double score = scoring.score(c.get("pairs").get(s).asText(), c.get("texts").get(s).asText()).content();
                assertEquals(1 / (1 + Math.exp(-logits[s])), score, 1e-5, "pair " + s);
            }
        }
    }
    /** Qwen3-Embedding (last token) and EmbeddingGemma (its query prompt, mean, both Dense modules) through langchain4j's EmbeddingModel. */
    @Test
    void decoderEmbeddersAreTheReferences() throws IOException {
        for (String[] fixture : new String[][] {{"qwen3/qwen3-embedding", "1"}, {"gemma3/embeddinggemma", "1"}}) {
            Path dir = ARCHITECTURES.resolve(fixture[0]);
            int k = Integer.parseInt(fixture[1]);
            JsonNode c = JSON.readTree(dir.resolve("inputs.json").toFile()).get(k);
            VectorbertEmbeddingModel.Builder builder = VectorbertEmbeddingModel.builder().model(dir.toString());
            if (c.has("prompt_name")) {
                builder.promptName(c.get("prompt_name").asText());
            }
            EmbeddingModel model = builder.build();
            List<TextSegment> segments = new ArrayList<>();
            c.get("texts").forEach(t -> segments.add(TextSegment.from(t.asText())));
            List<Embedding> got = model.embedAll(segments).content();
            try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
                float[] want = expected.tensor("case" + k + ".sentence_embedding").toFloatArray();
                int dim = want.length / segments.size();
                assertEquals(dim, model.dimension());
                for (int s = 0; s < segments.size(); s++) {
                    for (int i = 0; i < dim; i++) {
                        assertEquals(want[s * dim + i], got.get(s).vector()[i], 1e-4, fixture[0] + " text " + s + " [" + i + "]");
                    }
                }
            }
        }
    }

    /** Qwen3-Reranker through langchain4j's ScoringModel: the model card's yes/no probability. */
    @Test
    void qwen3RerankerScoresAsTheReference() throws IOException {
        Path dir = ARCHITECTURES.resolve("qwen3/qwen3-reranker");
        JsonNode pairs = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0).get("pairs");
        ScoringModel scoring = VectorbertScoringModel.builder().model(dir.toString()).build();
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] score = expected.tensor("case0.score").toFloatArray();
            for (int s = 0; s < pairs.size(); s++) {
                double got = scoring.score(pairs.get(s).get(1).asText(), pairs.get(s).get(0).asText()).content();
                assertEquals(score[s], got, 1e-4, "pair " + s);
            }
        }
    }
}
