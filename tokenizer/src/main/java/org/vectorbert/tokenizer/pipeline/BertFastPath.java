package org.vectorbert.tokenizer.pipeline;

import java.util.Arrays;

/**
 * BertNormalizer and BertPreTokenizer fused into one pass over the original text, feeding
 * WordPiece word by word: each character is cleaned, split off if it is a CJK ideograph, stripped
 * of accents and lowercased on its own, then ends the current word (whitespace), stands alone
 * (punctuation) or joins it, keeping its original span. No Normalized, slice or split list is made;
 * WordPiece reads each word from a scratch char array. BertTokenizer and every tokenizer.json with these
 * stages take this path.
 *
 * <p>The result equals the two stages': BertNormalizer maps every character independently, except
 * for NFD's canonical reordering of combining marks, which can change what is left after the non-spacing
 * marks are dropped only around a spacing mark (Mc) with a combining class. So a piece holding one, when
 * accents are stripped, goes through the stages instead ({@link #FALLBACK}).
 */
final class BertFastPath {
    /** What {@link #tokenize} did with a piece: all of it, stopped at the sink's limit, or nothing (run the stages). */
    static final int DONE = 0;
    static final int STOPPED = 1;
    static final int FALLBACK = 2;

    private static final byte WORD = 0;
    private static final byte SPACE = 1;
    private static final byte PUNCT = 2;
    private static final byte DROP = 3;
    /** With clean_text on, the class of each ASCII character, so the common case is one table load. */
    private static final byte[] ASCII = new byte[128];

    static {
        for (int c = 0; c < 128; c++) {
            ASCII[c] = dropped(c) ? DROP : Unicode.isWhitespace(c) ? SPACE : Unicode.isPunctuation(c) ? PUNCT : WORD;
        }
    }

    private final WordPieceModel model;
    private final boolean cleanText;
    private final boolean chinese;
    private final boolean stripAccents;
    private final boolean lowercase;

    private BertFastPath(WordPieceModel model, BertNormalizer n) {
        this.model = model;
        this.cleanText = n.cleanText();
        this.chinese = n.handleChineseChars();
        this.stripAccents = n.stripAccents() == null ? n.lowercase() : n.stripAccents();
        this.lowercase = n.lowercase();
    }

    /** The fast path for these stages, or null when they are not BERT's (or added tokens are matched in normalised text). */
    static BertFastPath of(Normalizer normalizer, PreTokenizer preTokenizer, Model model, boolean normalizedAddedTokens) {
        if (normalizer instanceof BertNormalizer n && preTokenizer instanceof PreTokenizer.Bert
                && model instanceof WordPieceModel wp && !normalizedAddedTokens) {
            return new BertFastPath(wp, n);
        }
        return null;
    }

    /** What clean_text drops: NUL, U+FFFD and control characters. */
    private static boolean dropped(int cp) {
        return cp == 0 || cp == 0xFFFD || Unicode.isControl(cp);
    }

    /** Per-call scratch: the word's normalised UTF-16 units and each one's original span; grows past 16 for longer words. */
    static final class Word {
        char[] chars = new char[16];
        int[] starts = new int[16];
        int[] ends = new int[16];
        int length;
        /** Whether the word holds a surrogate pair, so that pieces must not cut one. */
        boolean surrogates;

        void add(char c, int start, int end) {
            if (length == chars.length) {
                chars = Arrays.copyOf(chars, length * 2);
                starts = Arrays.copyOf(starts, length * 2);
                ends = Arrays.copyOf(ends, length * 2);
            }
            chars[length] = c;
            starts[length] = start;
            ends[length++] = end;
        }

        void addCodePoint(int cp, int start, int end) {
            if (Character.isBmpCodePoint(cp)) {
                add((char) cp, start, end);
            } else {
                surrogates = true;
                add(Character.highSurrogate(cp), start, end);
                add(Character.lowSurrogate(cp), start, end);
            }
        }
    }

