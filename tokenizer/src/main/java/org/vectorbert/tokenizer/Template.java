package org.vectorbert.tokenizer;

/**
 * Where a tokenizer's post-processor puts special tokens: how many go before a single text and
 * after it, and for a pair before the first text, between the two and after the second. BERT's
 * {@code [CLS] A [SEP]} / {@code [CLS] A [SEP] B [SEP]} is (1, 1, 1, 1, 1); RoBERTa's
 * {@code <s> A </s></s> B </s>} is (1, 1, 1, 2, 1). A prompt's tokens start at {@link #singleBefore()}.
 */
public record Template(int singleBefore, int singleAfter, int pairBefore, int pairBetween, int pairAfter) {
    /** Special tokens added to a single text. */
    public int singleAdded() {
        return singleBefore + singleAfter;
    }

    /** Special tokens added to a pair. */
    public int pairAdded() {
        return pairBefore + pairBetween + pairAfter;
    }
}
