package org.vectorbert.tokenizer.pipeline;

import java.text.Normalizer.Form;

/**
 * NFC, NFD, NFKC and NFKD with alignments, as the tokenizers library's come out. The text is
 * normalised a segment at a time (a code point and the combining marks after it). Decomposed (NFD,
 * NFKD), each input code point's first output replaces it and the others are inserted after it,
 * and canonical reordering moves them with those roles, so a replacing one takes the next input
 * code point's span and an inserted one its predecessor's ("어" + U+0301 gives ᄋ and ᅥ the span of
 * 어; "ḋ" + U+0323 gives U+0323 its own span and the dot above, reordered after it, the same).
 * Composed (NFC, NFKC), the first output code points replace the input's one for one, extra ones
 * are inserted and a shorter output drops the rest. When segment-wise normalisation would differ
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
        boolean decomposed = form == Form.NFD || form == Form.NFKD;
        int from = 0;
        for (int k = 0; k < outputs.size(); k++) {
            int end = bounds.get(k);
            if (!decomposed || !decomposed(e, s.substring(from, end), outputs.get(k), form)) {
                segment(e, end, outputs.get(k));
            }
            from = end;
        }
        return e.done();
    }

    /**
     * Writes a decomposed segment: each output code point is matched to the earliest unused one of the
     * input code points' own decompositions (reordering is stable, so equal ones keep their order) and
     * replaces the next input code point if it was first in its decomposition, else is inserted. False,
     * with nothing written, when the outputs do not match up (then the segment is mapped one for one).
     */
    private static boolean decomposed(Normalized.Edit e, String in, String out, Form form) {
        if (in.codePointCount(0, in.length()) == 1) {
            return false;  // one for one is the same
        }
        int[] pool = in.codePoints().flatMap(cp -> {
            int[] d = java.text.Normalizer.normalize(Character.toString(cp), form).codePoints().toArray();
            d[0] |= FIRST;
            return java.util.Arrays.stream(d);
        }).toArray();
        int[] outs = out.codePoints().toArray();
        if (outs.length != pool.length) {
            return false;
        }
        boolean[] firsts = new boolean[outs.length];
        for (int k = 0; k < outs.length; k++) {
            int match = -1;
            for (int j = 0; j < pool.length && match < 0; j++) {
                if (pool[j] >= 0 && (pool[j] & ~FIRST) == outs[k]) {
                    match = j;
                }
            }
            if (match < 0) {
                return false;
            }
            firsts[k] = (pool[match] & FIRST) != 0;
            pool[match] = -1;
        }
        for (int k = 0; k < outs.length; k++) {
            if (firsts[k]) {
                e.keep(outs[k]);
            } else {
                e.insert(outs[k]);
            }
        }
        return true;
    }

    /** Marks a code point first in its decomposition (above every code point, below the sign bit). */
    private static final int FIRST = 1 << 24;

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
