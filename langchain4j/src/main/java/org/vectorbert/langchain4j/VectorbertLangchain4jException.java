package org.vectorbert.langchain4j;

import org.vectorbert.common.VectorbertException;

/** A model builder asked for something it cannot give (no model named, say); the message says what. */
public final class VectorbertLangchain4jException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with no exception underneath.
     *
     * @param message what happened and what to do, fit to show a person
     */
    public VectorbertLangchain4jException(String message) {
        super(message);
    }
}
