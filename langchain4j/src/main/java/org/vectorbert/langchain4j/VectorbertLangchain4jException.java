package org.vectorbert.langchain4j;

import org.vectorbert.common.VectorbertException;

/** A model builder asked for something it cannot give (no model named, say); the message says what. */
public final class VectorbertLangchain4jException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    public VectorbertLangchain4jException(String message) {
        super(message);
    }
}
