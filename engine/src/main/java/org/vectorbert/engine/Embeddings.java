package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.loader.NomicBertConfig;
import org.vectorbert.loader.SentenceTransformersConfig;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Truncation;

/**
 * Texts to vectors, one per text, with sentence-transformers' semantics: a model directory's
 * sentence-transformers files decide the pooling, normalisation, maximum length and prompts
 * unless the options say otherwise. Texts given together are grouped by length into forward passes
 * of about {@link EmbeddingOptions#batchTokens()} positions, so little of the work is padding, and
 * come back in the order given. Thread-safe.
 *
 * <pre>{@code
 * Embeddings embeddings = Embeddings.load("sentence-transformers/all-MiniLM-L6-v2");   // its own settings
 * float[] v = embeddings.embed("A sentence.");
 * List<float[]> vs = embeddings.embed(List.of("One.", "Two."));
 * }</pre>
 */
public final class Embeddings {
    private final Encoder model;
    private final Tokenizer tokenizer;
    /** The model's sentence-transformers settings, if it has any. */
    private final Optional<SentenceTransformersConfig> declared;
    /** With the model's declarations filled in: no null field but promptName. */
    private final EmbeddingOptions options;
    /** Texts are cut to (or refused beyond) this many tokens, special tokens included. */
    private final int maxTokens;
    /** Tokens of the prompt left out of the pooling ([CLS] and the prompt's), 0 when the prompt counts. */
    private final int promptTokens;
    private final boolean lowercase;
    /** sentence-transformers' Dense modules after the pooling. */
    private final DenseModules dense;

    private Embeddings(Encoder model, Tokenizer tokenizer, Optional<SentenceTransformersConfig> declared,
                       EmbeddingOptions asked) {
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.declared = declared;
        this.options = asked.resolved(declared, model.precision(), model.config().causal() ? Pooling.LAST_TOKEN : Pooling.CLS);
        this.dense = declared.map(d -> DenseModules.load(d.dense(), model.config().hiddenSize() * options.pooling().size()))
                .orElse(DenseModules.NONE);
        int full = dense.width(model.config().hiddenSize() * options.pooling().size());
        if (options.dimensions() != null && (options.dimensions() < 1 || options.dimensions() > full)) {
            throw new EngineException("dimensions must be from 1 to the model's " + full + ", was " + options.dimensions());
        }
        int max = Math.min(model.config().maxTokens(), tokenizer.modelMaxLength());
        this.maxTokens = declared.map(SentenceTransformersConfig::maxSeqLength).filter(n -> n > 0).map(n -> Math.min(n, max)).orElse(max);
        this.lowercase = declared.map(SentenceTransformersConfig::doLowerCase).orElse(false);
        boolean prompted = !options.prompt().isEmpty() && !declared.map(SentenceTransformersConfig::includePrompt).orElse(true);
        // sentence-transformers leaves out the prompt encoded alone, less its one closing special token ([SEP], </s>).
        this.promptTokens = prompted ? tokenizer.encode(options.prompt()).length() - tokenizer.template().singleAfter() : 0;
    }

    /** {@return the default model, bert-base-uncased (made on first use), with its own settings} */
    public static Embeddings load() {
        return load(null, EmbeddingOptions.defaults());
    }

    /**
     * The model {@code model} names (a directory, a TensorFlow checkpoint or ONNX export, or a Hugging
     * Face id such as {@code sentence-transformers/all-MiniLM-L6-v2}, resolved as {@link ModelResolver}
     * describes), with its own settings.
     *
     * @param model what {@code --model} accepts
     * @return the pipeline
     */
    public static Embeddings load(String model) {
        return load(model, EmbeddingOptions.defaults());
    }

    /**
     * The model {@code model} names (null for the default), with {@code options}.
     *
     * @param model   what {@code --model} accepts, or null for the default model
     * @param options the options; null fields are the model's declarations
     * @return the pipeline
     */
    public static Embeddings load(String model, EmbeddingOptions options) {
        return ModelLoading.load(model, options.precision(), (m, t) -> of(m, t, options));
    }

    /**
     * A pipeline over a model and tokenizer already loaded (several pipelines may share them).
     *
     * @param model     the model
     * @param tokenizer its tokenizer
     * @param options   the options; null fields are the model's declarations
     * @return the pipeline
     */
    public static Embeddings of(Encoder model, Tokenizer tokenizer, EmbeddingOptions options) {
        return new Embeddings(model, tokenizer, SentenceTransformersConfig.read(model.directory()), options);
    }

