package org.vectorbert.tokenizer.pipeline;

/**
 * A vocabulary's tokens by spelling, looked up straight from a prefix and a run of chars without
 * making a String: WordPiece first asks whether the whole rest of a word (behind the continuing-subword
 * prefix after the first piece) is a token, one probe and usually a hit, before it walks the trie. A hit
 * gives the token string itself, so no second lookup by id is needed.
 */
final class PieceTable {
    private final String[] tokens;
    private final int[] ids;
    private final int mask;

    /** The spellings, put in their order (see {@link Vocab#spellings}). */
    PieceTable(Vocab.Spellings spellings) {
        int capacity = Integer.highestOneBit(Math.max(16, spellings.tokens().length * 2)) << 1;
        tokens = new String[capacity];
        ids = new int[capacity];
        mask = capacity - 1;
        for (int k = 0; k < spellings.tokens().length; k++) {
            String token = spellings.tokens()[k];
            int slot = mix(feed(0, token, 0, token.length())) & mask;
            while (tokens[slot] != null) {
                slot = (slot + 1) & mask;
            }
            tokens[slot] = token;
            ids[slot] = spellings.ids()[k];
        }
    }

    /** The slot of the token {@code prefix + chars[from, to)}, or -1; see {@link #id} and {@link #token}. */
    int find(String prefix, char[] chars, int from, int to) {
        int h = feed(0, prefix, 0, prefix.length());
        for (int i = from; i < to; i++) {
            h = h * 31 + chars[i];
        }
        int skip = prefix.length();
        int length = skip + to - from;
        for (int slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
            String token = tokens[slot];
            if (token == null) {
                return -1;
            }
            if (token.length() == length && token.startsWith(prefix) && matches(token, skip, chars, from, to)) {
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

    private static int feed(int h, String s, int from, int to) {
        for (int i = from; i < to; i++) {
            h = h * 31 + s.charAt(i);
        }
        return h;
    }

    private static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
