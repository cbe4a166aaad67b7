package org.vectorbert.server;

import org.vectorbert.common.VectorbertException;

/** The server cannot start or serve as asked (port taken, limits that contradict the model). */
public final class ServerException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    public ServerException(String message, Throwable cause) {
        super(message, cause);
    }

    public ServerException(String message) {
        super(message);
    }
}
