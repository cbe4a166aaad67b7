package org.vectorbert.tokenizer.pipeline;

import java.util.List;
import org.vectorbert.tokenizer.pipeline.SplitPattern.Behavior;

/**
 * SentencePiece's whitespace handling ({@code Metaspace}): every space becomes the replacement
 * (▁), a replacement goes before the piece (always, only before the text's first piece, or
 * never), and the piece is split before each replacement.
 */
public record Metaspace(int replacement, Prepend prepend, boolean split) implements PreTokenizer {
    public enum Prepend { ALWAYS, FIRST, NEVER }

    @Override
    public List<Normalized> split(Normalized piece) {
        String rep = Character.toString(replacement);
        piece = Normalizer.replace(piece, SplitPattern.literal(" "), rep);
        boolean add = switch (prepend) {
            case ALWAYS -> true;
            case FIRST -> piece.originalStart() == 0;
            case NEVER -> false;
        };
        if (add && !piece.text().startsWith(rep)) {
            piece = Normalizer.prepend(piece, rep);
        }
        if (!split) {
            return piece.isEmpty() ? List.of() : List.of(piece);
        }
        return SplitPattern.split(piece, SplitPattern.matches(piece.text(), c -> c == replacement),
                Behavior.MERGED_WITH_NEXT, false);
    }

    /** {@link #split}'s words, written into the path's scratch word one by one; false when the path stopped. */
    boolean words(Normalized piece, WordPath path) {
        String s = piece.text();
        int n = s.length();
        if (n == 0) {
            return true;
        }
        WordChars w = path.word;
        int first = s.codePointAt(0);
        boolean add = switch (prepend) {
            case ALWAYS -> true;
            case FIRST -> piece.originalStart() == 0;
            case NEVER -> false;
        };
        if (add && first != ' ' && first != replacement) {
            // Normalizer.prepend's alignment: the replacement spans the first character.
            w.addCodePoint(replacement, piece.startOf(0), piece.endOf(0));
        }
        // Unchanged text (no normalizer change, no surrogates) spans unit i with [base + i, base + i + 1).
        int base = piece.isIdentity() ? piece.originalStart() : -1;
        for (int i = 0; i < n; ) {
            char ch = s.charAt(i);
            if (base >= 0 && ch != ' ' && ch != replacement) {
                // Most units: written in place with the running hash, not through WordChars.addCodePoint
                // (a code point, spans from the piece and a call per unit), which is slower.
                w.reserve(1);
                w.hash = w.hash * 31 + ch;
                w.chars[w.length] = ch;
                w.starts[w.length] = base + i;
                w.ends[w.length++] = base + i + 1;
                i++;
                continue;
            }
            int cp = s.codePointAt(i);
            int c = cp == ' ' ? replacement : cp;
            if (split && c == replacement && w.length > 0 && !path.flush()) {
                return false;
            }
            // A replaced space keeps its own span, as Normalizer.replace aligns it.
            w.addCodePoint(c, piece.startOf(i), piece.endOf(i));
            i += Character.charCount(cp);
        }
        return path.flush();
    }
}
