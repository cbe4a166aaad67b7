package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * What a Split, Replace or added-token stage looks for: a literal ({@code {"String": ...}}) or a
 * regex ({@code {"Regex": ...}}, Oniguruma syntax in the tokenizers library, compiled here with
 * Java's engine in Unicode mode: the constructs tokenizer files use, classes, {@code \p{L}},
 * lookahead, mean the same in both).
 */
public record SplitPattern(Pattern regex) {
    public static SplitPattern literal(String text) {
        return new SplitPattern(Pattern.compile(Pattern.quote(text)));
    }

    public static SplitPattern regex(String onig, String where) {
        try {
            return new SplitPattern(Pattern.compile(onig, Pattern.UNICODE_CHARACTER_CLASS));
        } catch (PatternSyntaxException e) {
            throw new TokenizerException(where + ": regex " + onig + " does not compile: " + e.getDescription());
        }
    }

    /**
     * Text every match contains, or null when this pattern is not one whose matches are easily known:
     * a literal, or one plain character repeated at least n times ({@code " {2,}"}, which SentencePiece
     * conversions put in a Replace). A text without it has no match, and the regex need not scan it:
     * the scan was 7% of the unigram-xlmr pipeline's time on the license texts, where 88% of the lines
     * have no double space.
     */
    String requiredText() {
        String p = regex.pattern();
        if (p.startsWith("\\Q") && p.endsWith("\\E") && p.indexOf("\\E") == p.length() - 2 && p.length() > 4) {
            return p.substring(2, p.length() - 2);
        }
        int brace = p.indexOf('{');
        if (brace != 1 || !p.endsWith(",}") || "\\.[]{}()*+?^$|".indexOf(p.charAt(0)) >= 0
                || Character.isSurrogate(p.charAt(0))) {
            return null;
        }
        int n = 0;
        for (int i = 2; i < p.length() - 2; i++) {
            char c = p.charAt(i);
            if (c < '0' || c > '9' || n > 100) {
                return null;
            }
            n = n * 10 + (c - '0');
        }
        return n > 0 && n <= 100 && p.length() > 4 ? String.valueOf(p.charAt(0)).repeat(n) : null;
    }

    /** How a split treats the delimiters it found. */
    public enum Behavior {
        REMOVED, ISOLATED, MERGED_WITH_PREVIOUS, MERGED_WITH_NEXT, CONTIGUOUS;

        public static Behavior parse(String name, String where) {
            for (Behavior b : values()) {
                if (b.name().replace("_", "").equalsIgnoreCase(name.replace("_", ""))) {
                    return b;
                }
            }
            throw new TokenizerException(where + ": unknown split behavior '" + name + "'");
        }
    }

    /** The pieces of {@code s} as {start, end, isMatch} triples covering it, the library's {@code find_matches}. */
    public List<int[]> matches(String s) {
        List<int[]> out = new ArrayList<>();
        if (s.isEmpty()) {
            out.add(new int[] {0, 0, 0});
            return out;
        }
        var m = regex.matcher(s);
        int prev = 0;
        while (m.find()) {
            if (prev != m.start()) {
                out.add(new int[] {prev, m.start(), 0});
            }
            out.add(new int[] {m.start(), m.end(), 1});
            prev = m.end();
        }
        if (prev != s.length()) {
            out.add(new int[] {prev, s.length(), 0});
        }
        return out;
    }

    /** Each code point for which {@code p} holds is one match. */
    public static List<int[]> matches(String s, IntPredicate p) {
        List<int[]> out = new ArrayList<>();
        int prev = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int end = i + Character.charCount(cp);
            if (p.test(cp)) {
                if (prev != i) {
                    out.add(new int[] {prev, i, 0});
                }
                out.add(new int[] {i, end, 1});
                prev = end;
            }
            i = end;
        }
        if (prev != s.length() || s.isEmpty()) {
            out.add(new int[] {prev, s.length(), 0});
        }
        return out;
    }

    /** Cuts a piece at the matches as the behaviour says, dropping empty pieces (NormalizedString::split). */
    public static List<Normalized> split(Normalized piece, List<int[]> matches, Behavior behavior, boolean invert) {
        if (invert) {
            for (int[] m : matches) {
                m[2] = 1 - m[2];
            }
        }
        List<int[]> spans = new ArrayList<>();
        switch (behavior) {
            case ISOLATED -> matches.forEach(m -> spans.add(new int[] {m[0], m[1], 0}));
            case REMOVED -> spans.addAll(matches);
            case CONTIGUOUS -> {
                boolean previous = false;
                for (int[] m : matches) {
                    boolean match = m[2] == 1;
                    if (match == previous && !spans.isEmpty()) {
                        spans.getLast()[1] = m[1];
                    } else {
                        spans.add(new int[] {m[0], m[1], 0});
                    }
                    previous = match;
                }
            }
            case MERGED_WITH_PREVIOUS -> {
                boolean previous = false;
                for (int[] m : matches) {
                    boolean match = m[2] == 1;
                    if (match && !previous && !spans.isEmpty()) {
                        spans.getLast()[1] = m[1];
                    } else {
                        spans.add(new int[] {m[0], m[1], 0});
                    }
                    previous = match;
                }
            }
            case MERGED_WITH_NEXT -> {
                boolean previous = false;
                for (int k = matches.size() - 1; k >= 0; k--) {
                    int[] m = matches.get(k);
                    boolean match = m[2] == 1;
                    if (match && !previous && !spans.isEmpty()) {
                        spans.getLast()[0] = m[0];
                    } else {
                        spans.add(new int[] {m[0], m[1], 0});
                    }
                    previous = match;
                }
                java.util.Collections.reverse(spans);
            }
        }
        List<Normalized> out = new ArrayList<>(spans.size());
        for (int[] s : spans) {
            if (s[2] == 0 && s[1] > s[0]) {
                out.add(piece.slice(s[0], s[1]));
            }
        }
        return out;
    }
}
