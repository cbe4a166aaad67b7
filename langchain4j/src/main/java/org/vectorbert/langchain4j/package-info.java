/**
 * vectorbert for langchain4j: {@link org.vectorbert.langchain4j.VectorbertEmbeddingModel} (an
 * {@code EmbeddingModel}, also found through langchain4j's {@code EmbeddingModelFactory} service) and
 * {@link org.vectorbert.langchain4j.VectorbertScoringModel} (a {@code ScoringModel}), built against
 * langchain4j-core 1.23.0.
 */
package org.vectorbert.langchain4j;
