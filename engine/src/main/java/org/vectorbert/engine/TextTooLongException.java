package org.vectorbert.engine;

import org.vectorbert.common.Excerpt;

/** A text longer than the model takes, when truncation was not asked for. */
public final class TextTooLongException extends EngineException {
    private static final long serialVersionUID = 1L;
    private final int tokens;
    private final int maximum;

    TextTooLongException(String text, int tokens, int maximum, boolean truncatable) {
        super("the text \"" + Excerpt.of(text) + "\" is " + tokens + " tokens, longer than the model's " + maximum
                + (truncatable ? "; shorten it or turn truncation on" : "; shorten it"));
        this.tokens = tokens;
        this.maximum = maximum;
    }

    /** How many tokens the text is, special tokens included. */
    public int tokens() {
        return tokens;
    }

    /** How many the model takes. */
    public int maximum() {
        return maximum;
    }
}
