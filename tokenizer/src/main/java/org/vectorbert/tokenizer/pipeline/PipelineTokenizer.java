package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Template;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * The tokenizers library's pipeline: added tokens, normalizer, pre-tokenizer, model per word,
 * then truncation, post-processor and padding ({@link Assembly}); decoding through the decoder.
 */
public final class PipelineTokenizer implements Tokenizer {
    /** The stages and settings a pipeline is built from. */
    public record Stages(Normalizer normalizer, PreTokenizer preTokenizer, Model model, PostProcessor postProcessor,
                         Decoder decoder, List<AddedVocabulary.AddedToken> addedTokens, Roles roles,
                         EncodeOptions defaultOptions, PadSettings pad, int modelMaxLength) {}

    /** The special tokens' roles, by id (-1 for none). */
    public record Roles(int mask, int pad, int unk) {}

    /** What padding fills with: the file's padding section, or the pad role's token. */
    public record PadSettings(int id, int typeId, String token) {}

    private final Stages stages;
    private final AddedVocabulary added;
    /** BERT's normaliser, pre-tokenizer and WordPiece fused, or null for other stages. */
    private final BertFastPath fast;
    /** The model's scratch-word entry and the pre-tokenizer's way to it, or null (WordPath). */
    private final WordPath.WordModel wordModel;
    private final WordPath.Splitter splitter;
    /** Spaces at either end of each vocabulary token, when the post-processor trims offsets by them; else null. */
    private final TokenSpaces spaces;
    private final BitSet specialIds = new BitSet();
    private final java.util.Map<String, Integer> addedIds = new java.util.HashMap<>();
    private final java.util.Map<Integer, String> addedTokens = new java.util.HashMap<>();

    public PipelineTokenizer(Stages stages) {
        this.stages = Objects.requireNonNull(stages);
        this.added = new AddedVocabulary(stages.addedTokens(), stages.normalizer());
        this.fast = BertFastPath.of(stages.normalizer(), stages.preTokenizer(), stages.model(),
                added.hasNormalizedTokens());
        this.wordModel = fast == null ? WordPath.modelOf(stages.model()) : null;
        this.splitter = wordModel == null ? null : WordPath.splitterOf(stages.preTokenizer());
        this.spaces = TokenSpaces.trimsOffsets(stages.postProcessor()) ? TokenSpaces.of(stages.model()) : null;
        for (AddedVocabulary.AddedToken t : stages.addedTokens()) {
            addedIds.put(t.content(), t.id());
            addedTokens.put(t.id(), t.content());
            if (t.special()) {
                specialIds.set(t.id());
            }
        }
    }

    public Stages stages() {
        return stages;
    }

    /**
     * The tokens of one text, before truncation and special tokens; type and sequence id
     * {@code sequence}. Under truncation the library (tokenizers 0.23.2,
     * PreTokenizedString::tokenize_with_limit) tokenizes the splits from the truncation side and
     * stops after the first pre-tokenized word that brings the tokens so far to {@code limit},
     * dropping every split beyond it for good, before it truncates with overflow: a text of 26
     * one-token words at max_length 10 gives one overflow window, one 90-token word at 20 still
     * gives four. Added tokens count but never stop it, so when one reaches the limit the word
     * after it is still kept; the fixtures hold such cases (unigram-xlmr #1167: "4 2 A 6 ..." at
     * 7 keeps 13 tokens).
     */
    Tokens tokens(String text, int sequence, int limit, EncodeOptions.Side side) {
        // Room for as many tokens as English text makes (over four characters a token), so the arrays rarely grow.
        return tokens(text, sequence, new TokenSink(limit, side == EncodeOptions.Side.RIGHT,
                16 + Math.min(limit, text.length() / 4)));
    }

    @Override
    public int[] wordIds(String text) {
        Objects.requireNonNull(text, "text");
        TokenSink sink = TokenSink.countingWords();
        tokens(text, 0, sink);
        return sink.wordIds();
    }

    private Tokens tokens(String text, int sequence, TokenSink sink) {
        Tokens out = sink.out;
        out.spaces = spaces;
        if (fast != null) {
            fused(text, sink);
            return sink.finish(sequence);
        }
        WordPath path = wordModel == null ? null : new WordPath(wordModel, sink);
        for (AddedVocabulary.Segment s : added.split(text, stages.normalizer())) {
            if (s.id() >= 0) {
                Normalized p = s.piece();
                sink.added(out.size);
                out.add(s.id(), s.value(), p.originalStartOf(0, p.length()), p.originalEndOf(0, p.length()), 0, 0, 0);
            } else if (!s.piece().isEmpty() && !stages(s.piece(), sink, path)) {
                break;
            }
        }
        return sink.finish(sequence);
    }

    /**
     * BERT's stages over a text through the fast path: the added tokens found in the raw text, each piece
     * between them fused ({@link BertFastPath}), or through the stages where the fast path declines it.
     */
    private void fused(String text, TokenSink sink) {
        BertFastPath.Word word = new BertFastPath.Word();
        int done = 0;
        AddedVocabulary.Match m = added.noRawTokenIn(text) ? null : added.nextRaw(text, 0, 0);
        while (true) {
            int to = m == null ? text.length() : m.start();
            if (done < to) {
                int r = fast.tokenize(text, done, to, word, sink);
                if (r == BertFastPath.STOPPED || (r == BertFastPath.FALLBACK
                        && !stages(stages.normalizer().normalize(Normalized.of(text, done, to)), sink, null))) {
                    return;
                }
            }
            if (m == null) {
                return;
            }
            sink.added(sink.out.size);
            sink.out.add(m.token().id(), text.substring(m.start(), m.stop()), m.start(), m.stop(), 0, 0, 0);
            done = m.stop();
            m = added.nextRaw(text, m.resume(), m.stop());
        }
    }

