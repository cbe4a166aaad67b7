package org.vectorbert.langchain4j;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.request.EmbeddingInputType;
import dev.langchain4j.model.embedding.request.EmbeddingRequest;
import dev.langchain4j.model.embedding.response.EmbeddingResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.EngineException;

/**
 * Every entry point of langchain4j 1.23's EmbeddingModel (whose defaults call each other) on the real
 * all-MiniLM-L6-v2, each ending with the vectors vectorbert's Embeddings gives for the same texts;
 * INPUT_TYPE's prompts and DIMENSIONS' cut; what is refused, and how.
 */
@Tag("heavy")
class VectorbertEmbeddingModelTest {
    private static final List<String> TEXTS = List.of("A cat sits on the mat.", "The stock market fell sharply on Monday.",
            "Photosynthesis turns light into chemical energy in plants, which is why leaves are green and grow towards the sun.");

    private static VectorbertEmbeddingModel model;
    private static Embeddings direct;

    @TempDir
    static Path temp;

    @BeforeAll
    static void load() {
        model = VectorbertEmbeddingModel.builder().model(TestModels.miniLmJar()).build();
        direct = Embeddings.load(TestModels.miniLmJar());
    }

    private static void assertVectors(List<float[]> expected, List<Embedding> actual, String entryPoint) {
        assertEquals(expected.size(), actual.size(), entryPoint);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i).vector(), entryPoint + ", text " + i);
        }
    }

    private static double norm(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += x * x;
        }
        return Math.sqrt(sum);
    }

    @Test
    void everyEntryPointEndsWithTheEnginesVectors() throws Exception {
        List<float[]> expected = direct.embed(TEXTS);
        List<TextSegment> segments = TEXTS.stream().map(TextSegment::from).toList();
        EmbeddingModel m = model;   // through the interface, as langchain4j's code calls it
        assertVectors(expected.subList(0, 1), List.of(m.embed(TEXTS.get(0)).content()), "embed(String)");
        assertVectors(expected.subList(1, 2), List.of(m.embed(segments.get(1)).content()), "embed(TextSegment)");
        assertVectors(expected, m.embedAll(segments).content(), "embedAll");
        EmbeddingRequest request = EmbeddingRequest.builder().textSegments(segments).build();
        assertVectors(expected, m.embed(request).embeddings(), "embed(EmbeddingRequest)");
        assertVectors(expected, m.doEmbed(request).embeddings(), "doEmbed");
        assertVectors(expected, m.embedAsync(request).get(60, TimeUnit.SECONDS).embeddings(), "embedAsync");
        assertEquals(384, m.dimension());
        assertEquals(TestModels.miniLmJar(), m.modelName());
        EmbeddingResponse response = m.embed(request);
        assertEquals(TestModels.miniLmJar(), response.metadata().modelName());
        int tokens = direct.run(TEXTS, null).stream().mapToInt(r -> r.ids().length).sum();
        assertEquals(tokens, response.metadata().tokenUsage().inputTokenCount());
        assertEquals(tokens, m.embedAll(segments).tokenUsage().inputTokenCount());
    }

    @Test
    void ofWrapsPipelinesTheCallerHolds() {
        VectorbertEmbeddingModel wrapped = VectorbertEmbeddingModel.of(direct);
        assertVectors(direct.embed(TEXTS), wrapped.embedAll(TEXTS.stream().map(TextSegment::from).toList()).content(), "of");
        assertEquals(direct.model().directory().getFileName().toString(), wrapped.modelName());
        assertEquals(384, wrapped.dimension());
    }

    @Test
    void inputTypePutsTheQueryOrDocumentPromptFirst() {
        VectorbertEmbeddingModel e5Style = VectorbertEmbeddingModel.builder().model(TestModels.miniLmJar())
                .queryPrompt("query: ").documentPrompt("passage: ").build();
        String text = TEXTS.get(1);
        float[] asQuery = e5Style.embed(EmbeddingRequest.builder().input(text).inputType(EmbeddingInputType.QUERY).build())
                .embeddings().getFirst().vector();
        float[] asDocument = e5Style.embed(EmbeddingRequest.builder().input(text).inputType(EmbeddingInputType.DOCUMENT).build())
                .embeddings().getFirst().vector();
        assertArrayEquals(direct.with(direct.options().withPrompt("query: ")).embed(text), asQuery);
        assertArrayEquals(direct.with(direct.options().withPrompt("passage: ")).embed(text), asDocument);
        assertArrayEquals(direct.embed(text), e5Style.embed(text).content().vector(), "no input type: no prompt");
        assertFalse(java.util.Arrays.equals(asQuery, asDocument));
        // A model that declares no prompts: the input type changes nothing.
        assertArrayEquals(direct.embed(text), model.embed(EmbeddingRequest.builder().input(text).inputType(EmbeddingInputType.QUERY)
                .build()).embeddings().getFirst().vector());
    }

    @Test
    void inputTypeFindsThePromptsTheModelDeclares() throws Exception {
        Path declared = TestModels.withSentenceTransformersConfig(direct.model().directory(), temp.resolve("prompted"),
                "{\"prompts\": {\"query\": \"Represent this sentence for searching relevant passages: \", \"passage\": \"passage: \"},"
                        + " \"default_prompt_name\": null}");
        Embeddings pipeline = Embeddings.load(declared.toString());
        VectorbertEmbeddingModel prompted = VectorbertEmbeddingModel.of(pipeline);
        String text = TEXTS.getFirst();
        assertArrayEquals(pipeline.with(pipeline.options().withPrompt("Represent this sentence for searching relevant passages: ")).embed(text),
                prompted.embed(EmbeddingRequest.builder().input(text).inputType(EmbeddingInputType.QUERY).build()).embeddings().getFirst().vector());
        // No prompt named "document": sentence-transformers' next name for documents, "passage".
        assertArrayEquals(pipeline.with(pipeline.options().withPrompt("passage: ")).embed(text),
                prompted.embed(EmbeddingRequest.builder().input(text).inputType(EmbeddingInputType.DOCUMENT).build()).embeddings().getFirst().vector());
        assertArrayEquals(pipeline.embed(text), prompted.embed(text).content().vector());
    }

    @Test
    void dimensionsKeepTheFirstComponentsAtUnitLength() {
        String text = TEXTS.get(2);
        EmbeddingResponse cut = model.embed(EmbeddingRequest.builder().input(text).dimensions(128).build());
        float[] v = cut.embeddings().getFirst().vector();
        assertEquals(128, v.length);
        assertEquals(1, norm(v), 1e-5);
        assertArrayEquals(direct.with(direct.options().withDimensions(128)).embed(text), v);
        // The first components' direction is the full vector's.
        float[] full = direct.embed(text);
        for (int i = 0; i < 128; i++) {
            assertEquals(full[i] / norm(java.util.Arrays.copyOf(full, 128)), v[i], 1e-5, "component " + i);
        }
        VectorbertEmbeddingModel short64 = VectorbertEmbeddingModel.builder().model(TestModels.miniLmJar()).dimensions(64).build();
        assertEquals(64, short64.dimension());
        assertEquals(64, short64.embed(text).content().dimension());
        assertEquals(384, short64.embed(EmbeddingRequest.builder().input(text).dimensions(384).build()).embeddings().getFirst().dimension());
        assertEquals(32, model.embed(EmbeddingRequest.builder().input(text).dimensions(32).inputType(EmbeddingInputType.QUERY).build())
                .embeddings().getFirst().dimension());
    }

    @Test
    void wrongDimensionsAreRefusedNamingBothNumbers() {
        for (int wrong : new int[] {0, 385}) {
            var refused = assertThrows(EngineException.class,
                    () -> model.embed(EmbeddingRequest.builder().input("A text.").dimensions(wrong).build()));
            assertEquals("dimensions must be from 1 to the model's 384, was " + wrong, refused.getMessage());
            var atBuild = assertThrows(EngineException.class,
                    () -> VectorbertEmbeddingModel.builder().model(TestModels.miniLmJar()).dimensions(wrong).build());
            assertEquals("dimensions must be from 1 to the model's 384, was " + wrong, atBuild.getMessage());
        }
        var async = assertThrows(ExecutionException.class,
                () -> model.embedAsync(EmbeddingRequest.builder().input("A text.").dimensions(0).build()).get(60, TimeUnit.SECONDS));
        assertInstanceOf(EngineException.class, async.getCause());
    }

    @Test
    void whatIsRefusedAndHow() {
        // langchain4j 1.23's own contract: an empty list gives an empty list (its embedAll default does that before any model).
        assertEquals(List.of(), model.embedAll(List.of()).content());
        // langchain4j refuses a parameter the model does not declare, naming it.
        var modelName = assertThrows(UnsupportedFeatureException.class,
                () -> model.embed(EmbeddingRequest.builder().input("A text.").modelName("other").build()));
        assertTrue(modelName.getMessage().contains("modelName"), modelName.getMessage());
        var noModel = assertThrows(VectorbertLangchain4jException.class, () -> VectorbertEmbeddingModel.builder().build());
        assertEquals("no model was given: builder().model(\"a directory, a jar or a Hugging Face id\")", noModel.getMessage());
        var tooLong = assertThrows(org.vectorbert.engine.TextTooLongException.class, () -> VectorbertEmbeddingModel.of(
                direct.with(EmbeddingOptions.defaults().withTruncate(false))).embed("word ".repeat(600)));
        assertTrue(tooLong.getMessage().contains("tokens"), tooLong.getMessage());
    }
}
