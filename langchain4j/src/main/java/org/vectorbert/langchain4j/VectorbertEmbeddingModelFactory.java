package org.vectorbert.langchain4j;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.spi.model.embedding.EmbeddingModelFactory;

/**
 * langchain4j's service for the embedding model code leaves unset ({@code EmbeddingStoreIngestor} and
 * {@code EmbeddingStoreContentRetriever} built without one): with this jar on the class path they embed
 * with vectorbert. The model is {@code -Dvectorbert.langchain4j.model}, else the environment's
 * {@code VECTORBERT_LANGCHAIN4J_MODEL}, else {@value #DEFAULT_MODEL}, with its own settings. langchain4j
 * refuses two such services, so this jar and one of langchain4j's in-process model jars do not go together.
 */
public final class VectorbertEmbeddingModelFactory implements EmbeddingModelFactory {
    /** The model used when none is named: the one langchain4j's own in-process default embeds with. */
    public static final String DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2";

    /** Made by langchain4j's {@link java.util.ServiceLoader}. */
    public VectorbertEmbeddingModelFactory() {}

    @Override
    public EmbeddingModel create() {
        String model = System.getProperty("vectorbert.langchain4j.model", System.getenv("VECTORBERT_LANGCHAIN4J_MODEL"));
        return VectorbertEmbeddingModel.builder().model(model == null || model.isBlank() ? DEFAULT_MODEL : model).build();
    }
}
