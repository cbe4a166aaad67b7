package org.vectorbert.tokenizer;

/**
 * Token ids by string, looked up straight from a char range (optionally behind a prefix such as
 * {@code ##}) with no String made. WordPiece asks it first whether the rest of a word is one token,
 * which for English is the usual case, before walking the trie.
 */
final class TokenTable {
    private final String[] tokens;
    private final int[] slots;  // token id + 1; 0 marks an empty slot
    private final int mask;

    TokenTable(String[] tokens) {
        this.tokens = tokens;
        int capacity = Integer.highestOneBit(Math.max(16, tokens.length * 2)) << 1;
        slots = new int[capacity];
        mask = capacity - 1;
        for (int id = 0; id < tokens.length; id++) {
            int h = finish(feed(SEED, tokens[id], tokens[id].length()));
            int slot = h & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = id + 1;
        }
    }

    private static final int SEED = 0x9747b28c;

    /** The id of the token {@code prefix + chars[from, to)}, or -1. */
    int find(String prefix, char[] chars, int from, int to) {
        int h = SEED;
        h = feed(h, prefix, prefix.length());
        for (int i = from; i < to; i++) {
            h = h * 31 + chars[i];
        }
        int length = prefix.length() + to - from;
        for (int slot = finish(h) & mask; ; slot = (slot + 1) & mask) {
            int entry = slots[slot];
            if (entry == 0) {
                return -1;
            }
            String token = tokens[entry - 1];
            if (token.length() == length && token.startsWith(prefix) && sameChars(token, prefix.length(), chars, from, to)) {
                return entry - 1;
            }
        }
    }

    private static boolean sameChars(String token, int offset, char[] chars, int from, int to) {
        for (int i = from; i < to; i++) {
            if (token.charAt(offset + i - from) != chars[i]) {
                return false;
            }
        }
        return true;
    }

    private static int feed(int h, String s, int length) {
        for (int i = 0; i < length; i++) {
            h = h * 31 + s.charAt(i);
        }
        return h;
    }

    private static int finish(int h) {
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        return h ^ (h >>> 13);
    }
}
