package org.vectorbert.tokenizer;

/**
 * Where a tokenizer's post-processor puts special tokens: how many go before a single text and
 * after it, and for a pair before the first text, between the two and after the second. BERT's
 * {@code [CLS] A [SEP]} / {@code [CLS] A [SEP] B [SEP]} is (1, 1, 1, 1, 1); RoBERTa's
 * {@code <s> A </s></s> B </s>} is (1, 1, 1, 2, 1). A prompt's tokens start at {@link #singleBefore()}.
 *
 * @param singleBefore special tokens before a single text
 * @param singleAfter  special tokens after a single text
 * @param pairBefore   special tokens before the first text of a pair
 * @param pairBetween  special tokens between the two texts of a pair
 * @param pairAfter    special tokens after the second text of a pair
 */
public record Template(int singleBefore, int singleAfter, int pairBefore, int pairBetween, int pairAfter) {
    /**
     * Special tokens added to a single text.
     *
     * @return how many
     */
    public int singleAdded() {
        return singleBefore + singleAfter;
    }

    /**
     * Special tokens added to a pair.
     *
     * @return how many
     */
    public int pairAdded() {
        return pairBefore + pairBetween + pairAfter;
    }
}
