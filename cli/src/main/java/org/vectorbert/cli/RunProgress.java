package org.vectorbert.cli;

import java.io.PrintWriter;

/**
 * Progress of a run over many texts, on stderr only: on a terminal a line redrawn a few times a
 * second with texts, tokens per second and, when the input's size is known, the time left; at the
 * end, terminal or not, one summary line. Runs over arguments stay silent: their output is the answer.
 */
final class RunProgress {
    private static final long REDRAW_NANOS = 250_000_000L;

    private final PrintWriter err;
    private final String verb;
    private final boolean enabled;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private long lastDrawNanos;
    private long texts;
    private long tokens;
    private long positions;
    private long truncated;
    private int cutAt;
    private boolean drawn;

    /**
     * @param verb    what the run does, for the summary ("embedded")
     * @param enabled false for texts given as arguments
     */
    RunProgress(PrintWriter err, String verb, boolean enabled) {
        this.err = err;
        this.verb = verb;
        this.enabled = enabled;
        this.terminal = enabled && ProgressBar.stderrIsTerminal();
    }

    /** Texts longer than {@code tokens} are cut, and the summary counts them. */
    void cutAt(int tokens) {
        cutAt = tokens;
    }

    /** One text's tokens computed in a pass padded to {@code batchLength}; whether it was cut to fit. */
    void computed(int length, int batchLength, boolean cut) {
        positions += batchLength;
        if (cut) {
            truncated++;
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
        double seconds = (now - startNanos) / 1e9;
        StringBuilder line = new StringBuilder("\r").append(verb).append(' ').append(texts).append(" texts, ")
                .append(String.format("%.0f tokens/s", tokens / seconds));
        if (totalBytes > 0 && bytesRead > 0) {
            double fraction = Math.min(1, (double) bytesRead / totalBytes);
            line.append(String.format(", %3.0f%%, %s left", 100 * fraction, duration(seconds / fraction - seconds)));
        }
        err.print(line.append("   "));
        err.flush();
        drawn = true;
    }

    /** The summary line (after clearing the bar). */
    void finish() {
        if (!enabled) {
            return;
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        if (drawn) {
            err.print("\r\033[K");
        }
        StringBuilder extra = new StringBuilder();
        if (positions > 0) {
            extra.append(String.format("; %.1f%% of the positions computed were padding", 100.0 * (positions - tokens) / positions));
        }
        if (truncated > 0) {
            extra.append("; ").append(truncated).append(truncated == 1 ? " text was" : " texts were").append(" cut to ")
                    .append(cutAt).append(" tokens");
        }
        err.printf("%s %d text%s, %d tokens in %.1f s (%.0f tokens/s)%s%n", verb, texts, texts == 1 ? "" : "s", tokens,
                seconds, seconds > 0 ? tokens / seconds : 0, extra);
        err.flush();
    }

    private static String duration(double seconds) {
        long s = Math.round(seconds);
        return s >= 3600 ? String.format("%dh%02dm", s / 3600, s / 60 % 60)
                : s >= 60 ? String.format("%dm%02ds", s / 60, s % 60) : s + "s";
    }
}
