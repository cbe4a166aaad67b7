package org.vectorbert.loader;

import java.util.List;

/**
 * What every architecture's configuration tells the tasks above the encoder: its sizes, its positions and its
 * classes. Each architecture reads config.json into a record of its own (BERT's is {@link BertConfig}) that
 * implements this; what only one architecture needs stays in its record.
 */
public interface ModelConfig {
    /**
     * The length the long-context encoders (rotary or ALiBi positions, which have no table to run out of) take at least,
     * whatever their max_position_embeddings: what they are published for.
     */
    int LONG_CONTEXT = 8192;

    /** The most layers a config may say: a guard against a number that would allocate per layer before any weight is read. */
    int MAX_LAYERS = 1000;

    /**
     * Refuses a number of layers that is not from 1 to {@link #MAX_LAYERS}.
     *
     * @param source names the file in messages
     * @param key    the key that gave it
     * @param layers the number
     * @throws LoaderException naming the key
     */
    static void checkLayers(String source, String key, int layers) {
        if (layers <= 0 || layers > MAX_LAYERS) {
            throw new LoaderException(source + ": " + key + " must be from 1 to " + MAX_LAYERS + ", was " + layers);
        }
    }

    /**
     * Refuses grouped-query heads vectorbert cannot run: query heads not a multiple of the key/value heads, an odd
     * head_dim (rotary positions turn pairs of columns), more than 65,536 columns of heads, more than 2^20 positions.
     *
     * @param source    names the file in messages
     * @param heads     num_attention_heads
     * @param kvHeads   num_key_value_heads
     * @param headDim   head_dim
     * @param positions max_position_embeddings
     * @throws LoaderException naming the key that is wrong
     */
    static void checkGroupedHeads(String source, int heads, int kvHeads, int headDim, int positions) {
        if (heads % kvHeads != 0) {
            throw new LoaderException(source + ": num_attention_heads (" + heads + ") must be a multiple of num_key_value_heads ("
                    + kvHeads + ")");
        }
        if (headDim % 2 != 0 || (long) headDim * heads > 1 << 16) {
            throw new LoaderException(source + ": head_dim must be even (rotary positions turn pairs of columns) and head_dim"
                    + " x num_attention_heads at most 65536, was " + headDim + " x " + heads);
        }
        if (positions > 1 << 20) {
            throw new LoaderException(source + ": max_position_embeddings " + positions + " is larger than " + (1 << 20)
                    + ", more than vectorbert runs");
        }
    }

    /** {@return config.json's {@code model_type}} */
    String modelType();

    /** {@return config.json's {@code architectures}: the transformers classes the checkpoint was saved from} */
    List<String> architectures();

    /** {@return rows of the word embeddings ({@code vocab_size}): token ids run from 0 to one less} */
    int vocabSize();

    /** {@return the width of the hidden state ({@code hidden_size})} */
    int hiddenSize();

    /** {@return the number of encoder layers ({@code num_hidden_layers})} */
    int numHiddenLayers();

    /** {@return attention heads per layer ({@code num_attention_heads})} */
    int numAttentionHeads();

    /** {@return the width of one attention head: hidden_size / num_attention_heads} */
    default int headSize() {
        return hiddenSize() / numAttentionHeads();
    }

    /** {@return the longest sequence the model takes, special tokens included} */
    int maxTokens();

    /** {@return rows of the token type embeddings, 0 for a model without token types} */
    int typeVocabSize();

    /** {@return whether each position sees only those before it (a decoder's attention): pooled by its last token, not its first} */
    default boolean causal() {
        return false;
    }

    /** {@return whether the model has token type (segment) embeddings} */
    default boolean hasTokenTypes() {
        return typeVocabSize() > 0;
    }
}
