package org.vectorbert.engine;

import org.vectorbert.common.Excerpt;

/** A text longer than the model takes, when truncation was not asked for. */
public final class TextTooLongException extends EngineException {
    private static final long serialVersionUID = 1L;
    /** The text refused. */
    private final String text;
    /** Its length in tokens. */
    private final int tokens;
    /** The model's maximum. */
    private final int maximum;

    TextTooLongException(String text, int tokens, int maximum, boolean truncatable) {
        this(text, text, tokens, maximum, truncatable);
    }

    /** {@code shown} in the message: the text, or a pair as "text / second text". */
    TextTooLongException(String text, String shown, int tokens, int maximum, boolean truncatable) {
        this("the text \"" + Excerpt.of(shown) + "\" is " + tokens + " tokens, longer than the model's " + maximum
                + (truncatable ? "; shorten it or turn truncation on" : "; shorten it"), text, tokens, maximum);
    }

    private TextTooLongException(String message, String text, int tokens, int maximum) {
        super(message);
        this.text = text;
        this.tokens = tokens;
        this.maximum = maximum;
    }

    /**
     * The same refusal, its message led by where the text came from ("line 7 of texts.txt"), which only the caller knows.
     *
     * @param where where the text came from
     * @return a new exception
     */
    public TextTooLongException at(String where) {
        return new TextTooLongException(where + ": " + getMessage(), text, tokens, maximum);
    }

    /** {@return the text refused, as it was given (of a pair, the first)} */
    public String text() {
        return text;
    }

    /** {@return how many tokens the text is, special tokens included} */
    public int tokens() {
        return tokens;
    }

    /** {@return how many the model takes} */
    public int maximum() {
        return maximum;
    }
}
