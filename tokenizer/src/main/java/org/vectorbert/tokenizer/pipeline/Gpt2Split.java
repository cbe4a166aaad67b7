package org.vectorbert.tokenizer.pipeline;

/**
 * GPT-2's pre-tokenizer regex, {@code 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+},
 * written out by hand: java.util.regex backtracks through the alternatives at every word, a
 * large share of the byte-level BPE pipeline's time. Every code point is matched by some alternative, so the matches tile the text and
 * one match ends where the next starts. {@code \s} is Unicode White_Space, as the regex's
 * UNICODE_CHARACTER_CLASS flag and the tokenizers library's Oniguruma both read it;
 * Gpt2SplitTest checks this against the regex.
 */
final class Gpt2Split {
    static final byte OTHER = 0;
    static final byte LETTER = 1;
    static final byte NUMBER = 2;
    static final byte SPACE = 3;

    private static final byte[] ASCII = new byte[128];

    static {
        for (int c = 0; c < 128; c++) {
            ASCII[c] = classify(c);
        }
    }

    private Gpt2Split() {}

    /** The class of a code point: \p{L}, \p{N}, \s or anything else. */
    static byte kind(int cp) {
        return cp < 128 ? ASCII[cp] : classify(cp);
    }

    private static byte classify(int cp) {
        if (Unicode.isWhitespace(cp)) {
            return SPACE;
        }
        return switch (Character.getType(cp)) {
            case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
                 Character.MODIFIER_LETTER, Character.OTHER_LETTER -> LETTER;
            case Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER -> NUMBER;
            default -> OTHER;
        };
    }

    /** The class of the code point at {@code s[i]}. */
    private static byte kindAt(String s, int i) {
        char c = s.charAt(i);
        return c < 128 ? ASCII[c] : classify(s.codePointAt(i));
    }

    /** Where the code point at {@code s[i]} ends. */
    private static int next(String s, int i, int to) {
        return Character.isHighSurrogate(s.charAt(i)) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))
                ? i + 2 : i + 1;
    }

    /** The end of the match that starts at {@code s[i]}, {@code i < to = s.length()}. */
    static int matchEnd(String s, int i) {
        int to = s.length();
        char c = s.charAt(i);
        if (c == '\'' && i + 1 < to) {
            char a = s.charAt(i + 1);
            if (a == 's' || a == 't' || a == 'm' || a == 'd') {
                return i + 2;
            }
            if (i + 2 < to) {
                char b = s.charAt(i + 2);
                if (((a == 'r' || a == 'v') && b == 'e') || (a == 'l' && b == 'l')) {
                    return i + 3;
                }
            }
        }
        int j = i;
        byte kind = kindAt(s, i);
        if (c == ' ' && i + 1 < to) {
            byte after = kindAt(s, i + 1);
            if (after != SPACE) {
                // " ?\p{L}+", " ?\p{N}+" or " ?[^\s\p{L}\p{N}]+" with its space.
                kind = after;
                j = i + 1;
            }
        }
        j = next(s, j, to);
        while (j < to && kindAt(s, j) == kind) {
            j = next(s, j, to);
        }
        if (kind != SPACE || j == to || j - i == 1) {
            return j;
        }
        // "\s+(?!\S)" gives back the last space to the word after it; whitespace is never a surrogate pair.
        return j - 1;
    }
}
