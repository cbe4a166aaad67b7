package org.vectorbert.tokenizer;

import java.nio.file.Path;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.vectorbert.tokenizer.pipeline.CharTrie;

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
    private final CharTrie trie;
    private final TokenTable table;
    /** Trie node after the continuing-subword prefix; {@link CharTrie#NONE} if no token continues a word. */
    private final int continuationNode;
    private final int unkId;
    private final int clsId;
    private final int sepId;
    private final int padId;
    /** Special tokens present in the vocabulary, longest first so a scan finds the leftmost-longest match. */
    private final String[] specialTokens;
    private final int[] specialIds;
    private final BitSet specialIdSet = new BitSet();
    private final String specialFirstChars;

    public BertTokenizer(Vocabulary vocab, TokenizerConfig config) {
        this.vocab = Objects.requireNonNull(vocab, "vocab");
        this.config = Objects.requireNonNull(config, "config");
        this.trie = vocab.trie();
        this.table = vocab.table();
        this.continuationNode = trie.walk(config.continuingSubwordPrefix());
        SpecialTokens special = config.specialTokens();
        this.unkId = requiredId(special.unk(), "unknown");
        this.clsId = requiredId(special.cls(), "classifier (cls)");
        this.sepId = requiredId(special.sep(), "separator (sep)");
        this.padId = vocab.id(special.pad()).orElse(-1);
        List<String> present = new ArrayList<>();
        for (String token : special.all()) {
            if (!token.isEmpty() && vocab.contains(token)) {
                present.add(token);
            }
        }
        present.sort((a, b) -> b.length() - a.length());
        this.specialTokens = present.toArray(String[]::new);
        this.specialIds = new int[specialTokens.length];
        StringBuilder firstChars = new StringBuilder();
        for (int i = 0; i < specialTokens.length; i++) {
            specialIds[i] = vocab.id(specialTokens[i]).orElseThrow();
            specialIdSet.set(specialIds[i]);
            if (firstChars.indexOf(specialTokens[i].substring(0, 1)) < 0) {
                firstChars.append(specialTokens[i].charAt(0));
            }
        }
        this.specialFirstChars = firstChars.toString();
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
        if (padId < 0) {
            throw new TokenizerException("the vocabulary has no padding token '" + config.specialTokens().pad() + "'");
        }
        return padId;
    }

    @Override
    public boolean isSpecialId(int id) {
        return specialIdSet.get(id);
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
                    config.specialTokens().pad(), config.specialTokens().mask(), java.util.Arrays.asList(specialTokens));
            pipeline = p;
        }
        return p;
    }

    /** The WordPiece tokens of a text, without special tokens added (Hugging Face's {@code tokenize}). */
    public List<String> tokenize(String text) {
        TokenBuffer pieces = pieces(text);
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
        TokenBuffer a = pieces(first);
        TokenBuffer b = second == null ? null : pieces(second);
        if (cuts(a, b, options)) {
            return pipeline().encode(first, second, options);
        }
        Encoding encoding = assemble(a, b, options);
        return options.padding() == Padding.MAX_LENGTH ? pad(encoding, padLength(options)) : encoding;
    }

    /**
     * Whether truncation cuts this text or pair. A cut encoding carries what was cut as overflow
     * windows, as the tokenizers library's does; the pipeline builds them (a cut text pays for a second
     * tokenization, which only texts over the limit do).
     */
    private boolean cuts(TokenBuffer first, TokenBuffer second, EncodeOptions options) {
        int added = options.addSpecialTokens() ? (second == null ? 2 : 3) : 0;
        return options.truncation() != Truncation.NONE
                && first.size + (second == null ? 0 : second.size) + added > maxLength(options);
    }

    private int padLength(EncodeOptions options) {
        return options.padToLength() > 0 ? options.padToLength() : maxLength(options);
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
            TokenBuffer a = pieces(firsts.get(i));
            TokenBuffer b = second == null ? null : pieces(second);
            Encoding e = cuts(a, b, options) ? pipeline().encode(firsts.get(i), second, options) : assemble(a, b, options);
            longest = Math.max(longest, e.length());
            encodings.add(e);
        }
        int target = switch (options.padding()) {
            case NONE -> -1;
            case LONGEST -> longest;
            case MAX_LENGTH -> padLength(options);
        };
        if (target >= 0) {
            encodings.replaceAll(e -> pad(e, target));
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
        String prefix = config.continuingSubwordPrefix();
        StringBuilder text = new StringBuilder(ids.length * 6);
        boolean first = true;
        for (int id : ids) {
            String token = vocab.token(id);
            if (skipSpecialTokens && specialIdSet.get(id)) {
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

    // ---- splitting text into WordPiece ids ----

    /** Ids and spans of a text's pieces: special tokens matched whole first, the rest normalised and split. */
    private TokenBuffer pieces(String text) {
        TokenBuffer out = new TokenBuffer(text.length());
        Word word = new Word();
        int segmentStart = 0;
        for (int at = nextSpecialStart(text, 0); at >= 0; at = nextSpecialStart(text, at)) {
            int matched = matchSpecial(text, at);
            if (matched < 0) {
                at++;
                continue;
            }
            splitSegment(text, segmentStart, at, word, out);
            out.add(specialIds[matched], at, at + specialTokens[matched].length());
            at += specialTokens[matched].length();
            segmentStart = at;
        }
        splitSegment(text, segmentStart, text.length(), word, out);
        return out;
    }

    /** Where a special token might start at or after {@code from} (String.indexOf is vectorised), or -1. */
    private int nextSpecialStart(String text, int from) {
        int next = -1;
        for (int k = 0; k < specialFirstChars.length(); k++) {
            int at = text.indexOf(specialFirstChars.charAt(k), from);
            if (at >= 0 && (next < 0 || at < next)) {
                next = at;
            }
        }
        return next;
    }

    /** The longest special token starting at {@code at}, or -1. */
    private int matchSpecial(String text, int at) {
        for (int s = 0; s < specialTokens.length; s++) {
            if (text.startsWith(specialTokens[s], at)) {
                return s;
            }
        }
        return -1;
    }

    /** Normalises {@code text[from, to)} and splits it on whitespace and punctuation into words for WordPiece. */
    private void splitSegment(String text, int from, int to, Word word, TokenBuffer out) {
        boolean asciiFastPath = config.cleanText();
        boolean lower = config.lowercase();
        int i = from;
        while (i < to) {
            char c = text.charAt(i);
            if (c < 128 && asciiFastPath) {
                switch (CharClass.ascii(c)) {
                    case CharClass.WORD -> word.append(lower && c >= 'A' && c <= 'Z' ? (char) (c + 32) : c, i, i + 1);
                    case CharClass.SPACE -> endWord(word, out);
                    case CharClass.PUNCT -> {
                        endWord(word, out);
                        word.append(c, i, i + 1);
                        endWord(word, out);
                    }
                    default -> { } // control character: dropped
                }
                i++;
                continue;
            }
            int cp = text.codePointAt(i);
            int end = i + Character.charCount(cp);
            if (config.cleanText() && (cp == 0 || cp == 0xFFFD || CharClass.isControl(cp))) {
                // dropped
            } else if (CharClass.isWhitespace(cp)) {
                endWord(word, out);
            } else if (config.tokenizeChineseChars() && CharClass.isCjkIdeograph(cp)) {
                endWord(word, out);
                appendNormalized(cp, i, end, word, out);
                endWord(word, out);
            } else {
                appendNormalized(cp, i, end, word, out);
            }
            i = end;
        }
        endWord(word, out);
    }

    /** Strips accents (NFD, then drops non-spacing marks) and lowercases, as BertNormalizer does, in that order. */
    private void appendNormalized(int cp, int start, int end, Word word, TokenBuffer out) {
        if (config.stripAccents() && cp >= 0xC0) {
            String decomposed = Normalizer.normalize(Character.toString(cp), Normalizer.Form.NFD);
            for (int k = 0; k < decomposed.length(); ) {
                int d = decomposed.codePointAt(k);
                k += Character.charCount(d);
                if (Character.getType(d) != Character.NON_SPACING_MARK) {
                    appendLowercased(d, start, end, word, out);
                }
            }
        } else {
            appendLowercased(cp, start, end, word, out);
        }
    }

    private void appendLowercased(int cp, int start, int end, Word word, TokenBuffer out) {
        if (!config.lowercase()) {
            appendSplitting(cp, start, end, word, out);
        } else if (cp == 0x130) {
            // The one unconditional multi-character lowercase mapping: İ becomes i and a combining dot above.
            appendSplitting('i', start, end, word, out);
            appendSplitting(0x307, start, end, word, out);
        } else {
            appendSplitting(Character.toLowerCase(cp), start, end, word, out);
        }
    }

    /** Adds a normalised character to the word, or ends the word at whitespace and punctuation (which stands alone). */
    private void appendSplitting(int cp, int start, int end, Word word, TokenBuffer out) {
        if (CharClass.isWhitespace(cp)) {
            endWord(word, out);
        } else if (CharClass.isPunctuation(cp)) {
            endWord(word, out);
            word.appendCodePoint(cp, start, end);
            endWord(word, out);
        } else {
            word.appendCodePoint(cp, start, end);
        }
    }

    /** Greedy longest-match-first WordPiece over the word, which is then cleared. */
    private void endWord(Word word, TokenBuffer out) {
        int length = word.length;
        if (length == 0) {
            return;
        }
        int wordStart = word.starts[0];
        int wordEnd = word.ends[length - 1];
        if (word.codePointCount() > config.maxInputCharsPerWord()) {
            out.add(unkId, wordStart, wordEnd);
            word.clear();
            return;
        }
        int mark = out.size;
        char[] chars = word.chars;
        String prefix = config.continuingSubwordPrefix();
        for (int pos = 0; pos < length; ) {
            // The longest match is the whole rest when the rest is a token: one hash probe, usually a hit.
            int whole = table.find(pos == 0 ? "" : prefix, chars, pos, length);
            if (whole >= 0) {
                out.add(whole, word.starts[pos], wordEnd);
                break;
            }
            int node = pos == 0 ? CharTrie.ROOT : continuationNode;
            int bestEnd = -1;
            int bestId = CharTrie.NONE;
            for (int j = pos; j < length && node != CharTrie.NONE; j++) {
                node = trie.child(node, chars[j]);
                if (node != CharTrie.NONE && trie.tokenId(node) != CharTrie.NONE) {
                    bestEnd = j + 1;
                    bestId = trie.tokenId(node);
                }
            }
            if (bestId == CharTrie.NONE) {
                // No segmentation covers the whole word: the word becomes one unknown token.
                out.truncate(mark);
                out.add(unkId, wordStart, wordEnd);
                break;
            }
            out.add(bestId, word.starts[pos], word.ends[bestEnd - 1]);
            pos = bestEnd;
        }
        word.clear();
    }

    // ---- truncation, special tokens, padding ----

    private int maxLength(EncodeOptions options) {
        return options.maxLength() > 0 ? options.maxLength() : config.modelMaxLength();
    }

    /** Truncates as the tokenizers library does, then adds [CLS] and [SEP]s around the pieces. */
    private Encoding assemble(TokenBuffer first, TokenBuffer second, EncodeOptions options) {
        int added = options.addSpecialTokens() ? (second == null ? 2 : 3) : 0;
        if (options.truncation() != Truncation.NONE) {
            int max = maxLength(options);
            if (max < added) {
                throw new TokenizerException("max length " + max + " leaves no room for the " + added
                        + " special tokens");
            }
            truncate(first, second, max - added, options.truncation());
        }
        int n1 = first.size;
        int n2 = second == null ? 0 : second.size;
        int length = n1 + n2 + added;
        int[] ids = new int[length];
        int[] typeIds = new int[length];
        int[] specialMask = new int[length];
        int[] starts = new int[length];
        int[] ends = new int[length];
        int[] sequenceIds = new int[length];
        int[] attention = new int[length];
        Arrays.fill(attention, 1);
        int p = 0;
        if (options.addSpecialTokens()) {
            specialMask[p] = 1;
            sequenceIds[p] = -1;
            ids[p++] = clsId;
        }
        p = copy(first, 0, ids, typeIds, starts, ends, sequenceIds, p);
        if (options.addSpecialTokens()) {
            specialMask[p] = 1;
            sequenceIds[p] = -1;
            ids[p++] = sepId;
        }
        if (second != null) {
            int secondStart = p;
            p = copy(second, 1, ids, typeIds, starts, ends, sequenceIds, p);
            if (options.addSpecialTokens()) {
                specialMask[p] = 1;
                sequenceIds[p] = -1;
                ids[p++] = sepId;
            }
            Arrays.fill(typeIds, secondStart, p, 1);
        }
        return new Encoding(tokenList(ids), ids, typeIds, attention, specialMask, starts, ends, sequenceIds);
    }

    private static int copy(TokenBuffer from, int sequence, int[] ids, int[] typeIds, int[] starts, int[] ends,
                            int[] sequenceIds, int p) {
        System.arraycopy(from.ids, 0, ids, p, from.size);
        System.arraycopy(from.starts, 0, starts, p, from.size);
        System.arraycopy(from.ends, 0, ends, p, from.size);
        Arrays.fill(typeIds, p, p + from.size, sequence);
        Arrays.fill(sequenceIds, p, p + from.size, sequence);
        return p + from.size;
    }

    /**
     * Fits the pieces into {@code max} tokens. Longest-first on a pair keeps the shorter text whole
     * when it fits in half, and otherwise gives each half (the second the odd token), exactly as the
     * tokenizers library computes it.
     */
    private static void truncate(TokenBuffer first, TokenBuffer second, int max, Truncation strategy) {
        int n1 = first.size;
        int n2 = second == null ? 0 : second.size;
        if (n1 + n2 <= max) {
            return;
        }
        int toRemove = n1 + n2 - max;
        switch (strategy) {
            case LONGEST_FIRST -> {
                if (second == null) {
                    first.truncate(max);
                    return;
                }
                boolean swap = n1 > n2;
                int shorter = Math.min(n1, n2);
                int longer = shorter > max ? shorter : Math.max(shorter, max - shorter);
                if (shorter + longer > max) {
                    shorter = max / 2;
                    longer = shorter + max % 2;
                }
                first.truncate(swap ? longer : shorter);
                second.truncate(swap ? shorter : longer);
            }
            case ONLY_FIRST, ONLY_SECOND -> {
                TokenBuffer target = strategy == Truncation.ONLY_FIRST ? first : second;
                if (target == null) {
                    throw new TokenizerException("truncation only_second needs a second text");
                }
                if (target.size <= toRemove) {
                    throw new TokenizerException("cannot truncate with " + strategy.name().toLowerCase()
                            + ": the " + (target == first ? "first" : "second") + " text has " + target.size
                            + " tokens but " + toRemove + " must go to fit in " + max
                            + " (special tokens excluded); use longest_first");
                }
                target.truncate(target.size - toRemove);
            }
            case NONE -> { }
        }
    }

    private Encoding pad(Encoding e, int length) {
        int n = e.length();
        if (n >= length) {
            return e;
        }
        int pad = padTokenId();
        int[] ids = Arrays.copyOf(e.ids(), length);
        Arrays.fill(ids, n, length, pad);
        int[] specialMask = Arrays.copyOf(e.specialTokensMask(), length);
        Arrays.fill(specialMask, n, length, 1);
        int[] sequenceIds = Arrays.copyOf(e.sequenceIds(), length);
        Arrays.fill(sequenceIds, n, length, -1);
        return new Encoding(tokenList(ids), ids, Arrays.copyOf(e.typeIds(), length),
                Arrays.copyOf(e.attentionMask(), length), specialMask,
                Arrays.copyOf(e.starts(), length), Arrays.copyOf(e.ends(), length), sequenceIds);
    }

    private List<String> tokenList(int[] ids) {
        String[] tokens = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
            tokens[i] = vocab.token(ids[i]);
        }
        return Collections.unmodifiableList(Arrays.asList(tokens));
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
