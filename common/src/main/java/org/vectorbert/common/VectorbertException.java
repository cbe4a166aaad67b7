package org.vectorbert.common;

/**
 * The root of every failure a user of vectorbert can cause or meet: a model not found or not
 * readable, a tokenizer file that is wrong, a text the model cannot take. The message says what
 * happened and what to do, in words fit to show a person (it never names a command-line flag:
 * the library is used without one). Each module throws its own subclass.
 */
public class VectorbertException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure with no exception underneath.
     *
     * @param message what happened and what to do, fit to show a person
     */
    public VectorbertException(String message) {
        super(message);
    }

    /**
     * A failure caused by another.
     *
     * @param message what happened and what to do, fit to show a person
     * @param cause   the failure underneath
     */
    public VectorbertException(String message, Throwable cause) {
        super(message, cause);
    }
}
