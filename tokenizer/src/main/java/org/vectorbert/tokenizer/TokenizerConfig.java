package org.vectorbert.tokenizer;

import java.util.Objects;

/**
 * How a BERT tokenizer normalises and splits text: the settings of Hugging Face's
 * {@code tokenizer_config.json} and {@code BertNormalizer}.
 *
 * @param lowercase                 lowercase the text ({@code do_lower_case})
 * @param stripAccents              decompose (NFD) and drop non-spacing marks; Hugging Face's default follows {@code lowercase}
 * @param tokenizeChineseChars      put spaces around CJK ideographs so each is a word
 * @param cleanText                 drop control characters and turn whitespace into spaces
 * @param maxInputCharsPerWord      a longer word becomes the unknown token (100 in BERT)
 * @param continuingSubwordPrefix   marks a WordPiece that continues a word ({@code ##})
 * @param modelMaxLength            longest sequence the model takes, special tokens included (512 for BERT)
 * @param cleanUpTokenizationSpaces decoding removes the space before punctuation and contractions
 * @param specialTokens             the special tokens
 */
public record TokenizerConfig(
        boolean lowercase,
        boolean stripAccents,
        boolean tokenizeChineseChars,
        boolean cleanText,
        int maxInputCharsPerWord,
        String continuingSubwordPrefix,
        int modelMaxLength,
        boolean cleanUpTokenizationSpaces,
        SpecialTokens specialTokens) {

    /**
     * Checks the settings.
     *
     * @throws TokenizerException if the word limit or the model's maximum length is not positive
     */
    public TokenizerConfig {
        Objects.requireNonNull(continuingSubwordPrefix, "continuingSubwordPrefix");
        Objects.requireNonNull(specialTokens, "specialTokens");
        if (maxInputCharsPerWord <= 0) {
            throw new TokenizerException("max_input_chars_per_word must be positive, was " + maxInputCharsPerWord);
        }
        if (modelMaxLength <= 0) {
            throw new TokenizerException("model_max_length must be positive, was " + modelMaxLength);
        }
    }

    /**
     * bert-base-uncased's settings.
     *
     * @return lowercase, strip accents, split CJK, clean text, 100 chars a word, {@code ##}, 512 tokens, BERT's tokens
     */
    public static TokenizerConfig uncased() {
        return new TokenizerConfig(true, true, true, true, 100, "##", 512, true, SpecialTokens.bert());
    }

    /**
     * bert-base-cased's settings.
     *
     * @return {@link #uncased()} with case and accents kept
     */
    public static TokenizerConfig cased() {
        return uncased().withLowercase(false);
    }

    /**
     * Sets lowercasing; accent stripping follows it, as Hugging Face does when {@code strip_accents} is unset.
     *
     * @param lower lowercase the text, and strip accents
     * @return the new settings
     */
    public TokenizerConfig withLowercase(boolean lower) {
        return new TokenizerConfig(lower, lower, tokenizeChineseChars, cleanText, maxInputCharsPerWord,
                continuingSubwordPrefix, modelMaxLength, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code stripAccents}.
     *
     * @param strip decompose (NFD) and drop non-spacing marks
     * @return the new settings
     */
    public TokenizerConfig withStripAccents(boolean strip) {
        return new TokenizerConfig(lowercase, strip, tokenizeChineseChars, cleanText, maxInputCharsPerWord,
                continuingSubwordPrefix, modelMaxLength, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code tokenizeChineseChars}.
     *
     * @param split put spaces around CJK ideographs
     * @return the new settings
     */
    public TokenizerConfig withTokenizeChineseChars(boolean split) {
        return new TokenizerConfig(lowercase, stripAccents, split, cleanText, maxInputCharsPerWord,
                continuingSubwordPrefix, modelMaxLength, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code cleanText}.
     *
     * @param clean drop control characters and turn whitespace into spaces
     * @return the new settings
     */
    public TokenizerConfig withCleanText(boolean clean) {
        return new TokenizerConfig(lowercase, stripAccents, tokenizeChineseChars, clean, maxInputCharsPerWord,
                continuingSubwordPrefix, modelMaxLength, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code maxInputCharsPerWord}.
     *
     * @param chars a longer word becomes the unknown token
     * @return the new settings
     */
    public TokenizerConfig withMaxInputCharsPerWord(int chars) {
        return new TokenizerConfig(lowercase, stripAccents, tokenizeChineseChars, cleanText, chars,
                continuingSubwordPrefix, modelMaxLength, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code continuingSubwordPrefix}.
     *
     * @param prefix marks a WordPiece that continues a word
     * @return the new settings
     */
    public TokenizerConfig withContinuingSubwordPrefix(String prefix) {
        return new TokenizerConfig(lowercase, stripAccents, tokenizeChineseChars, cleanText, maxInputCharsPerWord,
                prefix, modelMaxLength, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code modelMaxLength}.
     *
     * @param length the longest sequence the model takes, special tokens included
     * @return the new settings
     */
    public TokenizerConfig withModelMaxLength(int length) {
        return new TokenizerConfig(lowercase, stripAccents, tokenizeChineseChars, cleanText, maxInputCharsPerWord,
                continuingSubwordPrefix, length, cleanUpTokenizationSpaces, specialTokens);
    }

    /**
     * These settings with another {@code cleanUpTokenizationSpaces}.
     *
     * @param cleanUp decoding removes the space before punctuation and contractions
     * @return the new settings
     */
    public TokenizerConfig withCleanUpTokenizationSpaces(boolean cleanUp) {
        return new TokenizerConfig(lowercase, stripAccents, tokenizeChineseChars, cleanText, maxInputCharsPerWord,
                continuingSubwordPrefix, modelMaxLength, cleanUp, specialTokens);
    }

    /**
     * These settings with another {@code specialTokens}.
     *
     * @param tokens the special tokens
     * @return the new settings
     */
    public TokenizerConfig withSpecialTokens(SpecialTokens tokens) {
        return new TokenizerConfig(lowercase, stripAccents, tokenizeChineseChars, cleanText, maxInputCharsPerWord,
                continuingSubwordPrefix, modelMaxLength, cleanUpTokenizationSpaces, tokens);
    }
}
