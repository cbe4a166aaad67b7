package org.vectorbert.tokenizer.pipeline;

import java.util.Arrays;

/**
 * A trie over UTF-16 code units whose edges live in one open-addressing table keyed by
 * (node, char), so a longest-prefix search walks the word once and allocates nothing.
 */
public final class CharTrie {
    public static final int ROOT = 0;
    public static final int NONE = -1;

    private long[] keys;      // (node << 16 | char) + 1; 0 marks an empty slot
    private int[] children;
    private int mask;
    private int edges;
    private int[] tokenIds;  // per node: the token ending here, or NONE
    private int nodes = 1;

    /** A trie of a vocabulary's spellings, built in id order (see {@link Vocab#spellings}). */
    CharTrie(Vocab.Spellings spellings) {
        String[] tokens = spellings.tokens();
        size(tokens.length);
        for (int k = 0; k < tokens.length; k++) {
            if (tokens[k] != null) {
                add(tokens[k], spellings.ids() == null ? k : spellings.ids()[k]);
            }
        }
    }

    /** A trie of {@code tokens[id]} for each id; null entries are left out. */
    public CharTrie(String[] tokens) {
        size(tokens.length);
        for (int id = 0; id < tokens.length; id++) {
            if (tokens[id] != null) {
                add(tokens[id], id);
            }
        }
    }

    /**
     * Room for eight edges a token, more than vocabularies make (bert-base-uncased's 30,522 tokens make 65 k
     * edges), so the table starts a quarter full and rarely has to grow.
     */
    private void size(int tokens) {
        int units = tokens * 8;
        int capacity = Integer.highestOneBit(Math.max(16, units)) << 1;
        keys = new long[capacity];
        children = new int[capacity];
        mask = capacity - 1;
        tokenIds = new int[Math.max(16, units / 2)];
        Arrays.fill(tokenIds, NONE);
    }

    private void add(String token, int id) {
        int node = ROOT;
        for (int i = 0; i < token.length(); i++) {
            node = childOrAdd(node, token.charAt(i));
        }
        tokenIds[node] = id;
    }

    /** The child of {@code node} along {@code c}, or {@link #NONE}. */
    public int child(int node, char c) {
        long key = ((long) node << 16 | c) + 1;
        for (int slot = hash(key) & mask; ; slot = (slot + 1) & mask) {
            long k = keys[slot];
            if (k == key) {
                return children[slot];
            }
            if (k == 0) {
                return NONE;
            }
        }
    }

    /** The token id ending at {@code node}, or {@link #NONE}. */
    public int tokenId(int node) {
        return tokenIds[node];
    }

    /** The node reached from the root by {@code prefix}, or {@link #NONE}. */
    public int walk(String prefix) {
        int node = ROOT;
        for (int i = 0; i < prefix.length() && node != NONE; i++) {
            node = child(node, prefix.charAt(i));
        }
        return node;
    }

    private int childOrAdd(int node, char c) {
        int existing = child(node, c);
        if (existing != NONE) {
            return existing;
        }
        if ((edges + 1) * 2 > keys.length) {
            grow();
        }
        int created = nodes++;
        if (created == tokenIds.length) {
            int old = tokenIds.length;
            tokenIds = Arrays.copyOf(tokenIds, old * 2);
            Arrays.fill(tokenIds, old, tokenIds.length, NONE);
        }
        insert(((long) node << 16 | c) + 1, created);
        return created;
    }

    private void insert(long key, int child) {
        int slot = hash(key) & mask;
        while (keys[slot] != 0) {
            slot = (slot + 1) & mask;
        }
        keys[slot] = key;
        children[slot] = child;
        edges++;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldChildren = children;
        keys = new long[oldKeys.length * 2];
        children = new int[oldKeys.length * 2];
        mask = keys.length - 1;
        edges = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != 0) {
                insert(oldKeys[i], oldChildren[i]);
            }
        }
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29));
    }
}
