package org.vectorbert.engine;

import java.util.List;
import java.util.Objects;

/**
 * How {@link FillMask} answers.
 *
 * @param precision how the weight matrices are held; takes effect when the model is loaded
 * @param topK      candidates per mask
 * @param targets   words to rank (each must be one token of the vocabulary); empty for the whole vocabulary
 */
public record FillMaskOptions(Precision precision, int topK, List<String> targets) {
    /** Checks the precision and top-k; copies the targets. */
    public FillMaskOptions {
        Objects.requireNonNull(precision, "precision");
        if (topK <= 0) {
            throw new EngineException("top-k must be positive, was " + topK);
        }
        targets = List.copyOf(targets);
    }

    /**
     * float32, the top 5 of the whole vocabulary, as Hugging Face's pipeline.
     *
     * @return the defaults
     */
    public static FillMaskOptions defaults() {
        return new FillMaskOptions(Precision.F32, 5, List.of());
    }

    /**
     * The same options with another precision.
     *
     * @param p F32 or BF16
     * @return new options
     */
    public FillMaskOptions withPrecision(Precision p) {
        return new FillMaskOptions(p, topK, targets);
    }

    /**
     * The same options with another top-k.
     *
     * @param k candidates per mask
     * @return new options
     */
    public FillMaskOptions withTopK(int k) {
        return new FillMaskOptions(precision, k, targets);
    }

    /**
     * The same options with other targets.
     *
     * @param words words to rank; empty for the whole vocabulary
     * @return new options
     */
    public FillMaskOptions withTargets(List<String> words) {
        return new FillMaskOptions(precision, topK, words);
    }
}
