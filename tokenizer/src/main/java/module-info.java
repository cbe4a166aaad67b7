/** WordPiece tokenization with Hugging Face BertTokenizer semantics; no model code. */
module org.vectorbert.tokenizer {
    requires transitive org.vectorbert.common;

    exports org.vectorbert.tokenizer;
}
