package org.vectorbert.tokenizer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.vectorbert.tokenizer.pipeline.BertPipeline;
import org.vectorbert.tokenizer.pipeline.PipelineTokenizer;

/**
 * BERT's tokenizer: text cleaning, CJK splitting, lowercasing and accent stripping, punctuation
 * splitting and greedy longest-match-first WordPiece, with the semantics of Hugging Face's
 * {@code BertTokenizerFast} (the {@code tokenizers} library's BertNormalizer, BertPreTokenizer,
 * WordPiece model and BertProcessing), and transformers' settings and decoding on top.
 *
 * <p>Encoding runs the pipeline of those stages ({@link #pipeline()}); this class adds what
 * transformers adds: a {@code vocab.txt} and {@code tokenizer_config.json}, the special tokens'
 * roles, {@link #tokenize} and {@link #decode(int[], boolean)} with {@code clean_up_tokenization}.
 *
 * <p>Instances are immutable and safe to share between threads.
 *
 * <pre>{@code
 * BertTokenizer tokenizer = BertTokenizer.fromDirectory(Path.of("bert-base-uncased"));
 * Encoding e = tokenizer.encode("Paris is the [MASK] of France.");
 * int[] ids = e.ids();   // [101, 3000, 2003, 1996, 103, 1997, 2605, 1012, 102]
 * }</pre>
 */
public final class BertTokenizer implements Tokenizer {
    private static final EncodeOptions NO_SPECIAL_TOKENS = EncodeOptions.defaults().withAddSpecialTokens(false);

    private final Vocabulary vocab;
    private final TokenizerConfig config;
    private final int unkId;
    private final int padId;
    private final PipelineTokenizer pipeline;

    /**
     * A tokenizer over a vocabulary with these settings.
     *
     * @param vocab  the WordPiece vocabulary
     * @param config how to normalise and split, and the special tokens
     * @throws TokenizerException if the vocabulary lacks the unknown, classifier or separator token
     */
    public BertTokenizer(Vocabulary vocab, TokenizerConfig config) {
        this.vocab = Objects.requireNonNull(vocab, "vocab");
        this.config = Objects.requireNonNull(config, "config");
        SpecialTokens special = config.specialTokens();
        this.unkId = requiredId(special.unk(), "unknown");
        requiredId(special.cls(), "classifier (cls)");
        requiredId(special.sep(), "separator (sep)");
        this.padId = vocab.id(special.pad()).orElse(-1);
        // Special tokens the vocabulary lacks cannot be matched whole; they tokenize as text.
        List<String> present = new ArrayList<>();
        for (String token : special.all()) {
            if (!token.isEmpty() && vocab.contains(token)) {
                present.add(token);
            }
        }
        this.pipeline = BertPipeline.of(vocab.vocab(), config, present);
    }

    private int requiredId(String token, String role) {
        return vocab.id(token).orElseThrow(() -> new TokenizerException(
                "the vocabulary has no " + role + " token '" + token + "'"));
    }

    /**
     * Loads the tokenizer of a Hugging Face model directory: {@code tokenizer.json} if present,
     * otherwise {@code vocab.txt}; {@code tokenizer_config.json} and {@code special_tokens_map.json}
     * override settings where they state them, as in transformers.
     *
     * @param directory a Hugging Face model directory
     * @return its tokenizer
     * @throws TokenizerException if the directory holds neither file, or a broken one, or a tokenizer.json of
     *                            another kind (see {@link Tokenizer#fromDirectory} for every kind)
     */
    public static BertTokenizer fromDirectory(Path directory) {
        return HuggingFaceFiles.loadDirectory(directory);
    }

    /**
     * Loads a {@code vocab.txt} with bert-base-uncased settings (lowercase, strip accents, 512 tokens).
     *
     * @param vocabTxt the vocabulary, one token per line
     * @return the tokenizer
     * @throws TokenizerException if the file is missing, not UTF-8, or lacks BERT's special tokens
     */
    public static BertTokenizer fromVocab(Path vocabTxt) {
        return new BertTokenizer(Vocabulary.load(vocabTxt), TokenizerConfig.uncased());
    }

    /**
     * Loads a {@code vocab.txt} with the given settings.
     *
     * @param vocabTxt the vocabulary, one token per line
     * @param config   how to normalise and split, and the special tokens
     * @return the tokenizer
     * @throws TokenizerException if the file is missing, not UTF-8, or lacks the configured special tokens
     */
    public static BertTokenizer fromVocab(Path vocabTxt, TokenizerConfig config) {
        return new BertTokenizer(Vocabulary.load(vocabTxt), config);
    }

