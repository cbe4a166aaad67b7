package org.vectorbert.loader;

import org.vectorbert.common.VectorbertException;

/** A model could not be found, fetched or read; the message says why and is fit to show a user. */
public class LoaderException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    public LoaderException(String message) {
        super(message);
    }

    public LoaderException(String message, Throwable cause) {
        super(message, cause);
    }
}
