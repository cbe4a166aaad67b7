package org.vectorbert.server;

import org.vectorbert.common.VectorbertException;

/** The server cannot start or serve as asked (port taken, limits that contradict the model). */
public final class ServerException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure caused by another.
     *
     * @param message what happened and what to do, fit to show a person
     * @param cause   the failure underneath
     */
    public ServerException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * A failure with no exception underneath.
     *
     * @param message what happened and what to do, fit to show a person
     */
    public ServerException(String message) {
        super(message);
    }
}
