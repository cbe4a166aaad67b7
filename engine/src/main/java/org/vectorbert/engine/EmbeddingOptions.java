package org.vectorbert.engine;

import java.util.Objects;

/**
 * How {@link Embeddings} turns texts into vectors. A null field means "what the model declares";
 * a plain BERT checkpoint declares [CLS] pooling, no normalisation, and no truncation (texts longer
 * than the model takes are refused).
 *
 * <pre>{@code
 * EmbeddingOptions.defaults().withPooling(Pooling.MEAN).withNormalize(true).withPrecision(Precision.BF16)
 * }</pre>
 *
 * @param precision how the weight matrices are held; takes effect when the model is loaded
 * @param pooling   how token vectors become one vector, or null for the model's
 * @param normalize whether pooled vectors are scaled to unit length, or null for the model's
 * @param truncate  whether texts longer than the model takes are cut (else refused), or null for the model's
 */
public record EmbeddingOptions(Precision precision, Pooling pooling, Boolean normalize, Boolean truncate) {
    public EmbeddingOptions {
        Objects.requireNonNull(precision, "precision");
    }

    /** float32, and everything else as the model declares. */
    public static EmbeddingOptions defaults() {
        return new EmbeddingOptions(Precision.F32, null, null, null);
    }

    public EmbeddingOptions withPrecision(Precision p) {
        return new EmbeddingOptions(p, pooling, normalize, truncate);
    }

    public EmbeddingOptions withPooling(Pooling p) {
        return new EmbeddingOptions(precision, p, normalize, truncate);
    }

    public EmbeddingOptions withNormalize(boolean n) {
        return new EmbeddingOptions(precision, pooling, n, truncate);
    }

    public EmbeddingOptions withTruncate(boolean t) {
        return new EmbeddingOptions(precision, pooling, normalize, t);
    }

    /** These options with the model's declarations where a field is null. */
    EmbeddingOptions resolved() {
        return new EmbeddingOptions(precision, pooling == null ? Pooling.CLS : pooling, normalize != null && normalize,
                truncate != null && truncate);
    }
}
