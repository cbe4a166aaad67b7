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
 * The auto-configured EmbeddingModel on EmbeddingGemma (the PyTorch reference fixture in engine's test resources) with its
 * query prompt: mean pooling through both Dense modules, normalised, and with fewer dimensions asked in a request's
 * options, the Matryoshka cut normalised again.
 */
@Tag("heavy")
@SpringBootTest(classes = DecoderEmbedderTest.Application.class)
class DecoderEmbedderTest {
    private static final Path MODEL = Path.of(System.getProperty("user.dir"))
            .resolve("../engine/src/test/resources/architectures/gemma3/embeddinggemma").normalize();

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
    void embeddingGemmaEmbedsAndCutsAsTheReference() throws IOException {
        JsonNode query = new ObjectMapper().readTree(MODEL.resolve("inputs.json").toFile()).get(1);
        assertEquals("query", query.get("prompt_name").asText());
        List<String> texts = new ArrayList<>();
        query.get("texts").forEach(t -> texts.add(t.asText()));
        try (SafetensorsFile expected = SafetensorsFile.open(MODEL.resolve("expected.safetensors"))) {
            LongContextArchitecturesTest.assertVectors(expected.tensor("case1.sentence_embedding").toFloatArray(), model.embed(texts), "full", 1e-4);
            List<float[]> cut = new ArrayList<>();
            model.call(new EmbeddingRequest(texts, EmbeddingOptions.builder().dimensions(16).build())).getResults()
                    .forEach(e -> cut.add(e.getOutput()));
            LongContextArchitecturesTest.assertVectors(expected.tensor("case1.sentence_embedding_16").toFloatArray(), cut, "16 dimensions", 1e-4);
        }
    }
}
