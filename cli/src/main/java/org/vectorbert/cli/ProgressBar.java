package org.vectorbert.cli;

import java.io.PrintWriter;

/**
 * Progress on stderr: a bar redrawn in place on a terminal, a line every 10% otherwise, so logs
 * stay readable. Nothing ever goes to stdout.
 */
final class ProgressBar {
    private final PrintWriter err;
    private final String label;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private int lastShown = -1;

    ProgressBar(PrintWriter err, String label) {
        this.err = err;
        this.label = label;
        this.terminal = System.console() != null && System.console().isTerminal();
    }

    void update(long done, long total) {
        int percent = total <= 0 ? 100 : (int) (100 * done / total);
        if (terminal) {
            if (percent != lastShown) {
                int filled = percent / 4;
                err.printf("\r%s [%s%s] %3d%% %d/%d MB", label, "#".repeat(filled), " ".repeat(25 - filled), percent,
                        done >> 20, total >> 20);
                if (percent == 100) {
                    err.println();
                }
                err.flush();
            }
        } else if (percent / 10 != lastShown / 10 || lastShown < 0) {
            err.printf("%s %d%% (%d/%d MB, %.1f s)%n", label, percent, done >> 20, total >> 20,
                    (System.nanoTime() - startNanos) / 1e9);
            err.flush();
        }
        lastShown = percent;
    }
}
