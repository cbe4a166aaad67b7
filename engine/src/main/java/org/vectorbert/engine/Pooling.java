package org.vectorbert.engine;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a text's token vectors become one vector (sentence-transformers' Pooling modes, and BERT's pooler). */
public enum Pooling {
    /** The first token's vector ([CLS]). */
    CLS("cls"),
    /** The per-dimension maximum over the real tokens. */
    MAX("max"),
    /** The mean over the real tokens ([CLS] and [SEP] included, padding not), as sentence-transformers does. */
    MEAN("mean"),
    /** The sum over the real tokens divided by the square root of their number. */
    MEAN_SQRT_LEN("mean_sqrt_len"),
    /** The last real token's vector ([SEP] for BERT). */
    LAST_TOKEN("lasttoken"),
    /** BERT's pooler: tanh(W·h[CLS] + b); needs a checkpoint with {@code bert.pooler}. */
    POOLER("pooler");

    private final String label;

    Pooling(String label) {
        this.label = label;
    }

    /**
     * The mode by its name ({@code cls}, {@code mean}, {@code max}, {@code mean_sqrt_len}, {@code lasttoken}, {@code
     * pooler}).
     *
     * @param name the mode's name
     * @return the mode
     */
    public static Pooling parse(String name) {
        for (Pooling p : values()) {
            if (p.label.equals(name.toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new EngineException("unknown pooling '" + name + "' (expected " + names() + ")");
    }

    /** {@return the name sentence-transformers' configs and vectorbert's options use} */
    public String label() {
        return label;
    }

    /** {@return every mode's name, comma-separated} */
    public static String names() {
        return Arrays.stream(values()).map(Pooling::label).collect(Collectors.joining(", "));
    }
}
