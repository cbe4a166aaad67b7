package org.vectorbert.engine;

/** Which end of a text too long for the model is cut (Hugging Face's {@code truncation_side}). */
public enum TruncationSide {
    /** Keep the beginning: the tokens past the limit go (the default everywhere). */
    RIGHT,
    /** Keep the end: the tokens after [CLS] go until the text fits. */
    LEFT
}
