package org.vectorbert.tokenizer.pipeline;

import java.util.Arrays;

/**
 * A word (or a piece of text) as a model reads it: its UTF-16 units and, for each, the span of
 * original text it came from. Pre-tokenizers fill one per call and models read it, so a word
 * costs no String, no Normalized slice and no alignment arrays of its own.
 */
final class WordChars {
    char[] chars;
    int[] starts;
    int[] ends;
    int length;
    /** The running hash of the chars, {@code h * 31 + c} from 0, kept as they are written (WordCache's key hash). */
    int hash;

    WordChars(int capacity) {
        int n = Math.max(16, capacity);
        chars = new char[n];
        starts = new int[n];
        ends = new int[n];
    }

    void add(char c, int start, int end) {
        if (length == chars.length) {
            reserve(length);
        }
        hash = hash * 31 + c;
        chars[length] = c;
        starts[length] = start;
        ends[length++] = end;
    }

    /** Makes room for {@code extra} more units; the arrays may be replaced, so read them after. */
    void reserve(int extra) {
        if (length + extra > chars.length) {
            int n = Math.max(length + extra, chars.length * 2);
            chars = Arrays.copyOf(chars, n);
            starts = Arrays.copyOf(starts, n);
            ends = Arrays.copyOf(ends, n);
        }
    }

    /** Appends a code point, all its units spanning {@code [start, end)}. */
    void addCodePoint(int cp, int start, int end) {
        if (cp < 0x10000) {
            add((char) cp, start, end);
        } else {
            add(Character.highSurrogate(cp), start, end);
            add(Character.lowSurrogate(cp), start, end);
        }
    }

    /** Sets this to the units {@code [from, to)} of a normalised piece and their spans. */
    WordChars set(Normalized piece, int from, int to) {
        clear();
        String s = piece.text();
        for (int i = from; i < to; i++) {
            add(s.charAt(i), piece.startOf(i), piece.endOf(i));
        }
        return this;
    }

    void clear() {
        length = 0;
        hash = 0;
    }

    String text(int from, int to) {
        return new String(chars, from, to - from);
    }

    String text() {
        return new String(chars, 0, length);
    }
}