    /** The pre-tokenizer and model over a normalised piece; false when the sink stopped the text. */
    private boolean stages(Normalized piece, TokenSink sink, WordPath path) {
        if (path != null) {
            return splitter.split(piece, path);
        }
        List<Normalized> words = stages.preTokenizer() == null ? List.of(piece) : stages.preTokenizer().split(piece);
        for (Normalized w : words) {
            if (!w.isEmpty()) {
                int before = sink.out.size;
                stages.model().tokenize(w, sink.out);
                if (sink.word(before)) {
                    return false;
                }
            }
        }
        return true;
    }

    private Tokens tokens(String text, int sequence, EncodeOptions options) {
        return options.truncation() == org.vectorbert.tokenizer.Truncation.NONE
                ? tokens(text, sequence, Integer.MAX_VALUE, EncodeOptions.Side.RIGHT)
                : tokens(text, sequence, maxLength(options), options.truncationSide());
    }

    @Override
    public Encoding encode(String first, String second, EncodeOptions options) {
        Objects.requireNonNull(first, "first");
        Tokens t = Assembly.assemble(tokens(first, 0, options), second == null ? null : tokens(second, 1, options),
                options, stages.postProcessor(), maxLength(options));
        if (options.padding() == Padding.MAX_LENGTH) {
            Assembly.pad(t, padLength(options), options, stages.pad());
        } else if (options.padding() == Padding.LONGEST && stages.pad() != null) {
            // One text is its own batch: the library pads its overflow windows to its length and
            // all of them up to pad_to_multiple_of (stages-splits pads left to multiples of 8).
            Assembly.pad(t, t.size, options, stages.pad());
        }
        return t.toEncoding();
    }

    @Override
    public List<Encoding> encodeBatch(List<String> firsts, List<String> seconds, EncodeOptions options) {
        if (seconds != null && seconds.size() != firsts.size()) {
            throw new TokenizerException("a batch of pairs needs as many second texts (" + seconds.size()
                    + ") as first texts (" + firsts.size() + ")");
        }
        List<Tokens> all = new ArrayList<>(firsts.size());
        int longest = 0;
        for (int i = 0; i < firsts.size(); i++) {
            String second = seconds == null ? null : seconds.get(i);
            Tokens t = Assembly.assemble(tokens(firsts.get(i), 0, options),
                    second == null ? null : tokens(second, 1, options), options, stages.postProcessor(), maxLength(options));
            longest = Math.max(longest, t.size);
            all.add(t);
        }
        int target = switch (options.padding()) {
            case NONE -> -1;
            case LONGEST -> longest;
            case MAX_LENGTH -> padLength(options);
        };
        List<Encoding> out = new ArrayList<>(all.size());
        for (Tokens t : all) {
            if (target >= 0) {
                Assembly.pad(t, target, options, stages.pad());
            }
            out.add(t.toEncoding());
        }
        return out;
    }

    private int padLength(EncodeOptions options) {
        return options.padToLength() > 0 ? options.padToLength() : maxLength(options);
    }

    private int maxLength(EncodeOptions options) {
        return options.maxLength() > 0 ? options.maxLength() : stages.modelMaxLength();
    }

    @Override
    public EncodeOptions defaultOptions() {
        return stages.defaultOptions();
    }

    @Override
    public String decode(int[] ids, boolean skipSpecialTokens) {
        List<String> tokens = new ArrayList<>(ids.length);
        for (int id : ids) {
            String t = idToToken(id);
            if (t != null && !(skipSpecialTokens && specialIds.get(id))) {
                tokens.add(t);
            }
        }
        return tokensToText(tokens);
    }

    @Override
    public String tokensToText(List<String> tokens) {
        Decoder d = stages.decoder() == null ? new Decoder.Spaces() : stages.decoder();
        return String.join("", d.decode(tokens));
    }

    @Override
    public int tokenToId(String token) {
        Integer id = addedIds.get(token);
        return id != null ? id : stages.model().tokenToId(token);
    }

    @Override
    public String idToToken(int id) {
        String t = addedTokens.get(id);
        return t != null ? t : stages.model().idToToken(id);
    }

    @Override
    public int vocabSize() {
        int n = stages.model().vocabSize();
        for (var e : addedIds.entrySet()) {
            if (stages.model().tokenToId(e.getKey()) < 0) {
                n++;
            }
        }
        return n;
    }

    @Override
    public int maskTokenId() {
        if (stages.roles().mask() < 0) {
            throw new TokenizerException("this tokenizer has no mask token");
        }
        return stages.roles().mask();
    }

    @Override
    public int padTokenId() {
        if (stages.roles().pad() < 0) {
            throw new TokenizerException("this tokenizer has no padding token");
        }
        return stages.roles().pad();
    }

    @Override
    public int unkTokenId() {
        return stages.roles().unk();
    }

    @Override
    public boolean isSpecialId(int id) {
        return specialIds.get(id);
    }

    @Override
    public Template template() {
        return stages.postProcessor().template();
    }

    @Override
    public int modelMaxLength() {
        return stages.modelMaxLength();
    }

    @Override
    public String continuingSubwordPrefix() {
        return stages.model().continuingSubwordPrefix();
    }
}
