package org.vectorbert.cli;

import java.io.PrintWriter;

/**
 * Progress of a run over many texts, on stderr only: on a terminal a line redrawn a few times a
 * second with texts, tokens per second and, when the input's size is known, a bar, the percentage
 * and the time left; at the end, terminal or not, one summary line. Runs over arguments stay silent:
 * their output is the answer. A run stopped with Ctrl-C clears its line, so the prompt starts clean.
 *
 * <p>The time left is the tokens left (the bytes left at the tokens per byte read so far) at the
 * recent rate, not the whole run's, since later batches can run slower than the first.
 */
final class RunProgress {
    private static final long REDRAW_NANOS = 250_000_000L;
    private static final int BAR = 24;

    private final PrintWriter err;
    private final String verb;
    private final boolean enabled;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private long lastDrawNanos;
    private long texts;
    private long tokens;
    private long truncated;
    private int cutAt;
    private long empty;
    private String firstEmpty;
    private volatile boolean drawn;
    /** Tokens per second, smoothed over the last few redraws. */
    private double recentRate;
    private long rateCounted;
    private long rateNanos = startNanos;
    /** False where the tokens are not known here (a server answered): rates are then in texts per second. */
    private boolean countsTokens = true;

    /**
     * @param verb    what the run does, for the summary ("embedded")
     * @param enabled false for texts given as arguments
     */
    RunProgress(PrintWriter err, String verb, boolean enabled) {
        this.err = err;
        this.verb = verb;
        this.enabled = enabled;
        this.terminal = enabled && ProgressBar.stderrIsTerminal();
        if (terminal) {
            Runtime.getRuntime().addShutdownHook(new Thread(this::clearLine, "vectorbert-progress"));
        }
    }

    /** Rates in texts per second, for a run whose tokens are counted elsewhere (by the server that answers it). */
    RunProgress countingTexts() {
        countsTokens = false;
        return this;
    }

    /** At exit (Ctrl-C included), takes the unfinished progress line off the screen. */
    private void clearLine() {
        if (drawn) {
            err.print("\r\033[K");
            err.flush();
        }
    }

    /** Texts longer than {@code tokens} are cut, and the summary counts them. */
    void cutAt(int tokens) {
        cutAt = tokens;
    }

    /** One text cut to fit. */
    void cut() {
        truncated++;
    }

    /** A text that gave no tokens (empty, or only spaces): embedded as [CLS] [SEP] alone, and counted in the summary. */
    void noTokens(String where) {
        if (empty++ == 0) {
            firstEmpty = where;
        }
    }

    /** Counts a batch done; {@code bytesRead} of {@code totalBytes} (-1 unknown) gives the time left. */
    void done(int batchTexts, long batchTokens, long bytesRead, long totalBytes) {
        texts += batchTexts;
        tokens += batchTokens;
        long now = System.nanoTime();
        if (!terminal || now - lastDrawNanos < REDRAW_NANOS) {
            return;
        }
        lastDrawNanos = now;
        long counted = countsTokens ? tokens : texts;
        double rate = (counted - rateCounted) / ((now - rateNanos) / 1e9);
        recentRate = recentRate == 0 ? rate : 0.7 * recentRate + 0.3 * rate;
        rateCounted = counted;
        rateNanos = now;
        StringBuilder line = new StringBuilder("\r").append(verb).append(' ');
        if (totalBytes > 0 && bytesRead > 0) {
            double fraction = Math.min(1, (double) bytesRead / totalBytes);
            int filled = (int) Math.round(fraction * BAR);
            double left = (double) counted / bytesRead * (totalBytes - bytesRead);
            line.append('[').append("#".repeat(filled)).append(".".repeat(BAR - filled)).append(String.format("] %3.0f%%, ", 100 * fraction));
            line.append(texts).append(" texts, ").append(String.format("%.0f %s/s, %s left", recentRate, unit(),
                    duration(left / recentRate)));
        } else {
            line.append(texts).append(" texts, ").append(String.format("%.0f %s/s", recentRate, unit()));
        }
        line.append("\033[K");
        err.print(line);
        err.flush();
        drawn = true;
    }

    /** The summary line (after clearing the bar). */
    void finish() {
        if (!enabled) {
            if (empty > 0) {
                // No summary for arguments, but this is not to go unsaid.
                err.printf("%s %s gave no tokens (empty or only spaces)%s embedded as [CLS] [SEP] alone%n", verb, firstEmpty,
                        empty == 1 ? ":" : ", and " + (empty - 1) + " more: each");
                err.flush();
            }
            return;
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        if (drawn) {
            err.print("\r\033[K");
            drawn = false;
        }
        StringBuilder extra = new StringBuilder();
        if (truncated > 0) {
            extra.append("; ").append(truncated).append(truncated == 1 ? " text was" : " texts were").append(" cut to ")
                    .append(cutAt).append(" tokens");
        }
        if (empty > 0) {
            extra.append("; ").append(empty).append(empty == 1 ? " text" : " texts").append(" gave no tokens (").append(firstEmpty)
                    .append(empty == 1 ? "" : " the first").append(": empty or only spaces), each embedded as [CLS] [SEP] alone");
        }
        if (countsTokens) {
            err.printf("%s %d text%s, %d tokens in %.1f s (%.0f tokens/s)%s%n", verb, texts, texts == 1 ? "" : "s", tokens,
                    seconds, seconds > 0 ? tokens / seconds : 0, extra);
        } else {
            err.printf("%s %d text%s in %.1f s (%.1f texts/s)%s%n", verb, texts, texts == 1 ? "" : "s", seconds,
                    seconds > 0 ? texts / seconds : 0, extra);
        }
        err.flush();
    }

    private String unit() {
        return countsTokens ? "tokens" : "texts";
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600 ? String.format("%dh%02dm", s / 3600, s / 60 % 60)
                : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
