package org.vectorbert.tokenizer;

import java.util.List;
import java.util.Objects;

/**
 * The special tokens of a BERT tokenizer. They are matched whole in raw text before any
 * normalisation, so {@code "[MASK]."} gives {@code [MASK]} and {@code .}.
 *
 * @param additional further tokens to keep whole (Hugging Face's {@code additional_special_tokens})
 */
public record SpecialTokens(String unk, String sep, String pad, String cls, String mask, List<String> additional) {
    public SpecialTokens {
        Objects.requireNonNull(unk, "unk");
        Objects.requireNonNull(sep, "sep");
        Objects.requireNonNull(pad, "pad");
        Objects.requireNonNull(cls, "cls");
        Objects.requireNonNull(mask, "mask");
        additional = List.copyOf(additional);
    }

    /** BERT's: {@code [UNK] [SEP] [PAD] [CLS] [MASK]}. */
    public static SpecialTokens bert() {
        return new SpecialTokens("[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]", List.of());
    }

    /** Every special token, the named ones first. */
    public List<String> all() {
        var all = new java.util.ArrayList<>(List.of(unk, sep, pad, cls, mask));
        for (String token : additional) {
            if (!all.contains(token)) {
                all.add(token);
            }
        }
        return List.copyOf(all);
    }

    public SpecialTokens withUnk(String token) {
        return new SpecialTokens(token, sep, pad, cls, mask, additional);
    }

    public SpecialTokens withSep(String token) {
        return new SpecialTokens(unk, token, pad, cls, mask, additional);
    }

    public SpecialTokens withPad(String token) {
        return new SpecialTokens(unk, sep, token, cls, mask, additional);
    }

    public SpecialTokens withCls(String token) {
        return new SpecialTokens(unk, sep, pad, token, mask, additional);
    }

    public SpecialTokens withMask(String token) {
        return new SpecialTokens(unk, sep, pad, cls, token, additional);
    }

    public SpecialTokens withAdditional(List<String> tokens) {
        return new SpecialTokens(unk, sep, pad, cls, mask, tokens);
    }
}
