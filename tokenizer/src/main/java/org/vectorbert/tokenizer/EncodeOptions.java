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
    public enum Side {
        /** The start. */
        LEFT,
        /** The end. */
        RIGHT
    }

    /**
     * Checks the options.
     *
     * @throws TokenizerException if a length, the stride or the multiple is negative
     */
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

    /**
     * Options without stride, truncating and padding on the right, padding to the maximum length.
     *
     * @param addSpecialTokens whether to add the template's special tokens
     * @param truncation       how to shorten an input longer than the maximum length
     * @param maxLength        the maximum length, special tokens included; 0 means the model's
     * @param padding          whether to pad, and to what length
     */
    public EncodeOptions(boolean addSpecialTokens, Truncation truncation, int maxLength, Padding padding) {
        this(addSpecialTokens, truncation, maxLength, padding, 0, Side.RIGHT, Side.RIGHT, 0, 0);
    }

    /**
     * A Hugging Face tokenizer call with no arguments.
     *
     * @return special tokens added, no truncation, no padding
     */
    public static EncodeOptions defaults() {
        return new EncodeOptions(true, Truncation.NONE, 0, Padding.NONE);
    }

    /**
     * Truncate longest-first, special tokens included.
     *
     * @param maxLength the most tokens an encoding keeps
     * @return the defaults with that truncation
     */
    public static EncodeOptions truncatedTo(int maxLength) {
        return defaults().withMaxLength(maxLength).withTruncation(Truncation.LONGEST_FIRST);
    }

    /**
     * These options with special tokens added or not.
     *
     * @param add whether to add the template's special tokens
     * @return the new options
     */
    public EncodeOptions withAddSpecialTokens(boolean add) {
        return new EncodeOptions(add, truncation, maxLength, padding, stride, truncationSide, paddingSide, padToMultipleOf,
                padToLength);
    }

    /**
     * These options with another truncation strategy.
     *
     * @param strategy how to shorten an input longer than the maximum length
     * @return the new options
     */
    public EncodeOptions withTruncation(Truncation strategy) {
        return new EncodeOptions(addSpecialTokens, strategy, maxLength, padding, stride, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    /**
     * These options with another maximum length.
     *
     * @param length the maximum length, special tokens included; 0 means the model's
     * @return the new options
     */
    public EncodeOptions withMaxLength(int length) {
        return new EncodeOptions(addSpecialTokens, truncation, length, padding, stride, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    /**
     * These options with another padding.
     *
     * @param pad whether to pad, and to what length
     * @return the new options
     */
    public EncodeOptions withPadding(Padding pad) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, pad, stride, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    /**
     * Overflow windows repeat tokens of the window before (Hugging Face's {@code stride}).
     *
     * @param tokens how many tokens each window repeats
     * @return the new options
     */
    public EncodeOptions withStride(int tokens) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, tokens, truncationSide, paddingSide,
                padToMultipleOf, padToLength);
    }

    /**
     * These options truncating at another end.
     *
     * @param side which end truncation cuts
     * @return the new options
     */
    public EncodeOptions withTruncationSide(Side side) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, side, paddingSide,
                padToMultipleOf, padToLength);
    }

    /**
     * These options padding at another end.
     *
     * @param side which end padding fills
     * @return the new options
     */
    public EncodeOptions withPaddingSide(Side side) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, truncationSide, side,
                padToMultipleOf, padToLength);
    }

    /**
     * {@link Padding#MAX_LENGTH} pads to a length of its own instead of the maximum length.
     *
     * @param length the padded length; 0 for the maximum length
     * @return the new options
     */
    public EncodeOptions withPadToLength(int length) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, truncationSide, paddingSide,
                padToMultipleOf, length);
    }

    /**
     * Padded lengths round up to a multiple.
     *
     * @param multiple the multiple; 0 for none
     * @return the new options
     */
    public EncodeOptions withPadToMultipleOf(int multiple) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, padding, stride, truncationSide, paddingSide,
                multiple, padToLength);
    }
}
