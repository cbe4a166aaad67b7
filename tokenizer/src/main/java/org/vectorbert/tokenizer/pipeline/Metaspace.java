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
}
