package org.vectorbert.tokenizer;

/** Decodes ids to text as transformers' BERT tokenizer does, with its clean-up of tokenization spaces. */
final class WordPieceDecoder {
    private final Vocabulary vocab;
    private final TokenizerConfig config;
    private final SpecialTokenMatcher special;

    WordPieceDecoder(Vocabulary vocab, TokenizerConfig config, SpecialTokenMatcher special) {
        this.vocab = vocab;
        this.config = config;
        this.special = special;
    }

    /**
     * Decodes ids to text as Hugging Face's {@code decode} does: pieces joined with spaces except
     * {@code ##} continuations, special tokens dropped on request, and (when the config says so)
     * the space before punctuation and English contractions removed.
     */
    String decode(int[] ids, boolean skipSpecialTokens) {
        String prefix = config.continuingSubwordPrefix();
        StringBuilder text = new StringBuilder(ids.length * 6);
        boolean first = true;
        for (int id : ids) {
            String token = vocab.token(id);
            if (skipSpecialTokens && special.isSpecialId(id)) {
                continue;
            }
            if (first) {
                text.append(token);
            } else if (!prefix.isEmpty() && token.startsWith(prefix)) {
                text.append(token, prefix.length(), token.length());
            } else {
                text.append(' ').append(token);
            }
            first = false;
        }
        return config.cleanUpTokenizationSpaces() ? cleanUpTokenizationSpaces(text.toString()) : text.toString();
    }

    /** Hugging Face's {@code clean_up_tokenization}: no space before punctuation and English contractions. */
    static String cleanUpTokenizationSpaces(String text) {
        return text.replace(" .", ".")
                .replace(" ?", "?")
                .replace(" !", "!")
                .replace(" ,", ",")
                .replace(" ' ", "'")
                .replace(" n't", "n't")
                .replace(" 'm", "'m")
                .replace(" 's", "'s")
                .replace(" 've", "'ve")
                .replace(" 're", "'re");
    }
}
