package org.vectorbert.tokenizer;

import java.util.Objects;

/**
 * Options for {@link BertTokenizer#encode}. The defaults match a Hugging Face tokenizer call with
 * no arguments: special tokens added, no truncation, no padding.
 *
 * @param addSpecialTokens whether to add {@code [CLS]} and {@code [SEP]}
 * @param truncation       how to shorten an input longer than the maximum length
 * @param maxLength        the maximum length, special tokens included; 0 means the model's ({@code model_max_length})
 * @param padding          whether to pad, and to what length
 */
public record EncodeOptions(boolean addSpecialTokens, Truncation truncation, int maxLength, Padding padding) {
    public EncodeOptions {
        Objects.requireNonNull(truncation, "truncation");
        Objects.requireNonNull(padding, "padding");
        if (maxLength < 0) {
            throw new TokenizerException("max length must not be negative, was " + maxLength);
        }
    }

    public static EncodeOptions defaults() {
        return new EncodeOptions(true, Truncation.NONE, 0, Padding.NONE);
    }

    /** Truncate longest-first to {@code maxLength} tokens, special tokens included. */
    public static EncodeOptions truncatedTo(int maxLength) {
        return defaults().withMaxLength(maxLength).withTruncation(Truncation.LONGEST_FIRST);
    }

    public EncodeOptions withAddSpecialTokens(boolean add) {
        return new EncodeOptions(add, truncation, maxLength, padding);
    }

    public EncodeOptions withTruncation(Truncation strategy) {
        return new EncodeOptions(addSpecialTokens, strategy, maxLength, padding);
    }

    public EncodeOptions withMaxLength(int length) {
        return new EncodeOptions(addSpecialTokens, truncation, length, padding);
    }

    public EncodeOptions withPadding(Padding pad) {
        return new EncodeOptions(addSpecialTokens, truncation, maxLength, pad);
    }
}
