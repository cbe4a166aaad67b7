package org.vectorbert.tokenizer;

/** Whether and how to pad encodings with the pad token, on the right. */
public enum Padding {
    /** No padding. */
    NONE,
    /** Pad every encoding of a batch to the longest one in it. */
    LONGEST,
    /** Pad every encoding to the maximum length. */
    MAX_LENGTH
}
