package org.vectorbert.tokenizer;

import java.util.Arrays;

/** The normalised characters of the word being built, each with the span of the source character it came from. */
final class Word {
    char[] chars = new char[64];
    int[] starts = new int[64];
    int[] ends = new int[64];
    int length;
    /** Whether the word holds a surrogate pair, so its length in code points differs from {@link #length}. */
    boolean hasSurrogates;

    void append(char c, int start, int end) {
        if (length == chars.length) {
            chars = Arrays.copyOf(chars, length * 2);
            starts = Arrays.copyOf(starts, length * 2);
            ends = Arrays.copyOf(ends, length * 2);
        }
        chars[length] = c;
        starts[length] = start;
        ends[length] = end;
        length++;
    }

    void appendCodePoint(int cp, int start, int end) {
        if (Character.isBmpCodePoint(cp)) {
            append((char) cp, start, end);
        } else {
            hasSurrogates = true;
            append(Character.highSurrogate(cp), start, end);
            append(Character.lowSurrogate(cp), start, end);
        }
    }

    int codePointCount() {
        return hasSurrogates ? Character.codePointCount(chars, 0, length) : length;
    }

    void clear() {
        length = 0;
        hasSurrogates = false;
    }
}
