package org.vectorbert.engine;

/** A text longer than the model takes, when truncation was not asked for. */
public final class TextTooLongException extends EngineException {
    private static final long serialVersionUID = 1L;
    private final int tokens;
    private final int maximum;

    TextTooLongException(String text, int tokens, int maximum) {
        super("the text \"" + excerpt(text) + "\" is " + tokens + " tokens, longer than the model's " + maximum
                + "; shorten it or turn truncation on");
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

    /** The first 40 characters, for a message. */
    static String excerpt(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }
}
