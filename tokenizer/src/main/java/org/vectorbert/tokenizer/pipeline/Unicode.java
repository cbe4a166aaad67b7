package org.vectorbert.tokenizer.pipeline;

import java.util.Locale;
import java.util.regex.Pattern;

/** Character classes as Rust (and so the tokenizers library) defines them, which Java's own predicates do not match. */
public final class Unicode {
    private Unicode() {}

    /** Compiled on first use (added tokens marked single_word), not with the class every tokenizer loads. */
    private static final class WordChar {
        static final Pattern PATTERN = Pattern.compile("\\w", Pattern.UNICODE_CHARACTER_CLASS);
    }

    /** Unicode White_Space, Rust's {@code char::is_whitespace} (Java's isWhitespace misses U+0085, U+00A0, U+2007, U+202F). */
    public static boolean isWhitespace(int c) {
        return switch (c) {
            case '\t', '\n', 0x0B, 0x0C, '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000 -> true;
            default -> c >= 0x2000 && c <= 0x200A;
        };
    }

    /**
     * BertNormalizer's control set: Cc, Cf, Co (and Cs) except tab, LF and CR. Unassigned code points (Cn)
     * are kept, as the tokenizers library keeps them (Python's slow BertTokenizer drops them).
     */
    public static boolean isControl(int c) {
        if (c == '\t' || c == '\n' || c == '\r') {
            return false;
        }
        return switch (Character.getType(c)) {
            case Character.CONTROL, Character.FORMAT, Character.PRIVATE_USE, Character.SURROGATE -> true;
            default -> false;
        };
    }

    /** ASCII punctuation and symbols, and every Unicode P* category (BERT's and the Punctuation pre-tokenizer's). */
    public static boolean isPunctuation(int c) {
        if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
            return true;
        }
        return switch (Character.getType(c)) {
            case Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION, Character.START_PUNCTUATION,
                 Character.END_PUNCTUATION, Character.INITIAL_QUOTE_PUNCTUATION,
                 Character.FINAL_QUOTE_PUNCTUATION, Character.OTHER_PUNCTUATION -> true;
            default -> false;
        };
    }

    /** Rust's {@code char::is_numeric}: Nd, Nl and No. */
    public static boolean isNumeric(int c) {
        int t = Character.getType(c);
        return t == Character.DECIMAL_DIGIT_NUMBER || t == Character.LETTER_NUMBER || t == Character.OTHER_NUMBER;
    }

    public static boolean isNonSpacingMark(int c) {
        return Character.getType(c) == Character.NON_SPACING_MARK;
    }

    /** Mn, Mc and Me: what StripAccents removes. */
    public static boolean isMark(int c) {
        int t = Character.getType(c);
        return t == Character.NON_SPACING_MARK || t == Character.COMBINING_SPACING_MARK || t == Character.ENCLOSING_MARK;
    }

    /** The CJK ideograph blocks BertNormalizer surrounds with spaces. */
    public static boolean isCjkIdeograph(int c) {
        return (c >= 0x4E00 && c <= 0x9FFF)
                || (c >= 0x3400 && c <= 0x4DBF)
                || (c >= 0x20000 && c <= 0x2A6DF)
                || (c >= 0x2A700 && c <= 0x2B73F)
                || (c >= 0x2B740 && c <= 0x2B81F)
                || (c >= 0x2B820 && c <= 0x2CEAF)
                || (c >= 0xF900 && c <= 0xFAFF)
                || (c >= 0x2F800 && c <= 0x2FA1F);
    }

    /** A regex {@code \w} character (Unicode), for added tokens' single_word check. */
    public static boolean isWordChar(int c) {
        if (c < 128) {
            return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        }
        return WordChar.PATTERN.matcher(Character.toString(c)).matches();
    }

    /**
     * Rust's {@code char::to_lowercase}: the full mapping of one code point, without context
     * (Σ is always σ), which String.toLowerCase on a single code point gives.
     */
    public static String lowercase(int c) {
        if (c < 128) {
            return String.valueOf((char) (c >= 'A' && c <= 'Z' ? c + 32 : c));
        }
        return Character.toString(c).toLowerCase(Locale.ROOT);
    }
}
