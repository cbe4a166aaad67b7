package org.vectorbert.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.vectorbert.loader.SafetensorsFile;

/**
 * The auto-configured EmbeddingModel on a ModernBERT embedder (nomic-ai/modernbert-embed-base's shape, the PyTorch reference
 * fixture in engine's test resources) with its query prompt named in the application's properties: the reference's vectors.
 */
@Tag("heavy")
@SpringBootTest(classes = ArchitecturesTest.Application.class)
class ArchitecturesTest {
    private static final Path MODEL = Path.of(System.getProperty("user.dir"))
            .resolve("../engine/src/test/resources/architectures/modernbert/modernbert-sentence-mean").normalize();

    @Autowired
    private EmbeddingModel model;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {}

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry registry) {
        registry.add("vectorbert.model", MODEL::toString);
        registry.add("vectorbert.prompt-name", () -> "query");
    }

    @Test
    void modernBertEmbedsAsTheReference() throws IOException {
        JsonNode query = new ObjectMapper().readTree(MODEL.resolve("inputs.json").toFile()).get(0);
        assertEquals("query", query.get("prompt_name").asText());
        List<String> texts = new ArrayList<>();
        query.get("texts").forEach(t -> texts.add(t.asText()));
        List<float[]> got = model.embed(texts);
        try (SafetensorsFile expected = SafetensorsFile.open(MODEL.resolve("expected.safetensors"))) {
            float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
            int dim = want.length / texts.size();
            assertEquals(dim, model.dimensions());
            for (int s = 0; s < texts.size(); s++) {
                for (int i = 0; i < dim; i++) {
                    assertEquals(want[s * dim + i], got.get(s)[i], 1e-5, "text " + s + " [" + i + "]");
                }
            }
        }
    }
}
