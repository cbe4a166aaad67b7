package org.vectorbert.engine;

import org.vectorbert.common.VectorbertException;

/** The engine was asked for something the model or the input cannot give; the message says what, fit for a user. */
public class EngineException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    /**
     * An error whose message is fit to show a user.
     *
     * @param message what happened and what to do
     */
    public EngineException(String message) {
        super(message);
    }
}
