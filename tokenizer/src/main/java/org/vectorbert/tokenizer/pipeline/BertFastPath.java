package org.vectorbert.tokenizer.pipeline;

/**
 * BertNormalizer (clean_text on), BertPreTokenizer and WordPiece fused for ASCII text, where
 * normalising changes no offsets but for dropped control characters: words are found, lowercased
 * and looked up straight from the original string, one word per call, without the intermediate
 * normalised strings, slices and split lists of the general path. On ASCII the four normaliser
 * steps reduce to: drop controls (0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F, 0x7F, as Unicode.isControl
 * says), whitespace (tab, LF, CR, space) ends a word, ASCII punctuation is a word of its own, and
 * A-Z lowercased when the normaliser lowercases; the parity fixtures cover it (minilm,
 * wordpiece-trained). Pipelines with normalised added tokens keep the general path.
 */
final class BertFastPath {
    private final WordPieceModel model;
    private final boolean lowercase;

    private BertFastPath(WordPieceModel model, boolean lowercase) {
        this.model = model;
        this.lowercase = lowercase;
    }

    /** The fast path for these stages, or null when they are not BERT's. */
    static BertFastPath of(Normalizer normalizer, PreTokenizer preTokenizer, Model model, boolean normalizedAddedTokens) {
        if (normalizer instanceof BertNormalizer n && n.cleanText() && preTokenizer instanceof PreTokenizer.Bert
                && model instanceof WordPieceModel wp && !normalizedAddedTokens) {
            return new BertFastPath(wp, n.lowercase());
        }
        return null;
    }

    static boolean isAscii(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /** Per-call scratch: the word's characters and each one's original span. */
    static final class Word {
        char[] chars = new char[64];
        int[] starts = new int[64];
        int[] ends = new int[64];
        int length;

        void add(char c, int at) {
            if (length == chars.length) {
                chars = java.util.Arrays.copyOf(chars, length * 2);
                starts = java.util.Arrays.copyOf(starts, length * 2);
                ends = java.util.Arrays.copyOf(ends, length * 2);
            }
            chars[length] = c;
            starts[length] = at;
            ends[length++] = at + 1;
        }
    }

    /**
     * Tokenizes the next word of {@code s} at or after {@code pos} (below {@code end}) into
     * {@code out}; returns where the search for the following word starts, or -1 when no word is left.
     */
    int next(String s, int pos, int end, Word w, Tokens out) {
        w.length = 0;
        int i = pos;
        for (; i < end; i++) {
            char c = s.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || Unicode.isControl(c) || c == 0) {
                if (w.length > 0) {
                    // Whitespace ends the word; a dropped control character does not.
                    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                        break;
                    }
                }
                continue;
            }
            if (Unicode.isPunctuation(c)) {
                if (w.length > 0) {
                    break;
                }
                w.add(c, i);
                i++;
                break;
            }
            w.add(lowercase && c >= 'A' && c <= 'Z' ? (char) (c + 32) : c, i);
        }
        if (w.length == 0) {
            return -1;
        }
        model.tokenizeAscii(w.chars, w.length, w.starts, w.ends, out);
        return i;
    }
}
