package org.vectorbert.tokenizer;

import java.util.List;
import java.util.Objects;

/**
 * The special tokens of a BERT tokenizer. They are matched whole in raw text before any
 * normalisation, so {@code "[MASK]."} gives {@code [MASK]} and {@code .}.
 *
 * @param unk        the unknown token, for a word WordPiece cannot split
 * @param sep        the separator, after each text
 * @param pad        the padding token
 * @param cls        the classifier token, before the first text
 * @param mask       the mask token, for fill-mask
 * @param additional further tokens to keep whole (Hugging Face's {@code additional_special_tokens})
 */
public record SpecialTokens(String unk, String sep, String pad, String cls, String mask, List<String> additional) {
    /**
     * Checks that the named tokens are given and copies the additional ones.
     *
     * @throws NullPointerException if a named token is null
     */
    public SpecialTokens {
        Objects.requireNonNull(unk, "unk");
        Objects.requireNonNull(sep, "sep");
        Objects.requireNonNull(pad, "pad");
        Objects.requireNonNull(cls, "cls");
        Objects.requireNonNull(mask, "mask");
        additional = List.copyOf(additional);
    }

    /**
     * BERT's special tokens.
     *
     * @return {@code [UNK] [SEP] [PAD] [CLS] [MASK]}, no additional ones
     */
    public static SpecialTokens bert() {
        return new SpecialTokens("[UNK]", "[SEP]", "[PAD]", "[CLS]", "[MASK]", List.of());
    }

    /**
     * Every special token, the named ones first.
     *
     * @return the tokens, each once
     */
    public List<String> all() {
        var all = new java.util.ArrayList<>(List.of(unk, sep, pad, cls, mask));
        for (String token : additional) {
            if (!all.contains(token)) {
                all.add(token);
            }
        }
        return List.copyOf(all);
    }

    /**
     * These tokens with another unknown token.
     *
     * @param token the unknown token
     * @return the new tokens
     */
    public SpecialTokens withUnk(String token) {
        return new SpecialTokens(token, sep, pad, cls, mask, additional);
    }

    /**
     * These tokens with another separator.
     *
     * @param token the separator
     * @return the new tokens
     */
    public SpecialTokens withSep(String token) {
        return new SpecialTokens(unk, token, pad, cls, mask, additional);
    }

    /**
     * These tokens with another padding token.
     *
     * @param token the padding token
     * @return the new tokens
     */
    public SpecialTokens withPad(String token) {
        return new SpecialTokens(unk, sep, token, cls, mask, additional);
    }

    /**
     * These tokens with another classifier token.
     *
     * @param token the classifier token
     * @return the new tokens
     */
    public SpecialTokens withCls(String token) {
        return new SpecialTokens(unk, sep, pad, token, mask, additional);
    }

    /**
     * These tokens with another mask token.
     *
     * @param token the mask token
     * @return the new tokens
     */
    public SpecialTokens withMask(String token) {
        return new SpecialTokens(unk, sep, pad, cls, token, additional);
    }

    /**
     * These tokens with other additional ones.
     *
     * @param tokens further tokens to keep whole
     * @return the new tokens
     */
    public SpecialTokens withAdditional(List<String> tokens) {
        return new SpecialTokens(unk, sep, pad, cls, mask, tokens);
    }
}
