package org.vectorbert.loader;

/**
 * BERT's Hugging Face names for the weights looked up by name outside the blocks: the names every
 * family's are found from ({@link Family#spellings}).
 */
public final class WeightNames {
    private WeightNames() {}

    public static final String WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight";
    public static final String MLM_DECODER = "cls.predictions.decoder.weight";
    public static final String MLM_BIAS = "cls.predictions.bias";
}
