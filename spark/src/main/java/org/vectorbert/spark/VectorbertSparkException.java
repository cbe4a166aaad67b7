package org.vectorbert.spark;

import org.vectorbert.common.VectorbertException;

/** A bad parameter or input column, or a model an executor cannot load; the message names which. */
public final class VectorbertSparkException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with no exception underneath.
     *
     * @param message what happened and what to do, fit to show a person
     */
    public VectorbertSparkException(String message) {
        super(message);
    }

    /**
     * A failure caused by another.
     *
     * @param message what happened and what to do, fit to show a person
     * @param cause   the failure underneath
     */
    public VectorbertSparkException(String message, Throwable cause) {
        super(message, cause);
    }
}
