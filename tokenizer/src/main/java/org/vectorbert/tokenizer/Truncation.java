package org.vectorbert.tokenizer;

/** How to shorten an input that is longer than the maximum length (Hugging Face's truncation strategies). */
public enum Truncation {
    /** Never truncate. */
    NONE,
    /** Take tokens from the longer of the two texts until both fit (for one text: from its end). */
    LONGEST_FIRST,
    /** Take tokens from the first text only. */
    ONLY_FIRST,
    /** Take tokens from the second text only; an error for a single text. */
    ONLY_SECOND;

    /**
     * Parses Hugging Face's spelling ({@code longest_first}, {@code only_first}, ...), case-insensitively.
     *
     * @param name the strategy's name; {@code do_not_truncate} and {@code false} mean {@link #NONE}
     * @return the strategy
     * @throws TokenizerException for any other name
     */
    public static Truncation parse(String name) {
        for (Truncation t : values()) {
            if (t.name().equalsIgnoreCase(name.replace('-', '_'))) {
                return t;
            }
        }
        if ("do_not_truncate".equalsIgnoreCase(name) || "false".equalsIgnoreCase(name)) {
            return NONE;
        }
        throw new TokenizerException("unknown truncation strategy '" + name
                + "' (expected longest_first, only_first, only_second or none)");
    }
}
