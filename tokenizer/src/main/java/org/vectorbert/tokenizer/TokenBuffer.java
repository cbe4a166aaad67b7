package org.vectorbert.tokenizer;

import java.util.Arrays;

/** A growable list of (token id, span start, span end): the pieces of one text before special tokens are added. */
final class TokenBuffer {
    int[] ids;
    int[] starts;
    int[] ends;
    int size;

    /** English averages about one token per four characters; start there and grow if needed. */
    TokenBuffer(int textLength) {
        int capacity = 16 + textLength / 3;
        ids = new int[capacity];
        starts = new int[capacity];
        ends = new int[capacity];
    }

    void add(int id, int start, int end) {
        if (size == ids.length) {
            ids = Arrays.copyOf(ids, size * 2);
            starts = Arrays.copyOf(starts, size * 2);
            ends = Arrays.copyOf(ends, size * 2);
        }
        ids[size] = id;
        starts[size] = start;
        ends[size] = end;
        size++;
    }

    /** Drops everything from {@code newSize} on. */
    void truncate(int newSize) {
        size = Math.min(size, newSize);
    }
}
