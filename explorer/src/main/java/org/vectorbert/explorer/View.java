package org.vectorbert.explorer;

import java.util.Locale;
import org.vectorbert.engine.EngineException;

/**
 * Which of bertviz's views a page opens on. Every page has all three, but one made for the head or
 * model view alone holds no queries and keys, so its neuron view is empty.
 */
public enum View {
    /** Tokens in two columns joined by lines weighted by attention. */
    HEAD,
    /** A grid of every chosen layer and head. */
    MODEL,
    /** One head's queries, keys, their products, scores and softmax. */
    NEURON,
    /** The head view, with the model and neuron views a tab away. */
    ALL;

    /**
     * The view a name spells.
     *
     * @param name head, model, neuron or all, in any case
     * @return the view
     * @throws EngineException for any other name
     */
    public static View parse(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new EngineException("unknown view '" + name + "' (expected head, model, neuron or all)");
        }
    }

    String id() {
        return this == ALL ? "head" : name().toLowerCase(Locale.ROOT);
    }
}
