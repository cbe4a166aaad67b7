package org.vectorbert.tokenizer;

import java.nio.file.Path;
import java.util.List;
import org.vectorbert.tokenizer.pipeline.TokenizerFiles;

/**
 * A tokenizer as Hugging Face's {@code tokenizers} library runs it: text to ids, type ids,
 * masks and character offsets into the original text, and back. Everything model-specific
 * (which special tokens, where they go) comes from the tokenizer's files, so callers never spell
 * {@code [CLS]} or {@code <s>}: they ask {@link #template()} and the role ids.
 *
 * <p>Implementations are immutable and safe to share between threads.
 */
public interface Tokenizer {
    /**
     * Loads the tokenizer of a Hugging Face model directory: {@code tokenizer.json} if present,
     * else {@code vocab.txt} (a {@link BertTokenizer}), else {@code vocab.json} + {@code merges.txt}
     * (byte-level BPE with RoBERTa's template), else {@code sentencepiece.bpe.model} or
     * {@code spiece.model}; {@code tokenizer_config.json} and {@code special_tokens_map.json}
     * name the special tokens' roles and the model's maximum length.
     *
     * @param directory a Hugging Face model directory
     * @return its tokenizer
     * @throws TokenizerException if the directory holds no tokenizer files, or broken ones
     */
    static Tokenizer fromDirectory(Path directory) {
        // BERT's own (vocab.txt, or WordPiece behind BERT's normaliser) as BertTokenizer has always read it, with
        // transformers' tokenizer_config.json overrides and decoding; every other tokenizer as its stages say.
        return HuggingFaceFiles.bertTokenizer(directory).<Tokenizer>map(t -> t).orElseGet(() -> TokenizerFiles.loadDirectory(directory));
    }

    /**
     * A BERT WordPiece {@code vocab.txt} alone, with bert-base-uncased's settings, or bert-base-cased's when {@code cased}.
     *
     * @param vocabTxt the vocabulary, one token per line
     * @param cased    keep case and accents
     * @return a {@link BertTokenizer}
     * @throws TokenizerException if the file is missing, not UTF-8, or lacks BERT's special tokens
     */
    static Tokenizer fromWordPieceVocab(Path vocabTxt, boolean cased) {
        return BertTokenizer.fromVocab(vocabTxt, cased ? TokenizerConfig.cased() : TokenizerConfig.uncased());
    }

    /**
     * Loads a {@code tokenizer.json} on its own, as {@code Tokenizer.from_file} does.
     *
     * @param tokenizerJson the file
     * @return the tokenizer its stages make
     * @throws TokenizerException if the file is missing or broken, naming the place
     */
    static Tokenizer fromTokenizerJson(Path tokenizerJson) {
        return TokenizerFiles.loadTokenizerJson(tokenizerJson);
    }

    /**
     * Encodes one text with the defaults (special tokens added, the file's own truncation and padding if any).
     *
     * @param text the text
     * @return its encoding
     */
    default Encoding encode(String text) {
        return encode(text, null, defaultOptions());
    }

    /**
     * Encodes one text.
     *
     * @param text    the text
     * @param options special tokens, truncation and padding
     * @return its encoding
     * @throws TokenizerException if the options cannot be met (a maximum length too short for the special tokens)
     */
    default Encoding encode(String text, EncodeOptions options) {
        return encode(text, null, options);
    }

    /**
     * Encodes a pair of texts with the defaults.
     *
     * @param first  the first text
     * @param second the second text, or null for a single text
     * @return their encoding
     */
    default Encoding encode(String first, String second) {
        return encode(first, second, defaultOptions());
    }

    /**
     * Encodes a text, or a pair, with the post-processor's template.
     *
     * @param first   the first text
     * @param second  the second text, or null for a single text
     * @param options special tokens, truncation and padding
     * @return the encoding, with the windows truncation cut off as its overflow
     * @throws TokenizerException if the options cannot be met (a maximum length too short for the special tokens)
     */
    Encoding encode(String first, String second, EncodeOptions options);

