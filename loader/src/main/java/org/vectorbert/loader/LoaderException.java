package org.vectorbert.loader;

/** A model could not be found, fetched or read; the message says why and is fit to show a user. */
public class LoaderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LoaderException(String message) {
        super(message);
    }

    public LoaderException(String message, Throwable cause) {
        super(message, cause);
    }
}
