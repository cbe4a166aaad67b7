package org.vectorbert.springai;

import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.model.SpringAIModelProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Pooling;
import org.vectorbert.engine.Precision;

/**
 * A {@link VectorbertEmbeddingModel} from the {@code vectorbert.*} properties ({@link VectorbertProperties}),
 * unless the application defines an {@link EmbeddingModel} of its own, or chooses another provider with
 * Spring AI's {@code spring.ai.model.embedding} (set it to {@code vectorbert}, or leave it unset). The model
 * loads when the context starts, so a wrong path or setting stops the application there, saying which property
 * is wrong, rather than at its first request.
 */
@AutoConfiguration
@ConditionalOnClass({EmbeddingModel.class, Embeddings.class})
@ConditionalOnProperty(name = SpringAIModelProperties.EMBEDDING_MODEL, havingValue = VectorbertEmbeddingAutoConfiguration.PROVIDER,
        matchIfMissing = true)
@EnableConfigurationProperties(VectorbertProperties.class)
public final class VectorbertEmbeddingAutoConfiguration {
    /** The value of {@code spring.ai.model.embedding} that chooses vectorbert. */
    public static final String PROVIDER = "vectorbert";

    /** Made by Spring when the conditions above hold. */
    public VectorbertEmbeddingAutoConfiguration() {}

    /**
     * The embedding model the properties name, loaded now.
     *
     * @param properties the {@code vectorbert.*} properties
     * @return the model
     * @throws IllegalStateException naming the property that is missing or wrong
     */
    @Bean
    @ConditionalOnMissingBean(EmbeddingModel.class)
    public VectorbertEmbeddingModel vectorbertEmbeddingModel(VectorbertProperties properties) {
        String model = properties.model();
        if (model == null || model.isBlank()) {
            throw new IllegalStateException(VectorbertProperties.PREFIX + ".model is not set: name the embedding model, as a"
                    + " directory, a checkpoint or model jar, or a Hugging Face id such as sentence-transformers/all-MiniLM-L6-v2"
                    + " (or set " + SpringAIModelProperties.EMBEDDING_MODEL + " to another provider)");
        }
        EmbeddingOptions options = options(properties);
        Embeddings embeddings;
        try {
            embeddings = Embeddings.load(model, options);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot load " + VectorbertProperties.PREFIX + ".model '" + model + "': " + e.getMessage(), e);
        }
        int dimension = embeddings.dimension();
        Integer dimensions = properties.dimensions();
        if (dimensions != null && (dimensions < 1 || dimensions > dimension)) {
            throw new IllegalStateException(VectorbertProperties.PREFIX + ".dimensions is " + dimensions + ", but " + model + " gives "
                    + dimension + " dimensions: set 1 to " + dimension + " (fewer keeps the first ones, renormalised), or leave it out");
        }
        return new VectorbertEmbeddingModel(embeddings, model, dimensions);
    }

    /** vectorbert's options from the properties, each left null (the model decides) when its property is unset. */
    static EmbeddingOptions options(VectorbertProperties p) {
        EmbeddingOptions o = EmbeddingOptions.defaults();
        try {
            if (p.precision() != null) {
                o = o.withPrecision(Precision.parse(p.precision()));
            }
        } catch (RuntimeException e) {
            throw invalid("precision", e);
        }
        try {
            if (p.pooling() != null && !p.pooling().isEmpty()) {
                o = o.withPooling(p.pooling().stream().map(Pooling::parse).toArray(Pooling[]::new));
            }
        } catch (RuntimeException e) {
            throw invalid("pooling", e);
        }
        if (p.normalize() != null) {
            o = o.withNormalize(p.normalize());
        }
        if (p.truncate() != null) {
            o = o.withTruncate(p.truncate());
        }
        if (p.prompt() != null) {
            o = o.withPrompt(p.prompt());
        }
        if (p.promptName() != null) {
            o = o.withPromptName(p.promptName());
        }
        try {
            if (p.batchTokens() != null) {
                o = o.withBatchTokens(p.batchTokens());
            }
        } catch (RuntimeException e) {
            throw invalid("batch-tokens", e);
        }
        return o;
    }

    private static IllegalStateException invalid(String property, RuntimeException cause) {
        return new IllegalStateException(VectorbertProperties.PREFIX + "." + property + ": " + cause.getMessage(), cause);
    }
}
