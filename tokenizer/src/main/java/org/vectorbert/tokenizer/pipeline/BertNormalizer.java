package org.vectorbert.tokenizer.pipeline;

/**
 * {@code BertNormalizer}: drop NUL, U+FFFD and controls and turn whitespace into spaces, put
 * spaces around CJK ideographs, strip accents (NFD, then no Mn) and lowercase, in that order.
 *
 * @param stripAccents null follows {@code lowercase}, as in the tokenizers library
 */
public record BertNormalizer(boolean cleanText, boolean handleChineseChars, Boolean stripAccents, boolean lowercase)
        implements Normalizer {
    @Override
    public Normalized normalize(Normalized text) {
        if (isAscii(text.text())) {
            return ascii(text);
        }
        if (cleanText) {
            Normalized.Edit e = text.edit();
            while (e.hasNext()) {
                int cp = e.peek();
                if (cp == 0 || cp == 0xFFFD || Unicode.isControl(cp)) {
                    e.drop();
                } else {
                    e.keep(Unicode.isWhitespace(cp) ? ' ' : cp);
                }
            }
            text = e.done();
        }
        if (handleChineseChars) {
            Normalized.Edit e = text.edit();
            while (e.hasNext()) {
                int cp = e.peek();
                if (Unicode.isCjkIdeograph(cp)) {
                    e.keep(' ').insert(cp).insert(' ');
                } else {
                    e.keep();
                }
            }
            text = e.done();
        }
        if (stripAccents == null ? lowercase : stripAccents) {
            text = Normalizer.filter(UnicodeForms.apply(text, java.text.Normalizer.Form.NFD), true);
        }
        return lowercase ? Normalizer.lowercase(text) : text;
    }

    private static boolean isAscii(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    /**
     * The four steps in one pass for ASCII text, where no character is a CJK ideograph or has an
     * accent to strip and lowercasing maps one character to one; the text itself when nothing
     * changes (for pipelines the BertFastPath does not take: normalised added tokens, other stages around it).
     */
    private Normalized ascii(Normalized text) {
        String s = text.text();
        boolean changes = false;
        for (int i = 0; i < s.length() && !changes; i++) {
            char c = s.charAt(i);
            changes = (cleanText && (c < 0x20 || c == 0x7f)) || (lowercase && c >= 'A' && c <= 'Z');
        }
        if (!changes) {
            return text;
        }
        Normalized.Edit e = text.edit();
        while (e.hasNext()) {
            int c = e.peek();
            if (cleanText && (c == 0 || Unicode.isControl(c))) {
                e.drop();
                continue;
            }
            if (cleanText && Unicode.isWhitespace(c)) {
                c = ' ';
            }
            e.keep(lowercase && c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        return e.done();
    }
}
