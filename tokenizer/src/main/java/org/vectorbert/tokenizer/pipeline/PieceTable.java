package org.vectorbert.tokenizer.pipeline;

import java.util.Map;

/**
 * Token strings to ids in one open-addressing table that a run of chars can be looked up in
 * without making a String: WordPiece first asks whether the whole rest of a word is a token (one
 * probe, usually a hit) before it walks the trie, as BertTokenizer does.
 */
final class PieceTable {
    private final String[] keys;
    private final int[] ids;
    private final int mask;

    PieceTable(Map<String, Integer> tokens) {
        int capacity = Integer.highestOneBit(Math.max(16, tokens.size() * 2)) << 1;
        keys = new String[capacity];
        ids = new int[capacity];
        mask = capacity - 1;
        tokens.forEach((token, id) -> {
            int slot = hash(token, 0, token.length()) & mask;
            while (keys[slot] != null) {
                slot = (slot + 1) & mask;
            }
            keys[slot] = token;
            ids[slot] = id;
        });
    }

    /** The id of the token {@code chars[from, to)}, or -1. */
    int find(char[] chars, int from, int to) {
        int length = to - from;
        for (int slot = hash(chars, from, to) & mask; ; slot = (slot + 1) & mask) {
            String key = keys[slot];
            if (key == null) {
                return -1;
            }
            if (key.length() == length && matches(key, chars, from)) {
                return ids[slot];
            }
        }
    }

    private static boolean matches(String key, char[] chars, int from) {
        for (int i = 0; i < key.length(); i++) {
            if (key.charAt(i) != chars[from + i]) {
                return false;
            }
        }
        return true;
    }

    private static int hash(String s, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) {
            h = h * 31 + s.charAt(i);
        }
        return mix(h);
    }

    private static int hash(char[] s, int from, int to) {
        int h = 0;
        for (int i = from; i < to; i++) {
            h = h * 31 + s[i];
        }
        return mix(h);
    }

    private static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
