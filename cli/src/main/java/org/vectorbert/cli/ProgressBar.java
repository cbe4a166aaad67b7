package org.vectorbert.cli;

import java.io.PrintWriter;
import org.vectorbert.loader.ModelResolver;

/**
 * Progress of model downloads and conversions on stderr: a bar redrawn in place on a terminal, a
 * line every 10% otherwise, so logs stay readable. Nothing ever goes to stdout.
 */
final class ProgressBar implements ModelResolver.Listener {
    private final PrintWriter err;
    private final boolean terminal;
    private String task;
    private long startNanos;
    private int lastShown;

    ProgressBar(PrintWriter err) {
        this.err = err;
        this.terminal = stderrIsTerminal();
    }

    /**
     * Whether stderr is a terminal. Java cannot ask about stderr alone, so the launcher tells
     * ({@code -Dvectorbert.stderr.tty}); without it, whether the console is one.
     */
    static boolean stderrIsTerminal() {
        String told = System.getProperty("vectorbert.stderr.tty");
        if (told != null) {
            return Boolean.parseBoolean(told);
        }
        return System.console() != null && System.console().isTerminal();
    }

    @Override
    public void log(String message) {
        err.println(message);
        err.flush();
    }

    @Override
    public void progress(String task, long done, long total) {
        if (!task.equals(this.task)) {
            this.task = task;
            startNanos = System.nanoTime();
            lastShown = -1;
        }
        int percent = total <= 0 ? 0 : (int) (100 * done / total);
        if (percent == lastShown) {
            return;
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double mbPerSecond = seconds > 0 ? (done >> 20) / seconds : 0;
        if (terminal) {
            int filled = percent / 4;
            err.printf("\r%s [%s%s] %3d%% %d/%d MB %.0f MB/s ", task, "#".repeat(filled), " ".repeat(25 - filled), percent,
                    done >> 20, total >> 20, mbPerSecond);
            if (percent == 100) {
                err.println();
            }
            err.flush();
        } else if (percent / 10 != lastShown / 10 || lastShown < 0) {
            err.printf("%s %d%% (%d/%d MB, %.1f s)%n", task, percent, done >> 20, total >> 20, seconds);
            err.flush();
        }
        lastShown = percent;
    }
}
