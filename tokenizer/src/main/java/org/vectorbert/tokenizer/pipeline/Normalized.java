package org.vectorbert.tokenizer.pipeline;

import java.util.Arrays;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * A piece of text after normalisation, with, for every UTF-16 unit of the normalised text, the
 * span of original text it came from (absolute UTF-16 indices into the input). This is the
 * {@code tokenizers} library's NormalizedString, with two differences that do not change any
 * offset: alignments are kept per UTF-16 unit instead of per UTF-8 byte (both units of a
 * surrogate pair share one span, as all bytes of a char do there), and they are absolute, so a
 * slice needs no shift.
 *
 * <p>Instances are immutable; an {@link Edit} builds the next one.
 */
public final class Normalized {
    private final String text;
    /** Null when each unit spans itself: unit i is original [originalStart + i, originalStart + i + 1). */
    private final int[] starts;
    private final int[] ends;
    /** Where this piece starts in the original text ({@code offsets_original().0}); Metaspace's "first" scheme reads it. */
    private final int originalStart;
    private final int originalEnd;

    Normalized(String text, int[] starts, int[] ends, int originalStart, int originalEnd) {
        this.text = text;
        this.starts = starts;
        this.ends = ends;
        this.originalStart = originalStart;
        this.originalEnd = originalEnd;
    }

    /** {@code original[from, to)} as it stands, each unit aligned to itself. */
    public static Normalized of(String original, int from, int to) {
        int n = to - from;
        boolean pairs = false;
        for (int i = from; i < to && !pairs; i++) {
            pairs = Character.isSurrogate(original.charAt(i));
        }
        if (!pairs) {
            // Each unit is its own span: no arrays to say so (two per text and two more per slice otherwise).
            return new Normalized(original.substring(from, to), null, null, from, to);
        }
        int[] s = new int[n];
        int[] e = new int[n];
        for (int i = 0; i < n; ) {
            int cp = original.codePointAt(from + i);
            int w = Character.charCount(cp);
            for (int k = 0; k < w; k++) {
                s[i + k] = from + i;
                e[i + k] = from + i + w;
            }
            i += w;
        }
        return new Normalized(original.substring(from, to), s, e, from, to);
    }

    public String text() {
        return text;
    }

    public int length() {
        return text.length();
    }

    public boolean isEmpty() {
        return text.isEmpty();
    }

    public int originalStart() {
        return originalStart;
    }

    /** Original start of the normalised unit {@code i}. */
    public int startOf(int i) {
        return starts == null ? checked(i) + originalStart : starts[i];
    }

    /** Original end of the normalised unit {@code i}. */
    public int endOf(int i) {
        return ends == null ? checked(i) + originalStart + 1 : ends[i];
    }

    /** Whether each unit spans itself: unit i is original [originalStart + i, originalStart + i + 1). */
    boolean isIdentity() {
        return starts == null;
    }

    /** An identity piece's unit index, bounds-checked as an array would be. */
    private int checked(int i) {
        return java.util.Objects.checkIndex(i, text.length());
    }

    /** The original span of normalised units {@code [from, to)}: the first one's start, the last one's end. */
    public int originalStartOf(int from, int to) {
        return from < to ? startOf(from) : originalStart;
    }

    public int originalEndOf(int from, int to) {
        return from < to ? endOf(to - 1) : originalStart;
    }

    /** Normalised units {@code [from, to)} as a piece of their own; its original start is the first unit's. */
    public Normalized slice(int from, int to) {
        int oStart = from < to ? startOf(from) : (from < text.length() ? startOf(from) : originalEnd);
        int oEnd = from < to ? endOf(to - 1) : oStart;
        if (starts == null) {
            return new Normalized(text.substring(from, to), null, null, oStart, oEnd);
        }
        return new Normalized(text.substring(from, to), Arrays.copyOfRange(starts, from, to),
                Arrays.copyOfRange(ends, from, to), oStart, oEnd);
    }

    public Edit edit() {
        return new Edit(this);
    }

    @Override
    public String toString() {
        return text;
    }

    /**
     * Rewrites a normalised text code point by code point, as {@code transform} does in the
     * tokenizers library: {@link #keep} consumes the next code point and emits a replacement
     * aligned to it (change 0); {@link #drop} consumes one without output (a negative change, or
     * the initial offset); {@link #insert} emits a new code point aligned to the last consumed one,
     * or to an empty span at the start when none was consumed yet (change +1).
     */
    public static final class Edit {
        /**
         * How much longer a normaliser may make a text (past {@link #MAX_GROWN_UNITS}): Unicode's longest
         * decompositions are 18 code points, while a Replace of an empty-matching pattern, applied twice,
         * could make a short text millions of units long.
         */
        private static final int GROWTH_FACTOR = 64;
        /** Any text may grow to this many units, whatever its length. */
        private static final int MAX_GROWN_UNITS = 1 << 20;
        private final Normalized source;
        private final StringBuilder out;
        private int[] starts;
        private int[] ends;
        private int size;
        private int next;
        private int lastStart;
        private int lastEnd;

        Edit(Normalized source) {
            this.source = source;
            this.out = new StringBuilder(source.text.length() + 8);
            this.starts = new int[source.text.length() + 8];
            this.ends = new int[starts.length];
            this.lastStart = source.originalStart;
            this.lastEnd = source.originalStart;
        }

        /** The code point the next {@link #keep} or {@link #drop} consumes, or -1 at the end. */
        public int peek() {
            return next < source.text.length() ? source.text.codePointAt(next) : -1;
        }

        /** How many UTF-16 units of the source are consumed. */
        public int position() {
            return next;
        }

        public boolean hasNext() {
            return next < source.text.length();
        }

        /** Consumes the next code point and returns it. */
        private int consume() {
            int cp = source.text.codePointAt(next);
            lastStart = source.startOf(next);
            lastEnd = source.endOf(next);
            next += Character.charCount(cp);
            return cp;
        }

        public Edit keep(int replacement) {
            consume();
            return emit(replacement);
        }

        /** Keeps the next code point as it is. */
        public Edit keep() {
            return keep(peek());
        }

        public Edit drop() {
            consume();
            return this;
        }

        public Edit insert(int cp) {
            return emit(cp);
        }

        public Edit insert(CharSequence s) {
            for (int i = 0; i < s.length(); ) {
                int cp = Character.codePointAt(s, i);
                emit(cp);
                i += Character.charCount(cp);
            }
            return this;
        }

        /** Keeps everything not yet consumed. */
        public Edit keepRest() {
            while (hasNext()) {
                keep();
            }
            return this;
        }

        private Edit emit(int cp) {
            int w = Character.charCount(cp);
            if (size + w > starts.length) {
                long limit = Math.max(MAX_GROWN_UNITS, GROWTH_FACTOR * (long) source.text.length());
                if (size + w > limit) {
                    throw new TokenizerException("normalizing a text of " + source.text.length() + " characters made it longer than "
                            + limit + ": a normalizer that inserts text at every position (a Replace whose pattern matches the "
                            + "empty string?) is refused");
                }
                starts = Arrays.copyOf(starts, Math.max(size + w, starts.length * 2));
                ends = Arrays.copyOf(ends, starts.length);
            }
            out.appendCodePoint(cp);
            for (int k = 0; k < w; k++) {
                starts[size] = lastStart;
                ends[size++] = lastEnd;
            }
            return this;
        }

        public Normalized done() {
            while (hasNext()) {
                drop();
            }
            return new Normalized(out.toString(), Arrays.copyOf(starts, size), Arrays.copyOf(ends, size),
                    source.originalStart, source.originalEnd);
        }
    }
}
