package org.vectorbert.tokenizer.pipeline;

import org.vectorbert.tokenizer.Template;

import java.util.ArrayList;
import java.util.List;

/**
 * A post-processor stage of tokenizer.json: adds the special tokens around one text or a pair
 * and sets type ids. {@link #apply} returns the parts that are then concatenated.
 */
public interface PostProcessor {
    /** How many special tokens {@link #apply} adds to one text or a pair. */
    int added(boolean pair);

    /** Special tokens before the first text, between the texts of a pair, and after the last. */
    Template template();

    List<Tokens> apply(List<Tokens> encodings, boolean addSpecialTokens);

    /** A special token as the template places it. */
    record Special(String token, int id) {}

    /** {@code BertProcessing}: {@code [CLS] A [SEP]}, pair {@code ... B [SEP]} with type 1. */
    record Bert(Special cls, Special sep) implements PostProcessor {
        @Override
        public int added(boolean pair) {
            return pair ? 3 : 2;
        }

        @Override
        public Template template() {
            return new Template(1, 1, 1, 1, 1);
        }

        @Override
        public List<Tokens> apply(List<Tokens> encodings, boolean add) {
            if (!add) {
                return encodings;
            }
            return wrap(encodings, cls, sep, false);
        }
    }

    /** Surrounds A with cls/sep, and B with sep (BERT) or sep/sep (RoBERTa, all type 0). */
    private static List<Tokens> wrap(List<Tokens> encodings, Special cls, Special sep, boolean roberta) {
        List<Tokens> out = new ArrayList<>();
        Tokens a = encodings.get(0);
        out.add(special(cls, 0));
        a.setSequence(0, 0);
        out.add(a);
        out.add(special(sep, 0));
        if (encodings.size() > 1) {
            Tokens b = encodings.get(1);
            int type = roberta ? 0 : 1;
            if (roberta) {
                out.add(special(sep, 0));
            }
            b.setSequence(1, type);
            out.add(b);
            out.add(special(sep, type));
        }
        return out;
    }

    static Tokens special(Special s, int typeId) {
        Tokens t = new Tokens(1);
        t.add(s.id(), s.token(), 0, 0, typeId, 1, -1);
        return t;
    }

    /**
     * {@code RobertaProcessing}: {@code <s> A </s>}, pair {@code <s> A </s></s> B </s>}, every type
     * id 0; offsets trimmed as ByteLevel does, with or without special tokens.
     */
    record Roberta(Special cls, Special sep, boolean trimOffsets, boolean addPrefixSpace) implements PostProcessor {
        @Override
        public int added(boolean pair) {
            return pair ? 4 : 2;
        }

        @Override
        public Template template() {
            return new Template(1, 1, 1, 2, 1);
        }

        @Override
        public List<Tokens> apply(List<Tokens> encodings, boolean add) {
            if (trimOffsets) {
                encodings.forEach(e -> trimByteLevelOffsets(e, addPrefixSpace));
            }
            if (!add) {
                // roberta.rs sets type 0 on the main encodings before it returns without special
                // tokens; their overflow windows keep the type they were encoded with (1 for B).
                for (int i = 0; i < encodings.size(); i++) {
                    Tokens t = encodings.get(i);
                    t.setSequence(i, t.window ? t.typeId(0) : 0);
                }
                return encodings;
            }
            return wrap(encodings, cls, sep, true);
        }
    }

    /** {@code ByteLevel} as a post-processor: only the offset trimming. */
    record ByteLevelTrim(boolean trimOffsets, boolean addPrefixSpace) implements PostProcessor {
        @Override
        public int added(boolean pair) {
            return 0;
        }

        @Override
        public Template template() {
            return new Template(0, 0, 0, 0, 0);
        }

        @Override
        public List<Tokens> apply(List<Tokens> encodings, boolean add) {
            if (trimOffsets) {
                encodings.forEach(e -> trimByteLevelOffsets(e, addPrefixSpace));
            }
            return encodings;
        }
    }

    /**
     * Moves each token's span past its leading and before its trailing spaces (Ġ), keeping the
     * one space add_prefix_space put before the first token. Each Ġ is one space, one UTF-16 unit.
     * The spaces of the model's own token strings come from a table (TokenSpaces) when the tokens
     * carry one, and a span in order (start <= end, as spans are) is moved with min and max, which
     * leave it as it is for a count of 0, instead of branching on whether a token has spaces, which
     * is a coin toss per token: 12 -> 4 ns per token over bpe-roberta's tokens of the license texts.
     */
    static void trimByteLevelOffsets(Tokens t, boolean addPrefixSpace) {
        TokenSpaces spaces = t.spaces;
        int[] starts = t.starts;
        int[] ends = t.ends;
        int prefix = addPrefixSpace ? 1 : 0;
        for (int i = 0; i < t.size; i++) {
            int counted = spaces == null ? -1 : spaces.counts(t.ids[i], t.values[i]);
            int lead = counted >= 0 ? counted >>> 16 : TokenSpaces.lead(t.values[i]);
            int trail = counted >= 0 ? counted & 0xFFFF : TokenSpaces.trail(t.values[i]);
            int start = starts[i];
            int end = ends[i];
            if (start > end) {
                if (lead > 0) {
                    boolean first = i == 0 || start == 0;
                    start = Math.min(start + (first && addPrefixSpace && lead == 1 ? 0 : lead), end);
                }
                if (trail > 0 && end >= trail) {
                    end = Math.max(end - trail, start);
                }
            } else {
                int keep = prefix & (lead == 1 ? 1 : 0) & (i == 0 || start == 0 ? 1 : 0);
                start = Math.min(start + lead * (1 - keep), end);
                end = Math.max(end - (end >= trail ? trail : 0), start);
            }
            starts[i] = start;
            ends[i] = end;
        }
    }

    /** {@code Sequence}: each processor on the parts of the one before. */
    record Sequence(List<PostProcessor> processors) implements PostProcessor {
        @Override
        public int added(boolean pair) {
            int n = 0;
            for (PostProcessor p : processors) {
                n += p.added(pair);
            }
            return n;
        }

        @Override
        public Template template() {
            for (PostProcessor p : processors) {
                if (p.added(true) > 0 || p.added(false) > 0) {
                    return p.template();
                }
            }
            return new Template(0, 0, 0, 0, 0);
        }

        @Override
        public List<Tokens> apply(List<Tokens> encodings, boolean add) {
            for (PostProcessor p : processors) {
                encodings = p.apply(encodings, add);
            }
            return encodings;
        }
    }

    /** No post-processor: the texts as they are, the second with type id 1. */
    record None() implements PostProcessor {
        @Override
        public int added(boolean pair) {
            return 0;
        }

        @Override
        public Template template() {
            return new Template(0, 0, 0, 0, 0);
        }

        @Override
        public List<Tokens> apply(List<Tokens> encodings, boolean add) {
            return encodings;
        }
    }
}