    /**
     * Tokenizes {@code s[from, to)} into the sink's tokens, word by word: {@link #DONE}, {@link #STOPPED}
     * when the sink wants no more words, or {@link #FALLBACK}, with nothing added, when the piece must go
     * through the stages.
     */
    int tokenize(String s, int from, int to, Word w, TokenSink sink) {
        int tokensMark = sink.out.size;
        int wordsMark = sink.words();
        w.length = 0;
        w.surrogates = false;
        boolean ascii = cleanText;
        for (int i = from; i < to; ) {
            char c = s.charAt(i);
            if (c < 128 && ascii) {
                switch (ASCII[c]) {
                    case WORD -> w.add(lowercase && c >= 'A' && c <= 'Z' ? (char) (c + 32) : c, i, i + 1);
                    case SPACE -> {
                        if (endWord(w, sink) != DONE) {
                            return STOPPED;
                        }
                    }
                    case PUNCT -> {
                        if (endWord(w, sink) != DONE) {
                            return STOPPED;
                        }
                        w.add(c, i, i + 1);
                        if (endWord(w, sink) != DONE) {
                            return STOPPED;
                        }
                    }
                    default -> { } // dropped
                }
                i++;
                continue;
            }
            int cp = s.codePointAt(i);
            int end = i + Character.charCount(cp);
            int r = DONE;
            if (cleanText && dropped(cp)) {
                // dropped
            } else if (Unicode.isWhitespace(cp)) {
                r = endWord(w, sink);
            } else if (chinese && Unicode.isCjkIdeograph(cp)) {
                r = endWord(w, sink);
                r = r == DONE ? normalize(cp, i, end, w, sink) : r;
                r = r == DONE ? endWord(w, sink) : r;
            } else {
                r = normalize(cp, i, end, w, sink);
            }
            if (r == FALLBACK) {
                sink.out.size = tokensMark;
                sink.rewind(wordsMark);
                return FALLBACK;
            }
            if (r == STOPPED) {
                return STOPPED;
            }
            i = end;
        }
        return endWord(w, sink);
    }

    /** Strips accents (NFD, then no Mn) and lowercases one character, in BertNormalizer's order. */
    private int normalize(int cp, int start, int end, Word w, TokenSink sink) {
        if (stripAccents && cp >= 0xC0) {
            // No character below U+00C0 has a canonical decomposition.
            String decomposed = java.text.Normalizer.normalize(Character.toString(cp), java.text.Normalizer.Form.NFD);
            for (int k = 0; k < decomposed.length(); ) {
                int d = decomposed.codePointAt(k);
                k += Character.charCount(d);
                int type = Character.getType(d);
                if (type == Character.NON_SPACING_MARK) {
                    continue;
                }
                if (type == Character.COMBINING_SPACING_MARK && Reordered.MARKS.get(d)) {
                    return FALLBACK;
                }
                int r = lowercased(d, start, end, w, sink);
                if (r != DONE) {
                    return r;
                }
            }
            return DONE;
        }
        return lowercased(cp, start, end, w, sink);
    }

    /**
     * The spacing marks (Mc) with a combining class, which NFD reorders against the marks around them: then
     * what is left once the non-spacing marks are dropped can differ from character-by-character NFD, and the
     * piece goes through the stages. Found once, on first need: NFD moves U+0334 (class 1) before exactly these.
     */
    private static final class Reordered {
        static final java.util.BitSet MARKS = find();

        private static java.util.BitSet find() {
            java.util.BitSet marks = new java.util.BitSet();
            for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
                if (Character.getType(cp) == Character.COMBINING_SPACING_MARK
                        && java.text.Normalizer.normalize(Character.toString(cp) + "\u0334",
                                java.text.Normalizer.Form.NFD).charAt(0) == '\u0334') {
                    marks.set(cp);
                }
            }
            return marks;
        }
    }

    private int lowercased(int cp, int start, int end, Word w, TokenSink sink) {
        if (!lowercase) {
            return split(cp, start, end, w, sink);
        }
        if (cp == 0x130) {
            // The one unconditional lowercase mapping to two characters (Unicode.lowercase): İ to i and U+0307.
            int r = split('i', start, end, w, sink);
            return r == DONE ? split(0x307, start, end, w, sink) : r;
        }
        return split(Character.toLowerCase(cp), start, end, w, sink);
    }

    /** BertPreTokenizer on a normalised character: whitespace ends the word, punctuation is a word of its own. */
    private int split(int cp, int start, int end, Word w, TokenSink sink) {
        if (Unicode.isWhitespace(cp)) {
            return endWord(w, sink);
        }
        if (Unicode.isPunctuation(cp)) {
            if (endWord(w, sink) != DONE) {
                return STOPPED;
            }
            w.addCodePoint(cp, start, end);
            return endWord(w, sink);
        }
        w.addCodePoint(cp, start, end);
        return DONE;
    }

    /** WordPiece over the word, which is then emptied: {@link #STOPPED} when the sink wants no more words. */
    private int endWord(Word w, TokenSink sink) {
        if (w.length == 0) {
            return DONE;
        }
        int before = sink.out.size;
        model.tokenize(w.chars, w.length, w.starts, w.ends, w.surrogates, sink.out);
        w.length = 0;
        w.surrogates = false;
        return sink.word(before) ? STOPPED : DONE;
    }
}
