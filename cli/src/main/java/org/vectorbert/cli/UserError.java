package org.vectorbert.cli;

/** Bad usage or bad input: reported as one line on stderr with exit code 2. */
final class UserError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UserError(String message) {
        super(message);
    }
}
