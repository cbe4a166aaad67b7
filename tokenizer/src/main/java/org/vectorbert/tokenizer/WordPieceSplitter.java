package org.vectorbert.tokenizer;

import java.text.Normalizer;
import org.vectorbert.tokenizer.pipeline.CharTrie;

/**
 * Splits a text into WordPiece ids with their spans: BertNormalizer's cleaning, CJK splitting,
 * lowercasing and accent stripping, BertPreTokenizer's whitespace and punctuation splitting, and
 * greedy longest-match-first WordPiece, with special tokens matched whole first.
 */
final class WordPieceSplitter {
    private final TokenizerConfig config;
    private final CharTrie trie;
    private final TokenTable table;
    /** Trie node after the continuing-subword prefix; {@link CharTrie#NONE} if no token continues a word. */
    private final int continuationNode;
    private final int unkId;
    private final SpecialTokenMatcher special;

    WordPieceSplitter(Vocabulary vocab, TokenizerConfig config, int unkId, SpecialTokenMatcher special) {
        this.config = config;
        this.trie = vocab.trie();
        this.table = vocab.table();
        this.continuationNode = trie.walk(config.continuingSubwordPrefix());
        this.unkId = unkId;
        this.special = special;
    }

    /** Ids and spans of a text's pieces: special tokens matched whole first, the rest normalised and split. */
    TokenBuffer pieces(String text) {
        TokenBuffer out = new TokenBuffer(text.length());
        Word word = new Word();
        int segmentStart = 0;
        for (int at = special.nextStart(text, 0); at >= 0; at = special.nextStart(text, at)) {
            int matched = special.match(text, at);
            if (matched < 0) {
                at++;
                continue;
            }
            splitSegment(text, segmentStart, at, word, out);
            out.add(special.id(matched), at, at + special.length(matched));
            at += special.length(matched);
            segmentStart = at;
        }
        splitSegment(text, segmentStart, text.length(), word, out);
        return out;
    }

    /** Normalises {@code text[from, to)} and splits it on whitespace and punctuation into words for WordPiece. */
    private void splitSegment(String text, int from, int to, Word word, TokenBuffer out) {
        boolean asciiFastPath = config.cleanText();
        boolean lower = config.lowercase();
        int i = from;
        while (i < to) {
            char c = text.charAt(i);
            if (c < 128 && asciiFastPath) {
                switch (CharClass.ascii(c)) {
                    case CharClass.WORD -> word.append(lower && c >= 'A' && c <= 'Z' ? (char) (c + 32) : c, i, i + 1);
                    case CharClass.SPACE -> endWord(word, out);
                    case CharClass.PUNCT -> {
                        endWord(word, out);
                        word.append(c, i, i + 1);
                        endWord(word, out);
                    }
                    default -> { } // control character: dropped
                }
                i++;
                continue;
            }
            int cp = text.codePointAt(i);
            int end = i + Character.charCount(cp);
            if (config.cleanText() && (cp == 0 || cp == 0xFFFD || CharClass.isControl(cp))) {
                // dropped
            } else if (CharClass.isWhitespace(cp)) {
                endWord(word, out);
            } else if (config.tokenizeChineseChars() && CharClass.isCjkIdeograph(cp)) {
                endWord(word, out);
                appendNormalized(cp, i, end, word, out);
                endWord(word, out);
            } else {
                appendNormalized(cp, i, end, word, out);
            }
            i = end;
        }
        endWord(word, out);
    }

    /** Strips accents (NFD, then drops non-spacing marks) and lowercases, as BertNormalizer does, in that order. */
    private void appendNormalized(int cp, int start, int end, Word word, TokenBuffer out) {
        if (config.stripAccents() && cp >= 0xC0) {
            String decomposed = Normalizer.normalize(Character.toString(cp), Normalizer.Form.NFD);
            for (int k = 0; k < decomposed.length(); ) {
                int d = decomposed.codePointAt(k);
                k += Character.charCount(d);
                if (Character.getType(d) != Character.NON_SPACING_MARK) {
                    appendLowercased(d, start, end, word, out);
                }
            }
        } else {
            appendLowercased(cp, start, end, word, out);
        }
    }

    private void appendLowercased(int cp, int start, int end, Word word, TokenBuffer out) {
        if (!config.lowercase()) {
            appendSplitting(cp, start, end, word, out);
        } else if (cp == 0x130) {
            // The one unconditional multi-character lowercase mapping: İ becomes i and a combining dot above.
            appendSplitting('i', start, end, word, out);
            appendSplitting(0x307, start, end, word, out);
        } else {
            appendSplitting(Character.toLowerCase(cp), start, end, word, out);
        }
    }

    /** Adds a normalised character to the word, or ends the word at whitespace and punctuation (which stands alone). */
    private void appendSplitting(int cp, int start, int end, Word word, TokenBuffer out) {
        if (CharClass.isWhitespace(cp)) {
            endWord(word, out);
        } else if (CharClass.isPunctuation(cp)) {
            endWord(word, out);
            word.appendCodePoint(cp, start, end);
            endWord(word, out);
        } else {
            word.appendCodePoint(cp, start, end);
        }
    }

    /** Greedy longest-match-first WordPiece over the word, which is then cleared. */
    private void endWord(Word word, TokenBuffer out) {
        int length = word.length;
        if (length == 0) {
            return;
        }
        int wordStart = word.starts[0];
        int wordEnd = word.ends[length - 1];
        if (word.codePointCount() > config.maxInputCharsPerWord()) {
            out.add(unkId, wordStart, wordEnd);
            word.clear();
            return;
        }
        int mark = out.size;
        char[] chars = word.chars;
        String prefix = config.continuingSubwordPrefix();
        for (int pos = 0; pos < length; ) {
            // The longest match is the whole rest when the rest is a token: one hash probe, usually a hit.
            int whole = table.find(pos == 0 ? "" : prefix, chars, pos, length);
            if (whole >= 0) {
                out.add(whole, word.starts[pos], wordEnd);
                break;
            }
            int node = pos == 0 ? CharTrie.ROOT : continuationNode;
            int bestEnd = -1;
            int bestId = CharTrie.NONE;
            for (int j = pos; j < length && node != CharTrie.NONE; j++) {
                node = trie.child(node, chars[j]);
                if (node != CharTrie.NONE && trie.tokenId(node) != CharTrie.NONE) {
                    bestEnd = j + 1;
                    bestId = trie.tokenId(node);
                }
            }
            if (bestId == CharTrie.NONE) {
                // No segmentation covers the whole word: the word becomes one unknown token.
                out.truncate(mark);
                out.add(unkId, wordStart, wordEnd);
                break;
            }
            out.add(bestId, word.starts[pos], word.ends[bestEnd - 1]);
            pos = bestEnd;
        }
        word.clear();
    }
}
