package org.vectorbert.tokenizer;

import org.vectorbert.tokenizer.pipeline.Unicode;

/**
 * Character predicates of BERT's text normalisation, with the definitions Hugging Face's
 * {@code tokenizers} library (BertNormalizer, BertPreTokenizer) uses.
 */
final class CharClass {
    private CharClass() {}

    static final byte WORD = 0;
    static final byte SPACE = 1;
    static final byte PUNCT = 2;
    static final byte DROP = 3;

    /** Class of each ASCII code point, so the common case is one table load. */
    private static final byte[] ASCII = new byte[128];

    static {
        for (int c = 0; c < 128; c++) {
            ASCII[c] = isWhitespace(c) && !isControl(c) ? SPACE
                    : isControl(c) || c == 0 ? DROP
                    : isPunctuation(c) ? PUNCT
                    : WORD;
        }
    }

    static byte ascii(int c) {
        return ASCII[c];
    }

    /** Unicode White_Space, as Rust's {@code char::is_whitespace}; tab, LF and CR included. */
    static boolean isWhitespace(int c) {
        return switch (c) {
            case '\t', '\n', 0x0B, 0x0C, '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
            default -> c >= 0x2000 && c <= 0x200A;
        };
    }

    /**
     * Categories Cc, Cf, Co (and Cs), except tab, LF and CR, which count as whitespace. Unassigned
     * code points (Cn) are kept, as the tokenizers library does (Python's slow BertTokenizer drops them).
     */
    static boolean isControl(int c) {
        if (c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.PRIVATE_USE, Character.SURROGATE -> true;
            default -> false;
        };
    }

    /** ASCII non-alphanumeric symbols (BERT treats "$", "^", "`" as punctuation) and every Unicode P* category. */
    static boolean isPunctuation(int c) {
        return Unicode.isPunctuation(c);
    }

    /** The CJK Unified Ideograph blocks BERT surrounds with spaces (not Hangul, Hiragana or Katakana). */
    static boolean isCjkIdeograph(int c) {
        return (c >= 0x4E00 && c <= 0x9FFF)
                || (c >= 0x3400 && c <= 0x4DBF)
                || (c >= 0x20000 && c <= 0x2A6DF)
                || (c >= 0x2A700 && c <= 0x2B73F)
                || (c >= 0x2B740 && c <= 0x2B81F)
                || (c >= 0x2B820 && c <= 0x2CEAF)
                || (c >= 0xF900 && c <= 0xFAFF)
                || (c >= 0x2F800 && c <= 0x2FA1F);
    }
}
