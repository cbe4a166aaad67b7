package org.vectorbert.tokenizer.pipeline;

import java.text.Normalizer.Form;

/**
 * NFC, NFD, NFKC and NFKD with alignments. The text is normalised a segment at a time (a code
 * point and the combining marks after it); within a segment the first output code points
 * replace the input's one for one, extra ones are inserted, and a shorter output drops the
 * rest, which is how the tokenizers library's alignments come out for single decompositions
 * (é to e + U+0301, ﬁ to f + i) and compositions. When segment-wise normalisation would differ
 * from normalising the whole text (Hangul jamo composing across starters), the whole text is one segment.
 */
final class UnicodeForms {
    private UnicodeForms() {}

    static Normalized apply(Normalized text, Form form) {
        String s = text.text();
        if (java.text.Normalizer.isNormalized(s, form)) {
            return text;
        }
        StringBuilder joined = new StringBuilder(s.length() + 8);
        java.util.List<String> outputs = new java.util.ArrayList<>();
        java.util.List<Integer> bounds = new java.util.ArrayList<>();
        int i = 0;
        while (i < s.length()) {
            int end = i + Character.charCount(s.codePointAt(i));
            while (end < s.length() && Unicode.isMark(s.codePointAt(end))) {
                end += Character.charCount(s.codePointAt(end));
            }
            String out = java.text.Normalizer.normalize(s.substring(i, end), form);
            outputs.add(out);
            bounds.add(end);
            joined.append(out);
            i = end;
        }
        String whole = java.text.Normalizer.normalize(s, form);
        Normalized.Edit e = text.edit();
        if (!whole.contentEquals(joined)) {
            segment(e, s.length(), whole);
            return e.done();
        }
        for (int k = 0; k < outputs.size(); k++) {
            segment(e, bounds.get(k), outputs.get(k));
        }
        return e.done();
    }

    /** Replaces the source up to {@code end} with {@code out}. */
    private static void segment(Normalized.Edit e, int end, String out) {
        int at = 0;
        while (at < out.length()) {
            int cp = out.codePointAt(at);
            at += Character.charCount(cp);
            if (e.position() < end) {
                e.keep(cp);
            } else {
                e.insert(cp);
            }
        }
        while (e.position() < end) {
            e.drop();
        }
    }
}
