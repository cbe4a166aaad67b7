package org.vectorbert.cli;

import org.vectorbert.common.VectorbertException;

/** Bad usage or bad input the command line itself found: reported as one line on stderr with exit code 2. */
final class UserError extends VectorbertException {
    private static final long serialVersionUID = 1L;

    UserError(String message) {
        super(message);
    }
}