    /**
     * Loads a Hugging Face {@code tokenizer.json} holding a WordPiece model and BERT normaliser; the file
     * alone decides, as the tokenizers library's {@code Tokenizer.from_file} does.
     *
     * @param tokenizerJson the file
     * @return the tokenizer
     * @throws TokenizerException if the file is broken or holds another kind of tokenizer
     */
    public static BertTokenizer fromTokenizerJson(Path tokenizerJson) {
        return HuggingFaceFiles.loadTokenizerJson(tokenizerJson, null);
    }

    /**
     * The vocabulary.
     *
     * @return the WordPiece vocabulary
     */
    public Vocabulary vocabulary() {
        return vocab;
    }

    /**
     * The settings.
     *
     * @return how this tokenizer normalises and splits, and its special tokens
     */
    public TokenizerConfig config() {
        return config;
    }

    /**
     * The id of a token.
     *
     * @param token a token string
     * @return its id
     * @throws TokenizerException naming the token when the vocabulary lacks it
     */
    public int tokenId(String token) {
        return vocab.id(token).orElseThrow(() -> new TokenizerException("the vocabulary has no token '" + token + "'"));
    }

    @Override
    public int maskTokenId() {
        return tokenId(config.specialTokens().mask());
    }

    @Override
    public int padTokenId() {
        if (padId < 0) {
            throw new TokenizerException("the vocabulary has no padding token '" + config.specialTokens().pad() + "'");
        }
        return padId;
    }

    @Override
    public boolean isSpecialId(int id) {
        return pipeline.isSpecialId(id);
    }

    @Override
    public int tokenToId(String token) {
        return vocab.id(token).orElse(-1);
    }

    @Override
    public String idToToken(int id) {
        return id >= 0 && id < vocab.size() ? vocab.token(id) : null;
    }

    @Override
    public int vocabSize() {
        return vocab.size();
    }

    @Override
    public int unkTokenId() {
        return unkId;
    }

    /** BERT's: {@code [CLS] A [SEP]} and {@code [CLS] A [SEP] B [SEP]}. */
    @Override
    public Template template() {
        return pipeline.template();
    }

    @Override
    public int modelMaxLength() {
        return config.modelMaxLength();
    }

    /**
     * The stages this tokenizer encodes with: BertNormalizer, BertPreTokenizer, WordPiece and BertProcessing,
     * decoding with the tokenizers library's WordPiece decoder rather than {@link #decode}'s clean-up.
     *
     * @return the pipeline
     */
    public Tokenizer pipeline() {
        return pipeline;
    }

    @Override
    public int[] wordIds(String text) {
        return pipeline.wordIds(text);
    }

    /**
     * The WordPiece tokens of a text, without special tokens added (Hugging Face's {@code tokenize}).
     *
     * @param text the text
     * @return its tokens
     */
    public List<String> tokenize(String text) {
        return pipeline.encode(text, NO_SPECIAL_TOKENS).tokens();
    }

    /**
     * Encodes a text, or a pair as {@code [CLS] first [SEP] second [SEP]}.
     *
     * @param second the second text, or null for a single text
     */
    @Override
    public Encoding encode(String first, String second, EncodeOptions options) {
        return pipeline.encode(first, second, options);
    }

    /** Encodes many text pairs ({@code seconds} may be null); {@link Padding#LONGEST} pads to the longest. */
    @Override
    public List<Encoding> encodeBatch(List<String> firsts, List<String> seconds, EncodeOptions options) {
        return pipeline.encodeBatch(firsts, seconds, options);
    }

    /**
     * Decodes ids to text as transformers' {@code decode} does: pieces joined with spaces except
     * {@code ##} continuations, special tokens dropped on request, and (when the config says so)
     * {@link #cleanUpTokenizationSpaces} over the whole text.
     *
     * @throws TokenizerException for an id outside the vocabulary
     */
    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        String prefix = config.continuingSubwordPrefix();
        StringBuilder text = new StringBuilder(ids.length * 6);
        boolean first = true;
        for (int id : ids) {
            String token = vocab.token(id);
            if (skipSpecialTokens && pipeline.isSpecialId(id)) {
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

    /**
     * Hugging Face's {@code clean_up_tokenization}: no space before punctuation and English contractions.
     *
     * @param text decoded text
     * @return the text without those spaces
     */
    public static String cleanUpTokenizationSpaces(String text) {
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

    @Override
    public String continuingSubwordPrefix() {
        return config.continuingSubwordPrefix();
    }

    /** The fast tokenizer's WordPiece decoder (cleaning token by token), not {@link #decode}'s transformers clean-up. */
    @Override
    public String tokensToText(List<String> tokens) {
        return pipeline.tokensToText(tokens);
    }
}
