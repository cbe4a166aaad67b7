package org.vectorbert.tokenizer.pipeline;

/**
 * BPE's merges as an open-addressing table from a (left id, right id) pair to its rank and merged
 * id, so the merge loop looks pairs up without boxing a key per lookup.
 */
final class PairTable {
    private final long[] keys;   // (left << 32 | right) + 1; 0 marks an empty slot
    private final long[] values; // rank << 32 | merged id
    private final int mask;

    PairTable(int pairs) {
        int capacity = Integer.highestOneBit(Math.max(16, pairs * 2)) << 1;
        keys = new long[capacity];
        values = new long[capacity];
        mask = capacity - 1;
    }

    /** Adds a pair unless it is already there (the first, lowest rank wins, as in the library). */
    void putIfAbsent(int left, int right, int rank, int merged) {
        long key = key(left, right);
        int slot = slot(key);
        while (keys[slot] != 0) {
            if (keys[slot] == key) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        values[slot] = (long) rank << 32 | (merged & 0xFFFFFFFFL);
    }

    /** rank << 32 | merged id, or -1 if the pair has no merge. */
    long get(int left, int right) {
        long key = key(left, right);
        for (int slot = slot(key); ; slot = (slot + 1) & mask) {
            long k = keys[slot];
            if (k == key) {
                return values[slot];
            }
            if (k == 0) {
                return -1;
            }
        }
    }

    private static long key(int left, int right) {
        return ((long) left << 32 | (right & 0xFFFFFFFFL)) + 1;
    }

    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 31)) & mask;
    }
}