    /**
     * The same model with other options (the model's declarations fill what they leave null); the precision stays the
     * loaded model's.
     *
     * @param other the options
     * @return a new pipeline over the same model
     */
    public Embeddings with(EmbeddingOptions other) {
        return new Embeddings(model, tokenizer, declared, other);
    }

    /**
     * One text's vector.
     *
     * @param text the text
     * @return its vector
     */
    public float[] embed(String text) {
        return embed(List.of(text)).getFirst();
    }

    /**
     * One vector per text, in order.
     *
     * @param texts the texts
     * @return their vectors
     */
    public List<float[]> embed(List<String> texts) {
        return run(texts, null).stream().map(Result::pooled).toList();
    }

    /** {@return the length of the vectors: the model's hidden size times the number of pooling modes, or the options' dimensions} */
    public int dimension() {
        return options.dimensions() != null ? options.dimensions() : dense.width(model.config().hiddenSize() * options.pooling().size());
    }

    /**
     * The text the tokenizer is given for {@code text}: the prompt before it, lower-cased when the model's
     * sentence-transformers settings say {@code do_lower_case}.
     *
     * @param text a text as given
     * @return the text the tokenizer is given
     */
    public String modelInput(String text) {
        String input = options.prompt() + text;
        return lowercase ? input.toLowerCase(Locale.ROOT) : input;
    }

    /** {@return the options in effect, with the model's declarations filled in (the prompt resolved to its text)} */
    public EmbeddingOptions options() {
        return options;
    }

    /** {@return how many tokens, special tokens included, texts are cut to or refused beyond} */
    public int maxTokens() {
        return maxTokens;
    }

    /** {@return the encoder} */
    public Encoder model() {
        return model;
    }

    /** {@return the tokenizer texts go through} */
    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /**
     * Everything about one text from its forward pass.
     *
     * @param ids          its token ids (the prompt's included)
     * @param pooled       its vector (pooled as the options say, normalised if they say so)
     * @param tokenVectors every token's vector, [length, hidden] row-major, or null unless asked
     * @param attentions   [layer][head][query][key], or null unless asked
     * @param queries      [layer][head][token][head size]: each layer's queries after the projection, or null unless asked
     * @param keys         [layer][head][token][head size]: each layer's keys, or null unless asked
     * @param truncated    whether the text was cut to {@link #maxTokens()}
     * @param batchLength  the length its batch was padded to (its own length, or more)
     * @param secondStart  where a pair's second text starts among the ids (after the template's tokens between), or -1
     */
    public record Result(int[] ids, float[] pooled, float[] tokenVectors, float[][][][] attentions, float[][][][] queries,
                         float[][][][] keys, boolean truncated, int batchLength, int secondStart) {}

    /** What {@link #run} gives beyond each text's ids and vector. */
    public enum Include {
        /** Every token's vector (the last hidden state, without padding). */
        TOKEN_VECTORS,
        /** Every layer's attention probabilities. */
        ATTENTIONS,
        /** Every layer's queries and keys, split into heads (what bertviz's neuron view shows). */
        QUERIES_AND_KEYS
    }

    /**
     * Several texts (or pairs, {@code [CLS] text [SEP] pair [SEP]}, when {@code pairs} is not null),
     * one {@link Result} each, in order, with what {@code include} asks. The texts are grouped by
     * length into forward passes of at most {@code batchTokens} positions.
     *
     * @param texts   the texts, or each pair's first text
     * @param pairs   each pair's second text, or null for single texts
     * @param include what to return beyond the pooled vector
     * @return one result per text
     */
    public List<Result> run(List<String> texts, List<String> pairs, Include... include) {
        List<Prepared> prepared = prepare(texts, pairs, TruncationSide.RIGHT);
        Result[] results = new Result[prepared.size()];
        for (List<Integer> members : LengthBatches.of(prepared.stream().mapToInt(Prepared::length).toArray(), options.batchTokens())) {
            List<Result> done = forward(members.stream().map(prepared::get).toList(), include);
            for (int b = 0; b < members.size(); b++) {
                results[members.get(b)] = done.get(b);
            }
        }
        return List.of(results);
    }

