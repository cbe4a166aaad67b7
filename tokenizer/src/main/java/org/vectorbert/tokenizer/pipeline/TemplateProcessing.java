package org.vectorbert.tokenizer.pipeline;

import org.vectorbert.tokenizer.Template;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code TemplateProcessing}: where special tokens (each one or more ids) and the sequences go,
 * each piece with its type id. A sequence piece retypes its main encoding only; overflow windows
 * keep the type id they were encoded with (0 for the first text, 1 for the second), as in the
 * tokenizers library.
 */
public record TemplateProcessing(List<Piece> single, List<Piece> pair, Map<String, SpecialIds> specials)
        implements PostProcessor {

    /** A template piece: a special token's name, or sequence A (0) or B (1). */
    public record Piece(String special, int sequence, int typeId) {}

    /** A special token's ids and token strings. */
    public record SpecialIds(int[] ids, List<String> tokens) {}

    @Override
    public int added(boolean isPair) {
        int n = 0;
        for (Piece p : isPair ? pair : single) {
            if (p.special() != null) {
                n += specials.get(p.special()).ids().length;
            }
        }
        return n;
    }

    @Override
    public Template template() {
        int[] single = counts(this.single, 1);
        int[] pair = counts(this.pair, 2);
        return new Template(single[0], single[1], pair[0], pair[1], pair[2]);
    }

    /** Special ids before the first sequence, between sequences, after the last. */
    private int[] counts(List<Piece> pieces, int sequences) {
        int[] counts = new int[sequences + 1];
        int slot = 0;
        for (Piece p : pieces) {
            if (p.special() == null) {
                slot++;
            } else {
                counts[Math.min(slot, sequences)] += specials.get(p.special()).ids().length;
            }
        }
        return counts;
    }

    /** {@link #apply} to one main encoding with special tokens, its parts concatenated (Assembly's common case). */
    Tokens single(Tokens a) {
        Tokens out = new Tokens(a.size + added(false));
        for (Piece p : single) {
            if (p.special() == null) {
                // The single template names A only (ModelReader refuses B), so its sequence is a.
                if (!a.window) {
                    a.setTypeIds(p.typeId());
                }
                a.setSequenceIds(p.sequence());
                out.addAll(a);
            } else {
                SpecialIds s = specials.get(p.special());
                for (int k = 0; k < s.ids().length; k++) {
                    out.add(s.ids()[k], s.tokens().get(k), 0, 0, p.typeId(), 1, -1);
                }
            }
        }
        return out;
    }

    @Override
    public List<Tokens> apply(List<Tokens> encodings, boolean add) {
        List<Tokens> out = new ArrayList<>();
        for (Piece p : encodings.size() == 2 ? pair : single) {
            if (p.special() == null) {
                Tokens t = encodings.get(p.sequence());
                if (!t.window) {
                    t.setTypeIds(p.typeId());
                }
                t.setSequenceIds(p.sequence());
                out.add(t);
            } else if (add) {
                SpecialIds s = specials.get(p.special());
                Tokens t = new Tokens(s.ids().length);
                for (int k = 0; k < s.ids().length; k++) {
                    t.add(s.ids()[k], s.tokens().get(k), 0, 0, p.typeId(), 1, -1);
                }
                out.add(t);
            }
        }
        return out;
    }
}
