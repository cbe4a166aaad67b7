package org.vectorbert.springai;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Pooling;

/** The auto-configuration in real Spring contexts, over the real all-MiniLM-L6-v2. */
@Tag("heavy")
class VectorbertEmbeddingAutoConfigurationTest {
    private static final List<String> TEXTS = List.of("A cat sits on the mat.", "Stocks fell sharply on Monday.",
            "Le chat est assis sur le tapis.", "");

    private static Embeddings direct;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(VectorbertEmbeddingAutoConfiguration.class));

    @BeforeAll
    static void loadTheModelDirectly() {
        direct = Embeddings.load(MiniLmJar.path().toString());
    }

    @Test
    void theModelPropertyMakesAnEmbeddingModelWhoseVectorsAreTheLibrarys() {
        runner.withPropertyValues(MiniLmJar.modelProperty()).run(context -> {
            assertFalse(context.getStartupFailure() != null, () -> "failed: " + context.getStartupFailure());
            EmbeddingModel model = context.getBean(EmbeddingModel.class);
            VectorbertEmbeddingModel vectorbert = assertInstanceOf(VectorbertEmbeddingModel.class, model);
            assertEquals(MiniLmJar.path().toString(), vectorbert.modelName());
            assertEquals(MiniLmJar.DIMENSION, model.dimensions());
            List<float[]> expected = direct.embed(TEXTS);
            List<float[]> actual = model.embed(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                assertArrayEquals(expected.get(i), actual.get(i), "text " + i);
            }
        });
    }

    @Test
    void poolingNormalizeAndPromptPropertiesReachTheEngine() {
        runner.withPropertyValues(MiniLmJar.modelProperty(), "vectorbert.pooling=cls,max", "vectorbert.normalize=false",
                "vectorbert.prompt=query:", "vectorbert.batch-tokens=64", "vectorbert.truncate=true").run(context -> {
            VectorbertEmbeddingModel model = context.getBean(VectorbertEmbeddingModel.class);
            EmbeddingOptions in = model.embeddings().options();
            assertEquals(List.of(Pooling.CLS, Pooling.MAX), in.pooling());
            assertEquals(false, in.normalize());
            assertEquals("query:", in.prompt());
            assertEquals(64, in.batchTokens());
            assertEquals(2 * MiniLmJar.DIMENSION, model.dimensions());
            Embeddings same = direct.with(EmbeddingOptions.defaults().withPooling(Pooling.CLS, Pooling.MAX).withNormalize(false)
                    .withPrompt("query:").withBatchTokens(64).withTruncate(true));
            assertArrayEquals(same.embed(TEXTS.getFirst()), model.embed(TEXTS.getFirst()));
        });
    }

    @Test
    void dimensionsCutEveryVectorToItsFirstComponentsAtUnitLength() {
        runner.withPropertyValues(MiniLmJar.modelProperty(), "vectorbert.dimensions=128").run(context -> {
            EmbeddingModel model = context.getBean(EmbeddingModel.class);
            assertEquals(128, model.dimensions());
            float[] full = direct.embed(TEXTS.get(1));
            float[] cut = model.embed(TEXTS.get(1));
            assertEquals(128, cut.length);
            double norm = 0;
            double scale = 0;
            for (int i = 0; i < 128; i++) {
                norm += cut[i] * cut[i];
                scale += full[i] * full[i];
            }
            assertEquals(1, norm, 1e-5);
            scale = 1 / Math.sqrt(scale);
            for (int i = 0; i < 128; i++) {
                assertEquals(full[i] * scale, cut[i], 1e-6, "component " + i);
            }
        });
    }

    @Test
    void theUsersOwnEmbeddingModelWinsAndNoModelIsLoaded() {
        // No vectorbert.model at all: were the auto-configuration to make its bean, the context would fail.
        runner.withUserConfiguration(OwnModel.class).run(context -> {
            assertFalse(context.getStartupFailure() != null, () -> "failed: " + context.getStartupFailure());
            assertEquals(1, context.getBeansOfType(EmbeddingModel.class).size());
            assertSame(OwnModel.MODEL, context.getBean(EmbeddingModel.class));
            assertEquals(64, context.getBean(EmbeddingModel.class).dimensions());
        });
    }

    @Test
    void anotherProviderChosenInSpringAiPropertyLeavesVectorbertOut() {
        runner.withPropertyValues("spring.ai.model.embedding=openai").run(context -> {
            assertFalse(context.getStartupFailure() != null, () -> "failed: " + context.getStartupFailure());
            assertTrue(context.getBeansOfType(EmbeddingModel.class).isEmpty());
        });
        runner.withPropertyValues("spring.ai.model.embedding=vectorbert", MiniLmJar.modelProperty())
                .run(context -> assertEquals(1, context.getBeansOfType(VectorbertEmbeddingModel.class).size()));
    }

    @Test
    void aMissingModelFailsTheContextNamingTheProperty() {
        failsWith("vectorbert.model is not set: name the embedding model, as a directory, a checkpoint or model jar, or a Hugging"
                + " Face id such as sentence-transformers/all-MiniLM-L6-v2 (or set spring.ai.model.embedding to another provider)");
    }

    @Test
    void aModelPathThatDoesNotExistFailsTheContextNamingIt() {
        Path nowhere = Path.of("target", "no-such-model-dir").toAbsolutePath();
        String message = failsWith(null, "vectorbert.model=" + nowhere);
        assertTrue(message.startsWith("cannot load vectorbert.model '" + nowhere + "': model '" + nowhere + "' not found: no directory "
                + nowhere + ";"), message);
    }

    @Test
    void dimensionsOfZeroOrBeyondTheModelFailTheContextNamingBoth() {
        failsWith("vectorbert.dimensions is 0, but " + MiniLmJar.path() + " gives 384 dimensions: set 1 to 384 (fewer keeps the"
                + " first ones, renormalised), or leave it out", MiniLmJar.modelProperty(), "vectorbert.dimensions=0");
        failsWith("vectorbert.dimensions is 385, but " + MiniLmJar.path() + " gives 384 dimensions: set 1 to 384 (fewer keeps the"
                + " first ones, renormalised), or leave it out", MiniLmJar.modelProperty(), "vectorbert.dimensions=385");
    }

    @Test
    void anUnknownPoolingOrPrecisionFailsTheContextNamingTheProperty() {
        String pooling = failsWith(null, MiniLmJar.modelProperty(), "vectorbert.pooling=average");
        assertTrue(pooling.startsWith("vectorbert.pooling: unknown pooling 'average' (expected cls, "), pooling);
        failsWith("vectorbert.precision: unknown dtype 'f16': use f32 or bf16", MiniLmJar.modelProperty(), "vectorbert.precision=f16");
        String prompt = failsWith(null, MiniLmJar.modelProperty(), "vectorbert.prompt-name=query");
        assertTrue(prompt.contains("the model has no prompt named 'query'"), prompt);
    }

    /**
     * Runs a context with {@code properties}, which must fail: returns the message of the adapter's own exception in
     * the failure's causes (which Spring Boot prints at start-up), after checking it equals {@code expected} unless null.
     */
    private String failsWith(String expected, String... properties) {
        String[] message = new String[1];
        runner.withPropertyValues(properties).run(context -> {
            Throwable failure = context.getStartupFailure();
            assertNotNull(failure, "the context started");
            Throwable own = failure;
            while (own != null && !(own instanceof IllegalStateException && own.getStackTrace()[0].getClassName()
                    .startsWith(VectorbertEmbeddingAutoConfiguration.class.getName()))) {
                own = own.getCause();
            }
            assertNotNull(own, () -> "no failure of the auto-configuration's own in " + failure);
            if (expected != null) {
                assertEquals(expected, own.getMessage());
            }
            assertTrue(failure.getMessage().contains(own.getMessage()), failure.getMessage());
            message[0] = own.getMessage();
        });
        return message[0];
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnModel {
        static final VectorbertEmbeddingModel MODEL = new VectorbertEmbeddingModel(direct, "mine", 64);

        @Bean
        EmbeddingModel myEmbeddingModel() {
            return MODEL;
        }
    }
}
