package org.vectorbert.engine;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.vectorbert.loader.SentenceTransformersConfig;

/**
 * How {@link Embeddings} turns texts into vectors. A null field means "what the model declares":
 * a sentence-transformers model directory declares its pooling, normalisation, maximum length
 * (texts are cut to it) and default prompt; a plain BERT checkpoint declares [CLS] pooling, no
 * normalisation, and no truncation (texts longer than the model takes are refused).
 *
 * <pre>{@code
 * EmbeddingOptions.defaults().withPooling(Pooling.MEAN).withNormalize(true).withPromptName("query")
 * }</pre>
 *
 * @param precision   how the weight matrices are held; takes effect when the model is loaded
 * @param pooling     how token vectors become one vector (several are concatenated, in the given order), or null
 * @param normalize   whether vectors are scaled to unit length, or null
 * @param truncate    whether texts longer than the model takes are cut (else refused), or null
 * @param prompt      text put before every input (e5's "query: "), or null
 * @param promptName  a prompt the model's config_sentence_transformers.json names, used when {@code prompt} is null, or null
 * @param batchTokens how many positions (padding included) a forward pass may hold; texts are grouped by length to fill it
 * @param dimensions  the pooled vector cut to its first this many components (Matryoshka truncation, normalised after
 *                    the cut when {@code normalize} holds, as TEI's {@code dimensions} does), or null for all of them
 */
public record EmbeddingOptions(Precision precision, List<Pooling> pooling, Boolean normalize, Boolean truncate, String prompt,
                               String promptName, int batchTokens, Integer dimensions) {
    /**
     * The default token budget of a forward pass: enough rows that a batch reads each weight once for
     * many of them. 1,024 rather than 4,096: the same speed or better on a real corpus, less padding,
     * and a quarter of the forward pass's buffers.
     */
    public static final int BATCH_TOKENS = 1024;

    /**
     * Every field but {@code dimensions}, which is left to the model (all of them).
     *
     * @param precision   how the weight matrices are held
     * @param pooling     pooling modes, or null
     * @param normalize   whether vectors are scaled to unit length, or null
     * @param truncate    whether long texts are cut, or null
     * @param prompt      text put before every input, or null
     * @param promptName  a prompt the model names, or null
     * @param batchTokens positions a forward pass may hold
     */
    public EmbeddingOptions(Precision precision, List<Pooling> pooling, Boolean normalize, Boolean truncate, String prompt,
                            String promptName, int batchTokens) {
        this(precision, pooling, normalize, truncate, prompt, promptName, batchTokens, null);
    }

    /** Checks the precision, the pooling modes and the token budget. */
    public EmbeddingOptions {
        Objects.requireNonNull(precision, "precision");
        pooling = pooling == null ? null : List.copyOf(pooling);
        if (pooling != null && pooling.isEmpty()) {
            throw new EngineException("pooling needs at least one mode");
        }
        if (batchTokens <= 0) {
            throw new EngineException("the token budget of a batch must be positive, was " + batchTokens);
        }
    }

    /**
     * float32, and everything else as the model declares.
     *
     * @return the defaults
     */
    public static EmbeddingOptions defaults() {
        return new EmbeddingOptions(Precision.F32, null, null, null, null, null, BATCH_TOKENS, null);
    }

    /**
     * The same options with another precision.
     *
     * @param p F32 or BF16
     * @return new options
     */
    public EmbeddingOptions withPrecision(Precision p) {
        return new EmbeddingOptions(p, pooling, normalize, truncate, prompt, promptName, batchTokens, dimensions);
    }

    /**
     * Pool with these modes, concatenated in this order (one mode gives a vector of the model's hidden size).
     *
     * @param modes one mode or more
     * @return new options
     */
    public EmbeddingOptions withPooling(Pooling... modes) {
        return new EmbeddingOptions(precision, List.of(modes), normalize, truncate, prompt, promptName, batchTokens, dimensions);
    }

    /**
     * The same options, saying whether vectors are scaled to unit length.
     *
     * @param n whether to normalise
     * @return new options
     */
    public EmbeddingOptions withNormalize(boolean n) {
        return new EmbeddingOptions(precision, pooling, n, truncate, prompt, promptName, batchTokens, dimensions);
    }

    /**
     * The same options, saying whether texts longer than the model takes are cut (else refused).
     *
     * @param t whether to cut
     * @return new options
     */
    public EmbeddingOptions withTruncate(boolean t) {
        return new EmbeddingOptions(precision, pooling, normalize, t, prompt, promptName, batchTokens, dimensions);
    }

    /**
     * Put {@code text} before every input, as sentence-transformers' {@code prompt=} does.
     *
     * @param text the prompt's text
     * @return new options
     */
    public EmbeddingOptions withPrompt(String text) {
        return new EmbeddingOptions(precision, pooling, normalize, truncate, text, promptName, batchTokens, dimensions);
    }

    /**
     * Put the prompt the model names {@code name} before every input, as sentence-transformers' {@code prompt_name=} does.
     *
     * @param name the prompt's name
     * @return new options
     */
    public EmbeddingOptions withPromptName(String name) {
        return new EmbeddingOptions(precision, pooling, normalize, truncate, prompt, name, batchTokens, dimensions);
    }

    /**
     * Keep the first {@code n} components of each vector (a Matryoshka model's shorter embedding), normalised after the
     * cut when the vectors are normalised; {@link Embeddings} refuses 0 or more than the model's dimension.
     *
     * @param n components kept
     * @return new options
     */
    public EmbeddingOptions withDimensions(int n) {
        return new EmbeddingOptions(precision, pooling, normalize, truncate, prompt, promptName, batchTokens, n);
    }

    /**
     * The same options with another token budget per forward pass.
     *
     * @param tokens positions, padding included
     * @return new options
     */
    public EmbeddingOptions withBatchTokens(int tokens) {
        return new EmbeddingOptions(precision, pooling, normalize, truncate, prompt, promptName, tokens, dimensions);
    }

    /** These options, with what the model declares where they say nothing ({@code fallback}: the pooling without a declaration). */
    EmbeddingOptions resolved(Optional<SentenceTransformersConfig> declared, Precision precision, Pooling fallback) {
        EmbeddingOptions asked = this;
        List<Pooling> pooling = asked.pooling() != null ? asked.pooling()
                : declared.filter(d -> !d.poolingModes().isEmpty())
                        .map(d -> d.poolingModes().stream().map(Pooling::parse).toList()).orElse(List.of(fallback));
        boolean normalize = asked.normalize() != null ? asked.normalize() : declared.map(SentenceTransformersConfig::normalize).orElse(false);
        // sentence-transformers cuts texts to max_seq_length; a plain checkpoint refuses them unless asked.
        boolean truncate = asked.truncate() != null ? asked.truncate() : declared.isPresent();
        String prompt = asked.prompt();
        if (prompt == null && asked.promptName() != null) {
            prompt = declared.map(d -> d.prompts().get(asked.promptName())).orElseThrow(() -> new EngineException(
                    "the model has no prompt named '" + asked.promptName() + "' (it has "
                            + declared.map(d -> d.prompts().keySet().toString()).orElse("no prompts") + ")"));
        }
        if (prompt == null) {
            prompt = declared.filter(d -> d.defaultPromptName() != null).map(d -> d.prompts().get(d.defaultPromptName())).orElse("");
        }
        return new EmbeddingOptions(precision, pooling, normalize, truncate, prompt, null, asked.batchTokens(), asked.dimensions());
    }
}
