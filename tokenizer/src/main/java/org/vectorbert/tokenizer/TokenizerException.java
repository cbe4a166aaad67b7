package org.vectorbert.tokenizer;

import org.vectorbert.common.VectorbertException;

/** A tokenizer could not be built or could not encode its input; the message says why and is fit to show a user. */
public class TokenizerException extends VectorbertException {
    private static final long serialVersionUID = 1L;

    public TokenizerException(String message) {
        super(message);
    }

    public TokenizerException(String message, Throwable cause) {
        super(message, cause);
    }
}
