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
}
