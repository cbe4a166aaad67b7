package org.vectorbert.tokenizer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * BERT's tokenizer: text cleaning, CJK splitting, lowercasing and accent stripping, punctuation
 * splitting and greedy longest-match-first WordPiece, with the semantics of Hugging Face's
 * {@code BertTokenizerFast} (the {@code tokenizers} library's BertNormalizer, BertPreTokenizer,
 * WordPiece model and BertProcessing).
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
    private final Vocabulary vocab;
    private final TokenizerConfig config;
    private final int unkId;
    private final SpecialTokenMatcher specialTokens;
    private final WordPieceSplitter splitter;
    private final EncodingAssembler assembler;
    private final WordPieceDecoder decoder;

    public BertTokenizer(Vocabulary vocab, TokenizerConfig config) {
        this.vocab = Objects.requireNonNull(vocab, "vocab");
        this.config = Objects.requireNonNull(config, "config");
        SpecialTokens special = config.specialTokens();
        this.unkId = requiredId(special.unk(), "unknown");
        int clsId = requiredId(special.cls(), "classifier (cls)");
        int sepId = requiredId(special.sep(), "separator (sep)");
        int padId = vocab.id(special.pad()).orElse(-1);
        this.specialTokens = new SpecialTokenMatcher(vocab, special);
        this.splitter = new WordPieceSplitter(vocab, config, unkId, specialTokens);
        this.assembler = new EncodingAssembler(vocab, config, clsId, sepId, padId);
        this.decoder = new WordPieceDecoder(vocab, config, specialTokens);
    }

    private int requiredId(String token, String role) {
        return vocab.id(token).orElseThrow(() -> new TokenizerException(
                "the vocabulary has no " + role + " token '" + token + "'"));
    }

    /**
     * Loads the tokenizer of a Hugging Face model directory: {@code tokenizer.json} if present,
     * otherwise {@code vocab.txt}; {@code tokenizer_config.json} and {@code special_tokens_map.json}
     * override settings where they state them, as in transformers.
     */
    public static BertTokenizer fromDirectory(Path directory) {
        return HuggingFaceFiles.loadDirectory(directory);
    }

    /** Loads a {@code vocab.txt} with bert-base-uncased settings (lowercase, strip accents, 512 tokens). */
    public static BertTokenizer fromVocab(Path vocabTxt) {
        return new BertTokenizer(Vocabulary.load(vocabTxt), TokenizerConfig.uncased());
    }

    public static BertTokenizer fromVocab(Path vocabTxt, TokenizerConfig config) {
        return new BertTokenizer(Vocabulary.load(vocabTxt), config);
    }

    /** Loads a Hugging Face {@code tokenizer.json} holding a WordPiece model and BERT normaliser. */
    public static BertTokenizer fromTokenizerJson(Path tokenizerJson) {
        return HuggingFaceFiles.loadTokenizerJson(tokenizerJson, null);
    }

    public Vocabulary vocabulary() {
        return vocab;
    }

    public TokenizerConfig config() {
        return config;
    }

    /** The id of a token, throwing with a clear message when the vocabulary lacks it. */
    public int tokenId(String token) {
        return vocab.id(token).orElseThrow(() -> new TokenizerException("the vocabulary has no token '" + token + "'"));
    }

    @Override
    public int maskTokenId() {
        return tokenId(config.specialTokens().mask());
    }

    @Override
    public int padTokenId() {
        return assembler.padTokenId();
    }

    @Override
    public boolean isSpecialId(int id) {
        return specialTokens.isSpecialId(id);
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
        return new Template(1, 1, 1, 1, 1);
    }

    @Override
    public int modelMaxLength() {
        return config.modelMaxLength();
    }

    /**
     * Strides, left truncation and left or rounded-up padding go through the same stages as a
     * pipeline (BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing), built once.
     */
    private static boolean needsPipeline(EncodeOptions o) {
        return o.stride() > 0 || o.truncationSide() != EncodeOptions.Side.RIGHT
                || o.paddingSide() != EncodeOptions.Side.RIGHT || o.padToMultipleOf() > 0;
    }

    private volatile Tokenizer pipeline;

    /** This tokenizer as a pipeline of stages, with the same vocabulary and settings. */
    public Tokenizer pipeline() {
        Tokenizer p = pipeline;
        if (p == null) {
            p = org.vectorbert.tokenizer.pipeline.BertPipeline.of(vocab.tokens(), config.lowercase(),
                    config.stripAccents(), config.tokenizeChineseChars(), config.cleanText(),
                    config.continuingSubwordPrefix(), config.maxInputCharsPerWord(), config.modelMaxLength(),
                    config.specialTokens().unk(), config.specialTokens().cls(), config.specialTokens().sep(),
                    config.specialTokens().pad(), config.specialTokens().mask(), specialTokens.tokens());
            pipeline = p;
        }
        return p;
    }

    /** Words as the pipeline of the same stages splits them (word ids are rare: only question answering asks). */
    @Override
    public int[] wordIds(String text) {
        return pipeline().wordIds(text);
    }

    /** The WordPiece tokens of a text, without special tokens added (Hugging Face's {@code tokenize}). */
    public List<String> tokenize(String text) {
        TokenBuffer pieces = splitter.pieces(text);
        String[] tokens = new String[pieces.size];
        for (int i = 0; i < pieces.size; i++) {
            tokens[i] = vocab.token(pieces.ids[i]);
        }
        return List.of(tokens);
    }

    @Override
    public Encoding encode(String text) {
        return encode(text, null, EncodeOptions.defaults());
    }

    @Override
    public Encoding encode(String text, EncodeOptions options) {
        return encode(text, null, options);
    }

    @Override
    public Encoding encode(String first, String second) {
        return encode(first, second, EncodeOptions.defaults());
    }

    /**
     * Encodes a text, or a pair as {@code [CLS] first [SEP] second [SEP]}.
     *
     * @param second the second text, or null for a single text
     */
    @Override
    public Encoding encode(String first, String second, EncodeOptions options) {
        Objects.requireNonNull(first, "first");
        if (needsPipeline(options)) {
            return pipeline().encode(first, second, options);
        }
        TokenBuffer a = splitter.pieces(first);
        TokenBuffer b = second == null ? null : splitter.pieces(second);
        if (assembler.cuts(a, b, options)) {
            return pipeline().encode(first, second, options);
        }
        Encoding encoding = assembler.assemble(a, b, options);
        return options.padding() == Padding.MAX_LENGTH ? assembler.pad(encoding, assembler.padLength(options)) : encoding;
    }

    /** Encodes many texts; with {@link Padding#LONGEST} all come out as long as the longest. */
    @Override
    public List<Encoding> encodeBatch(List<String> texts, EncodeOptions options) {
        return encodeBatch(texts, null, options);
    }

    /**
     * Encodes many text pairs; {@code seconds} may be null for single texts.
     */
    @Override
    public List<Encoding> encodeBatch(List<String> firsts, List<String> seconds, EncodeOptions options) {
        if (needsPipeline(options)) {
            return pipeline().encodeBatch(firsts, seconds, options);
        }
        if (seconds != null && seconds.size() != firsts.size()) {
            throw new TokenizerException("a batch of pairs needs as many second texts (" + seconds.size()
                    + ") as first texts (" + firsts.size() + ")");
        }
        List<Encoding> encodings = new ArrayList<>(firsts.size());
        int longest = 0;
        for (int i = 0; i < firsts.size(); i++) {
            String second = seconds == null ? null : seconds.get(i);
            TokenBuffer a = splitter.pieces(firsts.get(i));
            TokenBuffer b = second == null ? null : splitter.pieces(second);
            Encoding e = assembler.cuts(a, b, options) ? pipeline().encode(firsts.get(i), second, options)
                    : assembler.assemble(a, b, options);
            longest = Math.max(longest, e.length());
            encodings.add(e);
        }
        int target = switch (options.padding()) {
            case NONE -> -1;
            case LONGEST -> longest;
            case MAX_LENGTH -> assembler.padLength(options);
        };
        if (target >= 0) {
            encodings.replaceAll(e -> assembler.pad(e, target));
        }
        return encodings;
    }

    /** Decodes ids to text, joining {@code ##} pieces; see {@link #decode(int[], boolean)}. */
    @Override
    public String decode(int[] ids) {
        return decode(ids, false);
    }

    /**
     * Decodes ids to text as Hugging Face's {@code decode} does: pieces joined with spaces except
     * {@code ##} continuations, special tokens dropped on request, and (when the config says so)
     * the space before punctuation and English contractions removed.
     */
    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        return decoder.decode(ids, skipSpecialTokens);
    }

    /** Hugging Face's {@code clean_up_tokenization}: no space before punctuation and English contractions. */
    public static String cleanUpTokenizationSpaces(String text) {
        return WordPieceDecoder.cleanUpTokenizationSpaces(text);
    }

    @Override
    public String continuingSubwordPrefix() {
        return config.continuingSubwordPrefix();
    }

    /** The fast tokenizer's WordPiece decoder (cleaning token by token), not {@link #decode}'s transformers clean-up. */
    @Override
    public String tokensToText(List<String> tokens) {
        return pipeline().tokensToText(tokens);
    }
}