    /**
     * A text tokenized and ready for {@link #forward}, carrying what its pipeline decided about it:
     * texts prepared by differently configured pipelines over the same model (see {@link #with}) may
     * share a forward pass, which is how a server batches many clients' requests together.
     *
     * @param ids           token ids, special tokens and the prompt's included
     * @param typeIds       token type ids, one per id
     * @param truncated     whether the text was cut to {@link #maxTokens()}
     * @param promptTokens  leading tokens the pooling leaves out ([CLS] and the prompt's), 0 when the prompt counts
     * @param normalize     whether its vector is scaled to unit length (after the cut to {@code dimensions})
     * @param secondStart   where a pair's second text starts among the ids, or -1 for a single text
     * @param dimensions    how many of its vector's first components are kept
     */
    public record Prepared(int[] ids, int[] typeIds, boolean truncated, int promptTokens, boolean normalize, int secondStart,
                           int dimensions) {
        /** {@return its length in tokens, which is what it costs in a forward pass} */
        public int length() {
            return ids.length;
        }
    }

    /**
     * Each text (or pair) tokenized as this pipeline's options say: the prompt put first, cut to
     * {@link #maxTokens()} from {@code side} when truncation is on, else refused with a
     * {@link TextTooLongException} naming it. Only single texts can be cut from the left.
     *
     * @param texts the texts, or each pair's first text
     * @param pairs each pair's second text, or null for single texts
     * @param side  which end long texts are cut from
     * @return one prepared input per text
     */
    public List<Prepared> prepare(List<String> texts, List<String> pairs, TruncationSide side) {
        if (pairs != null && side == TruncationSide.LEFT) {
            throw new EngineException("pairs of texts can only be cut from the right");
        }
        // sentence-transformers puts the prompt first, then lower-cases the whole input when the model says so.
        List<String> inputs = texts.stream().map(this::modelInput)
                .toList();
        List<Encoding> encodings = tokenizer.encodeBatch(inputs, pairs, EncodeOptions.defaults().withPadding(Padding.NONE));
        EncodeOptions cut = EncodeOptions.defaults().withTruncation(Truncation.LONGEST_FIRST).withMaxLength(maxTokens);
        List<Prepared> prepared = new ArrayList<>(encodings.size());
        for (int i = 0; i < encodings.size(); i++) {
            Encoding e = encodings.get(i);
            if (e.length() <= maxTokens) {
                prepared.add(new Prepared(e.ids(), e.typeIds(), false, promptTokens, options.normalize(), secondStart(e), dimension()));
            } else if (!options.truncate()) {
                throw new TextTooLongException(texts.get(i), e.length(), maxTokens, true);
            } else if (side == TruncationSide.LEFT) {
                prepared.add(cutFromLeft(e));
            } else {
                Encoding c = pairs == null ? tokenizer.encode(inputs.get(i), cut) : tokenizer.encode(inputs.get(i), pairs.get(i), cut);
                prepared.add(new Prepared(c.ids(), c.typeIds(), true, promptTokens, options.normalize(), secondStart(c), dimension()));
            }
        }
        return prepared;
    }

    /**
     * A single text's encoding cut to {@link #maxTokens()} by dropping the text's first tokens, after the special
     * tokens the template puts before it ([CLS], {@code <s>}): Hugging Face's {@code truncation_side="left"}, the
     * text's end kept. A prompt, being first, goes first.
     */
    private Prepared cutFromLeft(Encoding e) {
        int drop = e.length() - maxTokens;
        int before = tokenizer.template().singleBefore();
        int[] ids = new int[maxTokens];
        System.arraycopy(e.ids(), 0, ids, 0, before);
        System.arraycopy(e.ids(), before + drop, ids, before, maxTokens - before);
        return new Prepared(ids, new int[maxTokens], true, Math.max(0, promptTokens - drop), options.normalize(), -1, dimension());
    }

    /** The first position of a pair's second text in its encoding, or -1 for a single text. */
    private static int secondStart(Encoding e) {
        for (int i = 0; i < e.length(); i++) {
            if (e.sequenceIds()[i] == 1) {
                return i;
            }
        }
        return -1;
    }

