package org.vectorbert.loader;

/** The two failures a download tells apart from the others: the hub not reached at all, and a file it would not show. */
final class HubFailures {
    private HubFailures() {}

    /** The hub could not be reached at all. */
    static final class Unreachable extends LoaderException {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(message);
        }
    }

    /** The hub would not show a file without (another) token. */
    static final class Refused extends LoaderException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }
}
