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
    private final String prefix;
    private final int maxInputCharsPerWord;

    public WordPieceModel(Vocab vocab, String unkToken, String prefix, int maxInputCharsPerWord, String where) {
        this.vocab = vocab;
        this.unkToken = unkToken;
        this.unkId = vocab.id(unkToken);
        if (unkId < 0) {
            throw new TokenizerException(where + ": the WordPiece unk_token '" + unkToken + "' is not in the vocabulary");
        }
        this.prefix = prefix;
        this.maxInputCharsPerWord = maxInputCharsPerWord;
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
            int end = s.length();
            int found = -1;
            String piece = null;
            while (start < end) {
                piece = start > 0 ? prefix + s.substring(start, end) : s.substring(start, end);
                found = vocab.id(piece);
                if (found >= 0) {
                    break;
                }
                end -= Character.charCount(s.codePointBefore(end));
            }
            if (found < 0) {
                out.size = mark;
                out.add(unkId, unkToken, word, 0, s.length());
                return;
            }
            out.add(found, piece, word, start, end);
            start = end;
        }
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
}
