package org.vectorbert.tokenizer;

import java.util.Objects;

/**
 * Options for {@link Tokenizer#encode}. The defaults match a Hugging Face tokenizer call with
 * no arguments: special tokens added, no truncation, no padding.
 *
 * @param addSpecialTokens whether to add the template's special tokens ({@code [CLS]}, {@code [SEP]}, ...)
 * @param truncation       how to shorten an input longer than the maximum length
 * @param maxLength        the maximum length, special tokens included; 0 means the model's ({@code model_max_length})
 * @param padding          whether to pad, and to what length
 * @param stride           tokens each overflow window repeats from the one before (truncation only)
 * @param truncationSide   which end truncation cuts
 * @param paddingSide      which end padding fills
 * @param padToMultipleOf  round the padded length up to a multiple of this; 0 for none
 * @param padToLength      the length {@link Padding#MAX_LENGTH} pads to; 0 for the maximum length
 *                         (a tokenizer.json's {@code "Fixed"} padding sets it)
 */
public record EncodeOptions(boolean addSpecialTokens, Truncation truncation, int maxLength, Padding padding,
                            int stride, Side truncationSide, Side paddingSide, int padToMultipleOf,
                            int padToLength) {
    /** Which end of a sequence truncation or padding works on. */
    public enum Side { LEFT, RIGHT }

    public EncodeOptions {
        Objects.requireNonNull(truncation, "truncation");
        Objects.requireNonNull(padding, "padding");
        Objects.requireNonNull(truncationSide, "truncationSide");
        Objects.requireNonNull(paddingSide, "paddingSide");
        if (maxLength < 0) {
            throw new TokenizerException("max length must not be negative, was " + maxLength);
        }
        if (stride < 0 || padToMultipleOf < 0 || padToLength < 0) {
            throw new TokenizerException("stride, pad_to_multiple_of and the padding length must not be negative");
        }
    }

    public EncodeOptions(boolean addSpecialTokens, Truncation truncation, int maxLength, Padding padding) {
        this(addSpecialTokens, truncation, maxLength, padding, 0, Side.RIGHT, Side.RIGHT, 0, 0);
    }

    public static EncodeOptions defaults() {
        return new EncodeOptions(true, Truncation.NONE, 0, Padding.NONE);
    }

    /** Truncate longest-first to {@code maxLength} tokens, special tokens included. */
    public static EncodeOptions truncatedTo(int maxLength) {
        return defaults().withMaxLength(maxLength).withTruncation(Truncation.LONGEST_FIRST);
    }

    public EncodeOptions withAddSpecialTokens(boolean add) {
        return new EncodeOptions(add, truncation, maxLength, padding, stride, truncationSide, paddingSide, padToMultipleOf,
                padToLength);
    }

    public EncodeOptions withTruncation(Truncation strategy) {
        return new EncodeOptions(addSpecialTokens, strategy, maxLength, padding, stride, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    public EncodeOptions withMaxLength(int length) {
        return new EncodeOptions(addSpecialTokens, truncation, length, padding, stride, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    public EncodeOptions withPadding(Padding pad) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, pad, stride, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    /** Overflow windows repeat {@code tokens} tokens of the window before (Hugging Face's {@code stride}). */
    public EncodeOptions withStride(int tokens) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, tokens, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    public EncodeOptions withTruncationSide(Side side) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, side, paddingSide,
                padToMultipleOf, padToLength);
    }

    public EncodeOptions withPaddingSide(Side side) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, truncationSide, side,
                padToMultipleOf, padToLength);
    }

    /** {@link Padding#MAX_LENGTH} pads to {@code length} tokens instead of the maximum length. */
    public EncodeOptions withPadToLength(int length) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, truncationSide, paddingSide,
                padToMultipleOf, length);
    }

    public EncodeOptions withPadToMultipleOf(int multiple) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, truncationSide, paddingSide,
                multiple, padToLength);
    }
}
