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

    /** The text of a literal pattern ({@link #literal}), or null. */
    String literalText() {
        String p = regex.pattern();
        if (p.startsWith("\\Q") && p.endsWith("\\E") && p.indexOf("\\E") == p.length() - 2 && p.length() > 4) {
            return p.substring(2, p.length() - 2);
        }
        return null;
    }

    /**
     * For a pattern {@code c{n,}} (one plain character c repeated at least n times, n from 1 to 100;
     * {@code " {2,}"}, which SentencePiece conversions put in a Replace): {@code c << 32 | n}. Else -1.
     */
    long run() {
        String p = regex.pattern();
        if (p.length() < 5 || p.indexOf('{') != 1 || !p.endsWith(",}") || "\\.[]{}()*+?^$|".indexOf(p.charAt(0)) >= 0
                || Character.isSurrogate(p.charAt(0))) {
            return -1;
        }
        int n = 0;
        for (int i = 2; i < p.length() - 2; i++) {
            char c = p.charAt(i);
            if (c < '0' || c > '9' || n > 100) {
                return -1;
            }
            n = n * 10 + (c - '0');
        }
        return n > 0 && n <= 100 ? (long) p.charAt(0) << 32 | n : -1;
    }

    /**
     * Where the leftmost match of a {@link #run} pattern starts at or after {@code from} in {@code s}, and
     * (as {@code end << 32 | start}) where it ends: the first {@code needle} (n times c), then as many c
     * as follow. -1 for none.
     */
    static long findRun(String s, String needle, int from) {
        int start = s.indexOf(needle, from);
        if (start < 0) {
            return -1;
        }
        char c = needle.charAt(0);
        int end = start + needle.length();
        while (end < s.length() && s.charAt(end) == c) {
            end++;
        }
        return (long) end << 32 | start;
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
