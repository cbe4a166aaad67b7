/** Tokenizers assembled from Hugging Face tokenizer files (WordPiece, BPE, Unigram); no model code. */
module org.vectorbert.tokenizer {
    requires transitive org.vectorbert.common;

    exports org.vectorbert.tokenizer;
}
