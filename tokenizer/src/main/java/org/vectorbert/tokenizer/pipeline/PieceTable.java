package org.vectorbert.tokenizer.pipeline;

/**
 * The tokens that start with a prefix, looked up by what follows it straight from a run of chars,
 * without making a String: WordPiece first asks whether the whole rest of a word is a token (one
 * probe, usually a hit) before it walks the trie. A hit gives the token string itself, so no
 * second lookup by id is needed.
 */
final class PieceTable {
    private final String[] tokens;
    private final int[] ids;
    private final int skip;
    private final int mask;

    /** The tokens of {@code vocab} longer than {@code prefix} that start with it ("" for all), put in id order. */
    PieceTable(Vocab vocab, String prefix) {
        int[] count = new int[1];
        vocab.forEach((token, id) -> {
            if (token.length() > prefix.length() && token.startsWith(prefix)) {
                count[0]++;
            }
        });
        int capacity = Integer.highestOneBit(Math.max(16, count[0] * 2)) << 1;
        tokens = new String[capacity];
        ids = new int[capacity];
        skip = prefix.length();
        mask = capacity - 1;
        vocab.forEach((token, id) -> {
            if (token.length() > skip && token.startsWith(prefix)) {
                int slot = hash(token, skip, token.length()) & mask;
                while (tokens[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                tokens[slot] = token;
                ids[slot] = id;
            }
        });
    }

    /** The slot of the token {@code prefix + chars[from, to)}, or -1; see {@link #id} and {@link #token}. */
    int find(char[] chars, int from, int to) {
        int length = skip + to - from;
        for (int slot = hash(chars, from, to) & mask; ; slot = (slot + 1) & mask) {
            String token = tokens[slot];
            if (token == null) {
                return -1;
            }
            if (token.length() == length && matches(token, skip, chars, from, to)) {
                return slot;
            }
        }
    }

    int id(int slot) {
        return ids[slot];
    }

    String token(int slot) {
        return tokens[slot];
    }

    private static boolean matches(String token, int offset, char[] chars, int from, int to) {
        for (int i = from; i < to; i++) {
            if (token.charAt(offset + i - from) != chars[i]) {
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
