package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.vectorbert.tokenizer.pipeline.SplitPattern.Behavior;

/** A pre-tokenizer stage of tokenizer.json: cuts a normalised piece into the words the model sees. */
public interface PreTokenizer {
    /** The non-empty pieces of one piece. */
    List<Normalized> split(Normalized piece);

    /** Applies this stage to every piece. */
    default List<Normalized> splitAll(List<Normalized> pieces) {
        List<Normalized> out = new ArrayList<>(pieces.size() * 2);
        for (Normalized p : pieces) {
            out.addAll(split(p));
        }
        return out;
    }

    /** {@code BertPreTokenizer}: whitespace removed, then each punctuation character on its own. */
    record Bert() implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            List<Normalized> out = new ArrayList<>();
            for (Normalized word : SplitPattern.split(piece,
                    SplitPattern.matches(piece.text(), Unicode::isWhitespace), Behavior.REMOVED, false)) {
                out.addAll(SplitPattern.split(word,
                        SplitPattern.matches(word.text(), Unicode::isPunctuation), Behavior.ISOLATED, false));
            }
            return out;
        }
    }

    /** {@code Whitespace}: keeps the matches of {@code \w+|[^\w\s]+}. */
    record Whitespace() implements PreTokenizer {
        private static final SplitPattern WORDS = new SplitPattern(
                Pattern.compile("\\w+|[^\\w\\s]+", Pattern.UNICODE_CHARACTER_CLASS));

        @Override
        public List<Normalized> split(Normalized piece) {
            return SplitPattern.split(piece, WORDS.matches(piece.text()), Behavior.REMOVED, true);
        }
    }

    /** {@code WhitespaceSplit}: whitespace removed. */
    record WhitespaceSplit() implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            return SplitPattern.split(piece, SplitPattern.matches(piece.text(), Unicode::isWhitespace),
                    Behavior.REMOVED, false);
        }
    }

    /** {@code Punctuation}: punctuation characters split off as the behaviour says. */
    record Punctuation(Behavior behavior) implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            return SplitPattern.split(piece, SplitPattern.matches(piece.text(), Unicode::isPunctuation), behavior, false);
        }
    }

    /** {@code Digits}: each digit alone, or runs of digits. */
    record Digits(boolean individual) implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            return SplitPattern.split(piece, SplitPattern.matches(piece.text(), Unicode::isNumeric),
                    individual ? Behavior.ISOLATED : Behavior.CONTIGUOUS, false);
        }
    }

    /** {@code Split}: a literal or regex, with a behaviour, optionally inverted. */
    record Split(SplitPattern pattern, Behavior behavior, boolean invert) implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            return SplitPattern.split(piece, pattern.matches(piece.text()), behavior, invert);
        }
    }

    /** {@code CharDelimiterSplit}: one character, removed. */
    record CharDelimiter(int delimiter) implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            return SplitPattern.split(piece, SplitPattern.matches(piece.text(), c -> c == delimiter), Behavior.REMOVED, false);
        }
    }

    /** {@code Sequence}: each stage over all pieces of the one before. */
    record Sequence(List<PreTokenizer> stages) implements PreTokenizer {
        @Override
        public List<Normalized> split(Normalized piece) {
            return splitAll(List.of(piece));
        }

        @Override
        public List<Normalized> splitAll(List<Normalized> pieces) {
            for (PreTokenizer p : stages) {
                pieces = p.splitAll(pieces);
            }
            return pieces;
        }
    }
}
