package org.vectorbert.tokenizer;

import org.vectorbert.common.VectorbertException;

/** A tokenizer could not be built or could not encode its input; the message says why and is fit to show a user. */
public class TokenizerException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with a message fit to show a user.
     *
     * @param message what went wrong, in one line
     */
    public TokenizerException(String message) {
        super(message);
    }

    /**
     * A failure with a message fit to show a user, and its cause.
     *
     * @param message what went wrong, in one line
     * @param cause   the exception behind it
     */
    public TokenizerException(String message, Throwable cause) {
        super(message, cause);
    }
}
