/**
 * vectorbert in Spring AI: {@link org.vectorbert.springai.VectorbertEmbeddingModel}, a Spring AI
 * {@code EmbeddingModel} over vectorbert's {@code Embeddings}, and the Spring Boot auto-configuration that
 * makes one from the {@code vectorbert.*} properties.
 */
package org.vectorbert.springai;
