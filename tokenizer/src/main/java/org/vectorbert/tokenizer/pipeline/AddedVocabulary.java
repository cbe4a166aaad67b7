package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The file's {@code added_tokens}, found in text before the model runs: tokens with
 * {@code normalized: false} in the raw text, the others in the normalised text (their content
 * normalised too). At each position the longest token wins, leftmost first, matches never
 * overlap; a single_word token next to a word character is not taken (and its match is still
 * consumed, as the library's Aho-Corasick iteration does); lstrip and rstrip take the adjacent
 * whitespace into the token's span.
 */
public final class AddedVocabulary {
    /** One added token. */
    public record AddedToken(int id, String content, boolean singleWord, boolean lstrip, boolean rstrip,
                             boolean normalized, boolean special) {}

    /** A piece of text and, if it is an added token, its id and token string. */
    public record Segment(Normalized piece, int id, String value) {}

    private final List<AddedToken> tokens;
    private final Map<Character, List<Candidate>> raw = new HashMap<>();
    private final Map<Character, List<Candidate>> normalized = new HashMap<>();
    private final java.util.BitSet rawFirsts = new java.util.BitSet();
    private final java.util.BitSet normalizedFirsts = new java.util.BitSet();
    /** The raw tokens' first characters when there are at most four of them (special tokens share '<' or '['), else null. */
    private final char[] fewRawFirsts;

    private record Candidate(String pattern, AddedToken token) {}

    /** Longest first (stable), so the first that matches at a position is the longest. */
    private static final Comparator<Candidate> LONGEST_FIRST = new Comparator<>() {
        @Override
        public int compare(Candidate a, Candidate b) {
            return b.pattern().length() - a.pattern().length();
        }
    };

    /** Plain loops, no lambdas: each lambda's first use spins classes, milliseconds of every tokenizer's first load. */
    public AddedVocabulary(List<AddedToken> tokens, Normalizer normalizer) {
        this.tokens = List.copyOf(tokens);
        for (AddedToken t : tokens) {
            if (t.content().isEmpty()) {
                continue;
            }
            String pattern = t.content();
            if (t.normalized() && normalizer != null) {
                pattern = normalizer.normalize(Normalized.of(pattern, 0, pattern.length())).text();
                if (pattern.isEmpty()) {
                    continue;
                }
            }
            Map<Character, List<Candidate>> byFirst = t.normalized() ? normalized : raw;
            List<Candidate> list = byFirst.get(pattern.charAt(0));
            if (list == null) {
                list = new ArrayList<>();
                byFirst.put(pattern.charAt(0), list);
            }
            list.add(new Candidate(pattern, t));
        }
        for (Map<Character, List<Candidate>> byFirst : List.of(raw, normalized)) {
            for (List<Candidate> list : byFirst.values()) {
                list.sort(LONGEST_FIRST);
            }
        }
        for (char c : raw.keySet()) {
            rawFirsts.set(c);
        }
        for (char c : normalized.keySet()) {
            normalizedFirsts.set(c);
        }
        if (raw.size() <= 4) {
            fewRawFirsts = new char[raw.size()];
            int k = 0;
            for (char c : raw.keySet()) {
                fewRawFirsts[k++] = c;
            }
        } else {
            fewRawFirsts = null;
        }
    }

    public List<AddedToken> tokens() {
        return tokens;
    }

    /** Whether some token is matched in normalised text (so text must be normalised before the last search). */
    public boolean hasNormalizedTokens() {
        return !normalized.isEmpty();
    }

    /** Whether no raw-matched token can start anywhere in {@code text} (then {@link #nextRaw} finds none). */
    public boolean noRawTokenIn(String text) {
        if (fewRawFirsts != null) {
            // String.indexOf scans with vector instructions, much faster than a bit set lookup per character.
            for (char c : fewRawFirsts) {
                if (text.indexOf(c) >= 0) {
                    return false;
                }
            }
            return true;
        }
        for (int i = 0; i < text.length(); i++) {
            if (rawFirsts.get(text.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Splits a text: raw-matched tokens first, the rest normalised, then normalised tokens. */
    public List<Segment> split(String text, Normalizer normalizer) {
        if (normalized.isEmpty() && noRawTokenIn(text)) {
            // No token can be found (most texts): the text whole, without the search's copy of it as a slice.
            Normalized piece = Normalized.of(text, 0, text.length());
            return List.of(new Segment(normalizer == null ? piece : normalizer.normalize(piece), -1, null));
        }
        List<Segment> out = new ArrayList<>();
        for (Segment s : find(Normalized.of(text, 0, text.length()), raw)) {
            if (s.id() >= 0) {
                out.add(s);
            } else {
                Normalized n = normalizer == null ? s.piece() : normalizer.normalize(s.piece());
                out.addAll(find(n, normalized));
            }
        }
        return out;
    }

    private java.util.BitSet firsts(Map<Character, List<Candidate>> candidates) {
        return candidates == raw ? rawFirsts : normalizedFirsts;
    }

    /** An added token found in a text: its span, lstrip and rstrip whitespace included, and where the search goes on. */
    record Match(int start, int stop, int resume, AddedToken token) {}

    /**
     * The first token matched in raw text at or after {@code from} (see {@link #next}), or null;
     * {@code done} is where the previous match stopped (0 for none).
     */
    Match nextRaw(String text, int from, int done) {
        return raw.isEmpty() ? null : next(text, from, done, raw);
    }

    private List<Segment> find(Normalized piece, Map<Character, List<Candidate>> candidates) {
        String s = piece.text();
        if (candidates.isEmpty() || s.isEmpty()) {
            return List.of(new Segment(piece, -1, null));
        }
        List<Segment> out = new ArrayList<>();
        int done = 0;
        for (Match m = next(s, 0, 0, candidates); m != null; m = next(s, m.resume(), m.stop(), candidates)) {
            if (done < m.start()) {
                out.add(new Segment(piece.slice(done, m.start()), -1, null));
            }
            out.add(new Segment(piece.slice(m.start(), m.stop()), m.token().id(), s.substring(m.start(), m.stop())));
            done = m.stop();
        }
        if (done < s.length()) {
            out.add(new Segment(piece.slice(done, s.length()), -1, null));
        }
        return out;
    }

    /** The next match at or after {@code i}; a match's lstrip never reaches back before {@code done}. */
    private Match next(String s, int i, int done, Map<Character, List<Candidate>> candidates) {
        java.util.BitSet firsts = firsts(candidates);
        while (i < s.length()) {
            // Most characters start no token: a char lookup in a bit set before boxing a Character key.
            if (!firsts.get(s.charAt(i))) {
                i++;
                continue;
            }
            List<Candidate> list = candidates.get(s.charAt(i));
            Candidate hit = null;
            if (list != null) {
                for (Candidate c : list) {
                    if (s.startsWith(c.pattern(), i)) {
                        hit = c;
                        break;
                    }
                }
            }
            if (hit == null) {
                i++;
                continue;
            }
            int start = i;
            int stop = i + hit.pattern().length();
            i = stop;
            AddedToken t = hit.token();
            if (t.singleWord()) {
                boolean before = start > 0 && Unicode.isWordChar(s.codePointBefore(start));
                boolean after = stop < s.length() && Unicode.isWordChar(s.codePointAt(stop));
                if (before || after) {
                    continue;
                }
            }
            if (t.lstrip()) {
                int k = start;
                while (k > 0 && Unicode.isWhitespace(s.codePointBefore(k))) {
                    k -= Character.charCount(s.codePointBefore(k));
                }
                start = Math.max(k, done);
            }
            if (t.rstrip()) {
                while (stop < s.length() && Unicode.isWhitespace(s.codePointAt(stop))) {
                    stop += Character.charCount(s.codePointAt(stop));
                }
            }
            return new Match(start, stop, Math.max(i, stop), t);
        }
        return null;
    }
}
