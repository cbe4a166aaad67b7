package org.vectorbert.loader;

/**
 * BERT's Hugging Face names for the weights looked up by name outside the blocks: the names every
 * family's are found from ({@link Family#spellings}).
 */
public final class WeightNames {
    private WeightNames() {}

    /** The word embeddings, [vocabulary, width]. */
    public static final String WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight";
    /** The MLM head's decoder, often tied to the word embeddings. */
    public static final String MLM_DECODER = "cls.predictions.decoder.weight";
    /** The MLM head's output bias. */
    public static final String MLM_BIAS = "cls.predictions.bias";
}
