package org.vectorbert.tokenizer.pipeline;

import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * {@code WordPiece}: greedy longest match from the left, later pieces looked up with the
 * continuing-subword prefix; a word with an unmatched position, or longer than the limit in
 * code points, becomes one unknown token over the whole word.
 */
public final class WordPieceModel implements Model {
    private final Vocab vocab;
    private final String unkToken;
    private final int unkId;
    /** Every piece as spelled: a word's first piece is found from the root, the others from {@link #continuing}. */
    private final CharTrie trie;
    /** The node the continuing-subword prefix leads to, or {@link CharTrie#NONE} when no piece starts with it. */
    private final int continuing;
    /** The same pieces for one-probe lookups of a whole rest of a word. */
    private final PieceTable table;
    private final String prefix;
    private final int maxInputCharsPerWord;

    public WordPieceModel(Vocab vocab, String unkToken, String prefix, int maxInputCharsPerWord, String where) {
        this.vocab = vocab;
        this.unkToken = unkToken;
        this.unkId = vocab.id(unkToken);
        if (unkId < 0) {
            throw new TokenizerException(where + ": the WordPiece unk_token '" + unkToken + "' is not in the vocabulary");
        }
        this.maxInputCharsPerWord = maxInputCharsPerWord;
        Vocab.Spellings spellings = vocab.spellings();
        this.trie = new CharTrie(spellings);
        this.continuing = trie.walk(prefix);
        this.table = new PieceTable(spellings);
        this.prefix = prefix;
    }

    public static WordPieceModel of(Map<String, Integer> vocab, String unk, String prefix, int max, String where) {
        return new WordPieceModel(Vocab.of(vocab, where), unk, prefix, max, where);
    }

    @Override
    public void tokenize(Normalized word, Tokens out) {
        String s = word.text();
        if (s.codePointCount(0, s.length()) > maxInputCharsPerWord) {
            out.add(unkId, unkToken, word, 0, s.length());
            return;
        }
        int mark = out.size;
        int start = 0;
        while (start < s.length()) {
            // The longest vocabulary piece at start, found by one walk down the trie (later pieces
            // from behind their prefix) instead of a map lookup per shorter substring.
            int node = start == 0 ? CharTrie.ROOT : continuing;
            int found = -1;
            int end = start;
            for (int j = start; j < s.length() && node != CharTrie.NONE; j++) {
                node = trie.child(node, s.charAt(j));
                if (node == CharTrie.NONE) {
                    break;
                }
                int id = trie.tokenId(node);
                if (id != CharTrie.NONE && !splitsPair(s, j + 1)) {
                    found = id;
                    end = j + 1;
                }
            }
            if (found < 0) {
                out.size = mark;
                out.add(unkId, unkToken, word, 0, s.length());
                return;
            }
            out.add(found, vocab.token(found), word, start, end);
            start = end;
        }
    }

    /**
     * {@link #tokenize(Normalized, Tokens)} for a word held in {@code word[0, length)}, unit {@code i}
     * spanning original {@code [starts[i], ends[i])}; {@code surrogates} says whether it holds a pair to keep whole.
     */
    void tokenize(char[] word, int length, int[] starts, int[] ends, boolean surrogates, Tokens out) {
        if ((surrogates ? Character.codePointCount(word, 0, length) : length) > maxInputCharsPerWord) {
            out.add(unkId, unkToken, starts[0], ends[length - 1], 0, 0, 0);
            return;
        }
        int mark = out.size;
        int start = 0;
        while (start < length) {
            // The longest piece is the whole rest when the rest is a piece, which most words are.
            int rest = table.find(start == 0 ? "" : prefix, word, start, length);
            if (rest >= 0) {
                out.add(rest, vocab.token(rest), starts[start], ends[length - 1], 0, 0, 0);
                return;
            }
            int node = start == 0 ? CharTrie.ROOT : continuing;
            int found = -1;
            int end = start;
            for (int j = start; j < length && node != CharTrie.NONE; j++) {
                node = trie.child(node, word[j]);
                if (node == CharTrie.NONE) {
                    break;
                }
                int id = trie.tokenId(node);
                if (id != CharTrie.NONE && !(surrogates && splitsPair(word, j + 1, length))) {
                    found = id;
                    end = j + 1;
                }
            }
            if (found < 0) {
                out.size = mark;
                out.add(unkId, unkToken, starts[0], ends[length - 1], 0, 0, 0);
                return;
            }
            out.add(found, vocab.token(found), starts[start], ends[end - 1], 0, 0, 0);
            start = end;
        }
    }

    private static boolean splitsPair(char[] word, int at, int length) {
        return at < length && Character.isLowSurrogate(word[at]) && Character.isHighSurrogate(word[at - 1]);
    }

    /** Whether a piece ending at {@code at} would cut a surrogate pair (the library cuts at characters only). */
    private static boolean splitsPair(String s, int at) {
        return at < s.length() && Character.isLowSurrogate(s.charAt(at)) && Character.isHighSurrogate(s.charAt(at - 1));
    }

    @Override
    public int tokenToId(String token) {
        return vocab.id(token);
    }

    @Override
    public String idToToken(int id) {
        return vocab.token(id);
    }

    @Override
    public int vocabSize() {
        return vocab.size();
    }

    @Override
    public String continuingSubwordPrefix() {
        return prefix;
    }
}
