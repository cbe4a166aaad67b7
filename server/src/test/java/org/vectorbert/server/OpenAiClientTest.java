package org.vectorbert.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.openai.OpenAiEmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.Embeddings;

/** A real OpenAI client, langchain4j's OpenAiEmbeddingModel, pointed at the server's /v1 base URL with an API key. */
class OpenAiClientTest {
    @Test
    void langchain4jsOpenAiEmbeddingModelGetsTheLibrarysVectors() {
        Embeddings embeddings = Embeddings.load(RealModels.bertBaseUncased().toString());
        try (EmbeddingServer server = EmbeddingServer.start(ServerOptions.defaults().withPort(0).withApiKey("sk-local"))) {
            server.ready(Models.of("bert-base-uncased", embeddings));
            OpenAiEmbeddingModel client = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey("sk-local")
                    .modelName("bert-base-uncased").maxRetries(0).build();
            List<String> texts = List.of("The quick brown fox jumps over the lazy dog.", "Hello, world!");
            Response<List<Embedding>> answer = client.embedAll(texts.stream().map(TextSegment::from).toList());
            List<float[]> expected = embeddings.with(embeddings.options().withNormalize(true)).embed(texts);
            assertEquals(2, answer.content().size());
            for (int i = 0; i < texts.size(); i++) {
                assertArrayEquals(expected.get(i), answer.content().get(i).vector(), texts.get(i));
            }
            assertEquals(texts.stream().mapToInt(t -> embeddings.tokenizer().encode(t).length()).sum(), answer.tokenUsage().inputTokenCount());
            assertEquals(768, client.dimension());

            // The client's dimensions parameter: the first 256 components, normalised after the cut.
            OpenAiEmbeddingModel shorter = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey("sk-local")
                    .modelName("bert-base-uncased").dimensions(256).maxRetries(0).build();
            assertArrayEquals(embeddings.with(embeddings.options().withNormalize(true).withDimensions(256)).embed(texts.getFirst()),
                    shorter.embed(texts.getFirst()).content().vector());

            OpenAiEmbeddingModel wrongKey = OpenAiEmbeddingModel.builder().baseUrl(server.uri() + "v1").apiKey("sk-other")
                    .modelName("bert-base-uncased").maxRetries(0).build();
            RuntimeException refused = assertThrows(RuntimeException.class, () -> wrongKey.embed("Hello"));
            assertTrue(refused.getMessage().contains("API key"), refused.getMessage());
        }
    }
}
