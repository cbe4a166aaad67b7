package org.vectorbert.engine;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How a text's token vectors become one vector. */
public enum Pooling {
    /** The first token's vector ([CLS]). */
    CLS,
    /** The mean over the real tokens ([CLS] and [SEP] included, padding not), as sentence-transformers does. */
    MEAN,
    /** BERT's pooler: tanh(W·h[CLS] + b); needs a checkpoint with {@code bert.pooler}. */
    POOLER;

    /** The mode by its lower-case name ({@code cls}, {@code mean}, {@code pooler}). */
    public static Pooling parse(String name) {
        for (Pooling p : values()) {
            if (p.label().equals(name.toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new EngineException("unknown pooling '" + name + "' (expected " + names() + ")");
    }

    /** The lower-case name. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Every mode's name, comma-separated. */
    static String names() {
        return Arrays.stream(values()).map(Pooling::label).collect(Collectors.joining(", "));
    }
}