    /**
     * Encodes many texts; {@link Padding#LONGEST} pads to the longest.
     *
     * @param texts   the texts
     * @param options special tokens, truncation and padding
     * @return one encoding per text, in order
     */
    default List<Encoding> encodeBatch(List<String> texts, EncodeOptions options) {
        return encodeBatch(texts, null, options);
    }

    /**
     * Encodes many texts or pairs; {@link Padding#LONGEST} pads to the longest.
     *
     * @param firsts  the first texts
     * @param seconds the second texts, as many as the first, or null for single texts
     * @param options special tokens, truncation and padding
     * @return one encoding per text or pair, in order
     * @throws TokenizerException if {@code seconds} is not as long as {@code firsts}
     */
    List<Encoding> encodeBatch(List<String> firsts, List<String> seconds, EncodeOptions options);

    /**
     * The options {@link #encode(String)} uses: the file's truncation and padding sections, else none.
     *
     * @return the default options
     */
    default EncodeOptions defaultOptions() {
        return EncodeOptions.defaults();
    }

    /**
     * Ids back to text through the decoder; special tokens dropped on request.
     *
     * @param ids               token ids
     * @param skipSpecialTokens drop the special tokens
     * @return the text
     */
    String decode(int[] ids, boolean skipSpecialTokens);

    /**
     * Ids back to text through the decoder, special tokens kept.
     *
     * @param ids token ids
     * @return the text
     */
    default String decode(int[] ids) {
        return decode(ids, false);
    }

    /**
     * The id of a token, added tokens included.
     *
     * @param token a token string
     * @return its id, or -1
     */
    int tokenToId(String token);

    /**
     * The token of an id.
     *
     * @param id a token id
     * @return its token string, or null
     */
    String idToToken(int id);

    /**
     * Vocabulary size, added tokens included.
     *
     * @return the number of tokens
     */
    int vocabSize();

    /**
     * The mask token's id, for fill-mask.
     *
     * @return the id
     * @throws TokenizerException if the tokenizer has no mask token
     */
    int maskTokenId();

    /**
     * The padding token's id.
     *
     * @return the id
     * @throws TokenizerException if the tokenizer has no padding token
     */
    int padTokenId();

    /**
     * The unknown token's id.
     *
     * @return the id, or -1 if the model has none
     */
    int unkTokenId();

    /**
     * Whether an id is a special token (dropped by {@code decode(ids, true)}).
     *
     * @param id a token id
     * @return true for a special token
     */
    boolean isSpecialId(int id);

    /**
     * Where the special tokens go around one text or a pair.
     *
     * @return the counts before, between and after the texts
     */
    Template template();

    /**
     * The longest input the model takes, special tokens included ({@code model_max_length}).
     *
     * @return the length in tokens
     */
    int modelMaxLength();

    /**
     * The prefix the model marks a word's continuing pieces with ("##" for WordPiece), or null (byte-level
     * BPE, Unigram): how transformers' token-classification pipeline tells a subword from a word.
     *
     * @return the prefix, or null
     */
    default String continuingSubwordPrefix() {
        return null;
    }

    /**
     * Token strings joined as the tokenizer's decoder joins them ("jim", "##my" gives "jimmy"), with no
     * clean-up beyond the decoder's own: transformers' {@code convert_tokens_to_string}, which the
     * token-classification pipeline gives as an entity's {@code word}. A string that is no token is
     * joined as one.
     *
     * @param tokens token strings
     * @return the text they make
     */
    String tokensToText(List<String> tokens);

    /**
     * For each token of {@code text} encoded alone, without special tokens or truncation (the tokens a
     * pair encoding holds for it), the index of the pre-tokenized word it came from: the tokenizers
     * library's {@code word_ids}, where an added token is a word of its own. Tokens of one word share an
     * index; the question-answering pipeline widens an answer to whole words with it.
     *
     * @param text the text
     * @return one word index per token
     */
    int[] wordIds(String text);
}
