package org.vectorbert.tokenizer;

import java.util.Arrays;

/** A growable list of (token id, span start, span end): the pieces of one text before special tokens are added. */
final class TokenBuffer {
    int[] ids = new int[64];
    int[] starts = new int[64];
    int[] ends = new int[64];
    int size;

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
