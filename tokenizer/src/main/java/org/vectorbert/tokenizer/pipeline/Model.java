package org.vectorbert.tokenizer.pipeline;

/** The model stage of tokenizer.json: turns one pre-tokenized word into vocabulary tokens. */
public interface Model {
    /** Appends the tokens of {@code word} (already normalised and pre-tokenized, never empty) to {@code out}. */
    void tokenize(Normalized word, Tokens out);

    /** The id of a vocabulary token, or -1. */
    int tokenToId(String token);

    /** The token of an id, or null. */
    String idToToken(int id);

    int vocabSize();

    /** The prefix marking a word's continuing pieces ("##" for WordPiece), or null when the model has none. */
    default String continuingSubwordPrefix() {
        return null;
    }
}
