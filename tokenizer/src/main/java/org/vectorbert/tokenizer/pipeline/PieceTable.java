package org.vectorbert.tokenizer.pipeline;

/**
 * A vocabulary's token ids by spelling, looked up straight from a prefix and a run of chars without
 * making a String: WordPiece first asks whether the whole rest of a word (behind the continuing-subword
 * prefix after the first piece) is a token, one probe and usually a hit, before it walks the trie.
 * The spellings sit in one char array, each behind its length, and a slot holds where its spelling starts
 * and its id: a probe reads the slot and the chars, not a String and then its array.
 */
final class PieceTable {
    /** Per slot: the spelling's offset in {@link #chars} (high half) and id + 1 (low half); 0 when empty. */
    private final long[] slots;
    /** Each spelling's length, then its chars. */
    private final char[] chars;
    private final int mask;

    /** The spellings, put in their order (see {@link Vocab#spellings}). */
    PieceTable(Vocab.Spellings spellings) {
        String[] tokens = spellings.tokens();
        int capacity = Integer.highestOneBit(Math.max(16, tokens.length * 2)) << 1;
        slots = new long[capacity];
        char[] pool = new char[16 + tokens.length * 8];
        mask = capacity - 1;
        int offset = 0;
        for (int k = 0; k < tokens.length; k++) {
            String token = tokens[k];
            if (token == null || token.length() > Character.MAX_VALUE) {
                continue;  // a long one is left to the trie, which finds every token
            }
            if (offset + token.length() + 1 > pool.length) {
                pool = java.util.Arrays.copyOf(pool, Math.max(pool.length * 2, offset + token.length() + 1));
            }
            pool[offset] = (char) token.length();
            token.getChars(0, token.length(), pool, offset + 1);
            int slot = mix(feed(0, token, 0, token.length())) & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = (long) offset << 32 | ((spellings.ids() == null ? k : spellings.ids()[k]) + 1L);
            offset += token.length() + 1;
        }
        chars = pool;
    }

    /** The id of the token {@code prefix + chars[from, to)}, or -1. */
    int find(String prefix, char[] word, int from, int to) {
        int h = feed(0, prefix, 0, prefix.length());
        for (int i = from; i < to; i++) {
            h = h * 31 + word[i];
        }
        int skip = prefix.length();
        int length = skip + to - from;
        for (int slot = mix(h) & mask; ; slot = (slot + 1) & mask) {
            long entry = slots[slot];
            if (entry == 0) {
                return -1;
            }
            int at = (int) (entry >>> 32);
            if (chars[at] == length && matches(at + 1, prefix, word, from, to)) {
                return (int) entry - 1;
            }
        }
    }

    private boolean matches(int at, String prefix, char[] word, int from, int to) {
        for (int i = 0; i < prefix.length(); i++) {
            if (chars[at + i] != prefix.charAt(i)) {
                return false;
            }
        }
        at += prefix.length() - from;
        for (int i = from; i < to; i++) {
            if (chars[at + i] != word[i]) {
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