    /**
     * One forward pass over {@code batch} (padded to its longest), one {@link Result} per text in the
     * same order, with what {@code include} asks. Each text is pooled as the pipeline that prepared it
     * says (this pipeline's pooling modes are the batch's).
     *
     * @param batch   inputs {@link #prepare}d by this pipeline or another over the same model
     * @param include what to return beyond the pooled vector
     * @return one result per input
     */
    public List<Result> forward(List<Prepared> batch, Include... include) {
        boolean tokenVectors = List.of(include).contains(Include.TOKEN_VECTORS);
        boolean attentions = List.of(include).contains(Include.ATTENTIONS);
        boolean queriesAndKeys = List.of(include).contains(Include.QUERIES_AND_KEYS);
        Batch ids = Batch.of(batch.stream().map(Prepared::ids).toList(), batch.stream().map(Prepared::typeIds).toList(),
                tokenizer.padTokenId());
        Encoder.Request request = Encoder.Request.lastHiddenState();
        request = options.pooling().contains(Pooling.POOLER) ? request.withPooled() : request;
        request = attentions ? request.withAttentions() : request;
        request = queriesAndKeys ? request.withQueriesAndKeys() : request;
        request = tokenVectors ? request : readOnlyWhatPools(request, ids);
        int hidden = model.config().hiddenSize();
        int heads = model.config().numAttentionHeads();
        int headSize = model.config().headSize();
        boolean matryoshkaLayerNorm = options.dimensions() != null && model.config() instanceof NomicBertConfig;
        return model.forward(ids, request, out -> {
            List<Result> results = new ArrayList<>(batch.size());
            for (int b = 0; b < batch.size(); b++) {
                Prepared p = batch.get(b);
                int n = ids.lengths()[b];
                int start = b * ids.length() * hidden;
                float[] pooled = Pool.pool(options.pooling(), out.lastHiddenState(), start, Math.min(p.promptTokens(), n - 1), n, hidden,
                        out.pooled(), b * hidden);
                pooled = dense.apply(pooled);
                pooled = matryoshkaLayerNorm ? Pool.layerNorm(pooled) : pooled;     // nomic-embed-text-v1.5's: layer_norm, then the cut
                pooled = p.dimensions() < pooled.length ? Arrays.copyOf(pooled, p.dimensions()) : pooled;
                results.add(new Result(p.ids(), p.normalize() ? Pool.l2Normalize(pooled) : pooled,
                        tokenVectors ? Arrays.copyOfRange(out.lastHiddenState(), start, start + n * hidden) : null,
                        attentions ? PerHead.attentions(out, b, heads) : null,
                        queriesAndKeys ? PerHead.split(out.queries(), ids, b, heads, headSize) : null,
                        queriesAndKeys ? PerHead.split(out.keys(), ids, b, heads, headSize) : null, p.truncated(), ids.length(),
                        p.secondStart()));
            }
            return results;
        });
    }

    /**
     * The request, reading the last hidden state only where the pooling reads it when that is one token a text ([CLS],
     * the last token, the pooler's [CLS]): the last layer then computes those rows alone ({@link RowSelection}).
     */
    private Encoder.Request readOnlyWhatPools(Encoder.Request request, Batch ids) {
        List<Pooling> modes = options.pooling();
        if (!Set.of(Pooling.CLS, Pooling.LAST_TOKEN, Pooling.POOLER).containsAll(modes)) {
            return request;
        }
        List<Integer> rows = new ArrayList<>();
        for (int b = 0; b < ids.size(); b++) {
            if (modes.contains(Pooling.CLS)) {
                rows.add(b * ids.length());
            }
            if (modes.contains(Pooling.LAST_TOKEN)) {
                rows.add(b * ids.length() + ids.lengths()[b] - 1);
            }
        }
        return request.lastHiddenStateOnlyAt(rows.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * Whether {@code text} gives at least one token. A text that gives none (empty, or only spaces,
     * control characters and the like) is embedded as sentence-transformers and Hugging Face embed it,
     * as the template's special tokens alone ({@code [CLS] [SEP]}): every such text gets the same vector, which
     * callers may want to know.
     *
     * @param text the text
     * @return whether it gives a token
     */
    public boolean hasTokens(String text) {
        return text.codePoints().anyMatch(Character::isLetterOrDigit)
                || tokenizer.encode(text, EncodeOptions.defaults().withAddSpecialTokens(false)).length() > 0;
    }
}
