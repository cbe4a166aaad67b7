package org.vectorbert.loader;

import org.vectorbert.common.VectorbertException;

/** A model could not be found, fetched or read; the message says why and is fit to show a user. */
public class LoaderException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with no exception underneath.
     *
     * @param message what happened and what to do, fit to show a person
     */
    public LoaderException(String message) {
        super(message);
    }

    /**
     * A failure caused by another.
     *
     * @param message what happened and what to do, fit to show a person
     * @param cause   the failure underneath
     */
    public LoaderException(String message, Throwable cause) {
        super(message, cause);
    }
}
