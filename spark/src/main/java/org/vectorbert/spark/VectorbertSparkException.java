package org.vectorbert.spark;

import org.vectorbert.common.VectorbertException;

/** A bad parameter or input column, or a model an executor cannot load; the message names which. */
public final class VectorbertSparkException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    public VectorbertSparkException(String message) {
        super(message);
    }

    public VectorbertSparkException(String message, Throwable cause) {
        super(message, cause);
    }
}
