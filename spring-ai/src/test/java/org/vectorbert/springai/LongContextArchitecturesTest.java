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
import org.springframework.ai.embedding.EmbeddingOptions;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.vectorbert.loader.SafetensorsFile;

/**
 * The auto-configured EmbeddingModel on NomicBERT (nomic-embed-text-v1.5's layout, the PyTorch reference fixture in engine's
 * test resources) with its search_query prompt: the reference's vectors, and with fewer dimensions asked in a request's
 * options, the model card's Matryoshka recipe (layer_norm over the full width, the cut, then normalised).
 */
@Tag("heavy")
@SpringBootTest(classes = LongContextArchitecturesTest.Application.class)
class LongContextArchitecturesTest {
    private static final Path MODEL = Path.of(System.getProperty("user.dir"))
            .resolve("../engine/src/test/resources/architectures/nomicbert/nomicbert-sentence").normalize();

    @Autowired
    private EmbeddingModel model;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {}

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry registry) {
        registry.add("vectorbert.model", MODEL::toString);
        registry.add("vectorbert.prompt-name", () -> "search_query");
    }

    @Test
    void nomicBertEmbedsAndCutsAsTheReference() throws IOException {
        JsonNode query = new ObjectMapper().readTree(MODEL.resolve("inputs.json").toFile()).get(0);
        assertEquals("search_query", query.get("prompt_name").asText());
        List<String> texts = new ArrayList<>();
        query.get("texts").forEach(t -> texts.add(t.asText()));
        try (SafetensorsFile expected = SafetensorsFile.open(MODEL.resolve("expected.safetensors"))) {
            assertVectors(expected.tensor("case0.sentence_embedding").toFloatArray(), model.embed(texts), "full", 1e-5);
            List<float[]> cut = new ArrayList<>();
            model.call(new EmbeddingRequest(texts, EmbeddingOptions.builder().dimensions(16).build())).getResults()
                    .forEach(e -> cut.add(e.getOutput()));
            assertVectors(expected.tensor("case0.matryoshka_16").toFloatArray(), cut, "16 dimensions", 1e-5);
        }
    }

    /** {@code got} against {@code want} ([texts, dim], row-major) within {@code tolerance}. */
    static void assertVectors(float[] want, List<float[]> got, String at, double tolerance) {
        int dim = want.length / got.size();
        for (int s = 0; s < got.size(); s++) {
            assertEquals(dim, got.get(s).length, at);
            for (int i = 0; i < dim; i++) {
                assertEquals(want[s * dim + i], got.get(s)[i], tolerance, at + " text " + s + " [" + i + "]");
            }
        }
    }
}
