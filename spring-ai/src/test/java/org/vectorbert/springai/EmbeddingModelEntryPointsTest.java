package org.vectorbert.springai;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.content.Media;
import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingOptions;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;
import org.springframework.ai.embedding.TokenCountBatchingStrategy;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.MimeTypeUtils;
import org.vectorbert.engine.Embeddings;

/**
 * Every entry point of Spring AI 2.0.1's EmbeddingModel, on the bean a Spring Boot application gets. Most are
 * the interface's default methods, which call one another and end in {@code call}: embed(String) calls
 * embed(List), which calls call; embedForResponse and embed(List of Document, options, batching) call call;
 * the default dimensions() would embed a test string. Each must answer, none loop or throw
 * UnsupportedOperationException, and all give the library's own vectors.
 */
@Tag("heavy")
@SpringBootTest(classes = EmbeddingModelEntryPointsTest.Application.class)
class EmbeddingModelEntryPointsTest {
    private static final List<String> TEXTS = List.of("The quick brown fox jumps over the lazy dog.",
            "Spring AI calls the embedding model for every document it stores.", "short", "",
            "word ".repeat(400).trim());   // longer than the model takes: cut, as sentence-transformers cuts it

    private static Embeddings direct;

    @Autowired
    private EmbeddingModel model;

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {}

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry registry) {
        registry.add("vectorbert.model", () -> MiniLmJar.path().toString());
    }

    @BeforeAll
    static void loadTheModelDirectly() {
        direct = Embeddings.load(MiniLmJar.path().toString());
    }

    @Test
    void callEmbedsEveryTextInOrderWithItsIndexTheModelAndTheTokenCount() {
        EmbeddingResponse response = model.call(new EmbeddingRequest(TEXTS, null));
        List<Embeddings.Result> expected = direct.run(TEXTS, null);
        assertEquals(TEXTS.size(), response.getResults().size());
        int tokens = 0;
        for (int i = 0; i < TEXTS.size(); i++) {
            Embedding e = response.getResults().get(i);
            assertEquals(i, e.getIndex());
            assertArrayEquals(expected.get(i).pooled(), e.getOutput(), "text " + i);
            tokens += expected.get(i).ids().length;
        }
        assertEquals(direct.maxTokens(), expected.getLast().ids().length, "the long text was cut to the model's length");
        assertEquals(MiniLmJar.path().toString(), response.getMetadata().getModel());
        Usage usage = response.getMetadata().getUsage();
        assertEquals(tokens, usage.getPromptTokens());
        assertEquals(0, usage.getCompletionTokens());
        assertEquals(tokens, usage.getTotalTokens());
        assertArrayEquals(expected.getFirst().pooled(), response.getResult().getOutput());
    }

    @Test
    void callWithOptionsCutsToTheirDimensionsAndAcceptsTheLoadedModelsName() {
        EmbeddingOptions options = EmbeddingOptions.builder().model(MiniLmJar.path().toString()).dimensions(32).build();
        EmbeddingResponse response = model.call(new EmbeddingRequest(TEXTS.subList(0, 2), options));
        for (int i = 0; i < 2; i++) {
            assertClose(MatryoshkaTruncation.truncate(direct.embed(TEXTS.get(i)), 32), response.getResults().get(i).getOutput(), "text " + i);
        }
        EmbeddingResponse empty = model.call(new EmbeddingRequest(List.of(), EmbeddingOptions.builder().build()));
        assertTrue(empty.getResults().isEmpty());
        assertEquals(0, empty.getMetadata().getUsage().getPromptTokens());
    }

    @Test
    void callRefusesAnotherModelBadDimensionsAndNullTexts() {
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> model.call(
                new EmbeddingRequest(TEXTS, EmbeddingOptions.builder().model("text-embedding-3-small").build())));
        assertEquals("the request asks for model 'text-embedding-3-small', but this EmbeddingModel has '" + MiniLmJar.path()
                + "' loaded; vectorbert serves one model per bean: leave the model out of the options, or define a bean for"
                + " 'text-embedding-3-small'", other.getMessage());
        for (int bad : new int[] {0, -1, 385}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> model.call(
                    new EmbeddingRequest(TEXTS, EmbeddingOptions.builder().dimensions(bad).build())));
            assertEquals("the request's number of dimensions is " + bad + ", but the model's vectors have 384 dimensions: ask"
                    + " for 1 to 384 (fewer keeps the first components, renormalised)", e.getMessage());
        }
        List<String> withNull = Arrays.asList("fine", null);
        IllegalArgumentException nullText = assertThrows(IllegalArgumentException.class,
                () -> model.call(new EmbeddingRequest(withNull, null)));
        assertEquals("text 1 of 2 in the embedding request is null", nullText.getMessage());
    }

    @Test
    void embedOneTextAndAList() {
        assertArrayEquals(direct.embed(TEXTS.getFirst()), model.embed(TEXTS.getFirst()));
        List<float[]> all = model.embed(TEXTS);
        List<float[]> expected = direct.embed(TEXTS);
        for (int i = 0; i < TEXTS.size(); i++) {
            assertArrayEquals(expected.get(i), all.get(i), "text " + i);
        }
        EmbeddingResponse response = model.embedForResponse(TEXTS.subList(1, 3));
        assertArrayEquals(expected.get(2), response.getResults().get(1).getOutput());
    }

    @Test
    void embedADocumentEmbedsItsTextAndRefusesOneWithout() {
        Document document = new Document("A document about foxes and dogs.", Map.of("source", "test"));
        assertEquals(document.getText(), model.getEmbeddingContent(document));
        assertArrayEquals(direct.embed(document.getText()), model.embed(document));
        Document image = new Document(new Media(MimeTypeUtils.IMAGE_PNG, new ByteArrayResource(new byte[] {1, 2, 3})), Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> model.embed(image));
        assertEquals("document " + image.getId() + " has no text (its media is image/png): vectorbert embeds text only", e.getMessage());
    }

    @Test
    void embedDocumentsInBatchesKeepsTheirOrderAndTheOptions() {
        List<Document> documents = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            documents.add(new Document("Paragraph " + i + ": " + "text ".repeat(i * 7)));
        }
        // 1,000 tokens a batch: several calls, whose results must come back in the documents' order.
        TokenCountBatchingStrategy batching = new TokenCountBatchingStrategy(com.knuddels.jtokkit.api.EncodingType.CL100K_BASE,
                1000, 0.1);
        assertTrue(batching.batch(documents).size() > 3);
        List<float[]> vectors = model.embed(documents, EmbeddingOptions.builder().dimensions(100).build(), batching);
        assertEquals(documents.size(), vectors.size());
        for (int i = 0; i < documents.size(); i++) {
            assertClose(MatryoshkaTruncation.truncate(direct.embed(documents.get(i).getText()), 100), vectors.get(i), "document " + i);
        }
        List<float[]> unset = model.embed(documents.subList(0, 3), null, new TokenCountBatchingStrategy());
        assertArrayEquals(direct.embed(documents.get(2).getText()), unset.get(2));
    }

    @Test
    void dimensionsIsTheLengthOfTheVectors() {
        assertEquals(384, model.dimensions());
        assertEquals(384, model.embed("x").length);
    }

    /** The plain cut of the full vector, renormalised, against the engine's cut: the same numbers to float rounding. */
    private static void assertClose(float[] want, float[] got, String at) {
        assertEquals(want.length, got.length, at);
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], got[i], 1e-6, at + " [" + i + "]");
        }
    }
}
