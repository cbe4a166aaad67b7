package org.vectorbert.tokenizer.pipeline;

import java.util.List;
import java.util.regex.Matcher;

/** A normalizer stage of tokenizer.json: rewrites text, keeping every character's original span. */
public interface Normalizer {
    Normalized normalize(Normalized text);

    /** {@code Lowercase}: each code point to its full lowercase mapping; extra code points are inserted. */
    record Lowercase() implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            return lowercase(text);
        }
    }

    static Normalized lowercase(Normalized text) {
        Normalized.Edit e = text.edit();
        while (e.hasNext()) {
            int cp = e.peek();
            String lower = Unicode.lowercase(cp);
            int first = lower.codePointAt(0);
            e.keep(first);
            e.insert(lower.substring(Character.charCount(first)));
        }
        return e.done();
    }

    /** {@code NFC}, {@code NFD}, {@code NFKC}, {@code NFKD}. */
    record UnicodeForm(java.text.Normalizer.Form form) implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            return UnicodeForms.apply(text, form);
        }
    }

    /** {@code StripAccents}: removes every combining mark (Mn, Mc, Me); files put an NFD or NFKD first. */
    record StripAccents() implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            return filter(text, false);
        }
    }

    /** Removes marks: all of M* ({@code nonSpacingOnly} false) or Mn only (BertNormalizer). */
    static Normalized filter(Normalized text, boolean nonSpacingOnly) {
        Normalized.Edit e = text.edit();
        while (e.hasNext()) {
            int cp = e.peek();
            if (nonSpacingOnly ? Unicode.isNonSpacingMark(cp) : Unicode.isMark(cp)) {
                e.drop();
            } else {
                e.keep();
            }
        }
        return e.done();
    }

    /** {@code Strip}: trims Unicode whitespace on either side. */
    record Strip(boolean left, boolean right) implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            String s = text.text();
            int from = 0;
            int to = s.length();
            while (left && from < to && Unicode.isWhitespace(s.codePointAt(from))) {
                from += Character.charCount(s.codePointAt(from));
            }
            while (right && to > from && Unicode.isWhitespace(s.codePointBefore(to))) {
                to -= Character.charCount(s.codePointBefore(to));
            }
            if (from == 0 && to == s.length()) {
                return text;
            }
            Normalized.Edit e = text.edit();
            while (e.position() < from) {
                e.drop();
            }
            while (e.position() < to) {
                e.keep();
            }
            return e.done();
        }
    }

    /** {@code Replace}: every non-overlapping match of the pattern becomes the content, aligned to the match's last character. */
    record Replace(SplitPattern pattern, String content) implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            return replace(text, pattern, content);
        }
    }

    static Normalized replace(Normalized text, SplitPattern pattern, String content) {
        long run = pattern.run();
        if (run >= 0) {
            return replaceRuns(text, (char) (run >>> 32), (int) run, content);
        }
        String literal = pattern.literalText();
        if (literal != null && !text.text().contains(literal)) {
            return text;
        }
        Matcher m = pattern.regex().matcher(text.text());
        if (!m.find()) {
            return text;
        }
        Normalized.Edit e = text.edit();
        do {
            while (e.position() < m.start()) {
                e.keep();
            }
            while (e.position() < m.end()) {
                e.drop();
            }
            e.insert(content);
        } while (m.find());
        e.keepRest();
        return e.done();
    }

    /**
     * {@link #replace} for a pattern {@code c{n,}}, its matches found with String.indexOf instead of
     * java.util.regex, whose scan of every text is a visible share of the pipeline's time: SentencePiece
     * conversions (unigram-xlmr's normalizer) replace " {2,}".
     */
    private static Normalized replaceRuns(Normalized text, char c, int n, String content) {
        String s = text.text();
        // String.indexOf(String) scans with vector instructions (an indexOf(char) per space is slower than the regex).
        String needle = String.valueOf(c).repeat(n);
        long match = SplitPattern.findRun(s, needle, 0);
        if (match < 0) {
            return text;
        }
        Normalized.Edit e = text.edit();
        do {
            int start = (int) match;
            int end = (int) (match >>> 32);
            while (e.position() < start) {
                e.keep();
            }
            while (e.position() < end) {
                e.drop();
            }
            e.insert(content);
            match = SplitPattern.findRun(s, needle, end);
        } while (match >= 0);
        e.keepRest();
        return e.done();
    }

    /** {@code Prepend}: the text goes before a non-empty input, aligned to its first character. */
    record Prepend(String prefix) implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            return prepend(text, prefix);
        }
    }

    static Normalized prepend(Normalized text, String prefix) {
        if (text.isEmpty() || prefix.isEmpty()) {
            return text;
        }
        Normalized.Edit e = text.edit();
        int first = e.peek();
        int p0 = prefix.codePointAt(0);
        e.keep(p0).insert(prefix.substring(Character.charCount(p0))).insert(first);
        return e.keepRest().done();
    }

    /** {@code Sequence}: each in turn. */
    record Sequence(List<Normalizer> normalizers) implements Normalizer {
        @Override
        public Normalized normalize(Normalized text) {
            for (Normalizer n : normalizers) {
                text = n.normalize(text);
            }
            return text;
        }
    }
}
