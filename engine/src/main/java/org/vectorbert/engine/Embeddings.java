package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.loader.SentenceTransformersConfig;
import org.vectorbert.tokenizer.BertTokenizer;
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
    private final BertModel model;
    private final BertTokenizer tokenizer;
    /** The model's sentence-transformers settings, if it has any. */
    private final Optional<SentenceTransformersConfig> declared;
    /** With the model's declarations filled in: no null field but promptName. */
    private final EmbeddingOptions options;
    /** Texts are cut to (or refused beyond) this many tokens, special tokens included. */
    private final int maxTokens;
    /** Tokens of the prompt left out of the pooling ([CLS] and the prompt's), 0 when the prompt counts. */
    private final int promptTokens;
    private final boolean lowercase;

    private Embeddings(BertModel model, BertTokenizer tokenizer, Optional<SentenceTransformersConfig> declared,
                       EmbeddingOptions asked) {
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.declared = declared;
        this.options = resolve(asked, declared, model.precision());
        int max = Math.min(model.config().maxPositionEmbeddings(), tokenizer.config().modelMaxLength());
        this.maxTokens = declared.map(SentenceTransformersConfig::maxSeqLength).filter(n -> n > 0).map(n -> Math.min(n, max)).orElse(max);
        this.lowercase = declared.map(SentenceTransformersConfig::doLowerCase).orElse(false);
        boolean prompted = !options.prompt().isEmpty() && !declared.map(SentenceTransformersConfig::includePrompt).orElse(true);
        this.promptTokens = prompted ? tokenizer.encode(options.prompt()).length() - 1 : 0;
    }

    /** The options asked for, with what the model declares where they say nothing. */
    private static EmbeddingOptions resolve(EmbeddingOptions asked, Optional<SentenceTransformersConfig> declared, Precision precision) {
        List<Pooling> pooling = asked.pooling() != null ? asked.pooling()
                : declared.filter(d -> !d.poolingModes().isEmpty())
                        .map(d -> d.poolingModes().stream().map(Pooling::parse).toList()).orElse(List.of(Pooling.CLS));
        boolean normalize = asked.normalize() != null ? asked.normalize() : declared.map(SentenceTransformersConfig::normalize).orElse(false);
        // sentence-transformers cuts texts to max_seq_length; a plain checkpoint refuses them unless asked.
        boolean truncate = asked.truncate() != null ? asked.truncate() : declared.isPresent();
        String prompt = asked.prompt();
        if (prompt == null && asked.promptName() != null) {
            prompt = declared.map(d -> d.prompts().get(asked.promptName())).orElseThrow(() -> new EngineException(
                    "the model has no prompt named '" + asked.promptName() + "' (it has "
                            + declared.map(d -> d.prompts().keySet().toString()).orElse("no prompts") + ")"));
        }
        if (prompt == null) {
            prompt = declared.filter(d -> d.defaultPromptName() != null).map(d -> d.prompts().get(d.defaultPromptName())).orElse("");
        }
        return new EmbeddingOptions(precision, pooling, normalize, truncate, prompt, null, asked.batchTokens());
    }

    /** The default model, bert-base-uncased (made on first use), with its own settings. */
    public static Embeddings load() {
        return load(null, EmbeddingOptions.defaults());
    }

    /**
     * The model {@code model} names (a directory, a TensorFlow checkpoint or ONNX export, or a Hugging
     * Face id such as {@code sentence-transformers/all-MiniLM-L6-v2}, resolved as {@link ModelResolver}
     * describes), with its own settings.
     */
    public static Embeddings load(String model) {
        return load(model, EmbeddingOptions.defaults());
    }

    /** The model {@code model} names (null for the default), with {@code options}. */
    public static Embeddings load(String model, EmbeddingOptions options) {
        return ModelLoading.load(model, options.precision(), (m, t) -> of(m, t, options));
    }

    /** A pipeline over a model and tokenizer already loaded (several pipelines may share them). */
    public static Embeddings of(BertModel model, BertTokenizer tokenizer, EmbeddingOptions options) {
        return new Embeddings(model, tokenizer, SentenceTransformersConfig.read(model.directory()), options);
    }

    /** The same model with other options (the model's declarations fill what they leave null); the precision stays the loaded model's. */
    public Embeddings with(EmbeddingOptions other) {
        return new Embeddings(model, tokenizer, declared, other);
    }

    /** One text's vector. */
    public float[] embed(String text) {
        return embed(List.of(text)).getFirst();
    }

    /** One vector per text, in order. */
    public List<float[]> embed(List<String> texts) {
        return run(texts, null).stream().map(Result::pooled).toList();
    }

    /** The length of the vectors: the model's hidden size, times the number of pooling modes. */
    public int dimension() {
        return model.config().hiddenSize() * options.pooling().size();
    }

    /** The options in effect, with the model's declarations filled in (the prompt resolved to its text). */
    public EmbeddingOptions options() {
        return options;
    }

    /** Texts are cut to, or refused beyond, this many tokens (special tokens included). */
    public int maxTokens() {
        return maxTokens;
    }

    /** The encoder. */
    public BertModel model() {
        return model;
    }

    /** The tokenizer texts go through. */
    public BertTokenizer tokenizer() {
        return tokenizer;
    }

    /**
     * Everything about one text from its forward pass.
     *
     * @param ids          its token ids (the prompt's included)
     * @param pooled       its vector (pooled as the options say, normalised if they say so)
     * @param tokenVectors every token's vector, [length, hidden] row-major, or null unless asked
     * @param attentions   [layer][head][query][key], or null unless asked
     * @param truncated    whether the text was cut to {@link #maxTokens()}
     * @param batchLength  the length its batch was padded to (its own length, or more)
     */
    public record Result(int[] ids, float[] pooled, float[] tokenVectors, float[][][][] attentions, boolean truncated,
                         int batchLength) {}

    /** What {@link #run} gives beyond each text's ids and vector. */
    public enum Include {
        /** Every token's vector (the last hidden state, without padding). */
        TOKEN_VECTORS,
        /** Every layer's attention probabilities. */
        ATTENTIONS
    }

    /**
     * Several texts (or pairs, {@code [CLS] text [SEP] pair [SEP]}, when {@code pairs} is not null),
     * one {@link Result} each, in order, with what {@code include} asks. The texts are grouped by
     * length into forward passes of at most {@code batchTokens} positions.
     */
    public List<Result> run(List<String> texts, List<String> pairs, Include... include) {
        boolean tokenVectors = List.of(include).contains(Include.TOKEN_VECTORS);
        boolean attentions = List.of(include).contains(Include.ATTENTIONS);
        Encoded encoded = encode(texts, pairs);
        List<Encoding> encodings = encoded.encodings();
        Integer[] order = new Integer[encodings.size()];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingInt(i -> encodings.get(i).length()));
        Result[] results = new Result[encodings.size()];
        for (int from = 0; from < order.length; ) {
            // Sorted by length, so a batch's last text is its longest: grow it while the padded size fits the budget.
            int to = from + 1;
            while (to < order.length && (to - from + 1) * encodings.get(order[to]).length() <= options.batchTokens()) {
                to++;
            }
            List<Integer> members = Arrays.asList(order).subList(from, to);
            forward(members, encodings, encoded.truncated(), tokenVectors, attentions, results);
            from = to;
        }
        return List.of(results);
    }

    /** One forward pass over the texts at {@code members}, their results into {@code results}. */
    private void forward(List<Integer> members, List<Encoding> encodings, boolean[] truncated, boolean tokenVectors,
                         boolean attentions, Result[] results) {
        Batch batch = Batch.of(members.stream().map(i -> encodings.get(i).ids()).toList(),
                members.stream().map(i -> encodings.get(i).typeIds()).toList(), tokenizer.padTokenId());
        BertModel.Request request = BertModel.Request.lastHiddenState();
        request = options.pooling().contains(Pooling.POOLER) ? request.withPooled() : request;
        request = attentions ? request.withAttentions() : request;
        int hidden = model.config().hiddenSize();
        model.forward(batch, request, out -> {
            for (int b = 0; b < members.size(); b++) {
                int i = members.get(b);
                int n = batch.lengths()[b];
                int start = b * batch.length() * hidden;
                float[] pooled = Pool.pool(options.pooling(), out.lastHiddenState(), start, Math.min(promptTokens, n - 1), n, hidden,
                        out.pooled(), b * hidden);
                results[i] = new Result(encodings.get(i).ids(), options.normalize() ? Pool.l2Normalize(pooled) : pooled,
                        tokenVectors ? Arrays.copyOfRange(out.lastHiddenState(), start, start + n * hidden) : null,
                        attentions ? attentions(out, b) : null, truncated[i], batch.length());
            }
            return null;
        });
    }

    /**
     * Whether {@code text} gives at least one token. A text that gives none (empty, or only spaces,
     * control characters and the like) is embedded as sentence-transformers and Hugging Face embed it,
     * as {@code [CLS] [SEP]} alone: every such text gets the same vector, which callers may want to know.
     */
    public boolean hasTokens(String text) {
        return text.codePoints().anyMatch(Character::isLetterOrDigit) || !tokenizer.tokenize(text).isEmpty();
    }

    /** Encodings in input order, and which were cut. */
    private record Encoded(List<Encoding> encodings, boolean[] truncated) {}

    /**
     * Each text (the prompt before it, lower-cased if the model says so) encoded; one longer than
     * {@link #maxTokens()} is cut when truncation is on, else refused naming it.
     */
    private Encoded encode(List<String> texts, List<String> pairs) {
        // sentence-transformers puts the prompt first, then lower-cases the whole input when the model says so.
        List<String> inputs = texts.stream().map(t -> lowercase ? (options.prompt() + t).toLowerCase(Locale.ROOT) : options.prompt() + t)
                .toList();
        List<Encoding> encodings = new ArrayList<>(tokenizer.encodeBatch(inputs, pairs, EncodeOptions.defaults().withPadding(Padding.NONE)));
        boolean[] truncated = new boolean[encodings.size()];
        EncodeOptions cut = EncodeOptions.defaults().withTruncation(Truncation.LONGEST_FIRST).withMaxLength(maxTokens);
        for (int i = 0; i < encodings.size(); i++) {
            if (encodings.get(i).length() > maxTokens) {
                if (!options.truncate()) {
                    throw new TextTooLongException(texts.get(i), encodings.get(i).length(), maxTokens, true);
                }
                encodings.set(i, pairs == null ? tokenizer.encode(inputs.get(i), cut) : tokenizer.encode(inputs.get(i), pairs.get(i), cut));
                truncated[i] = true;
            }
        }
        return new Encoded(encodings, truncated);
    }

    /** Sequence b's probabilities; the batch is padded to its length, so its rows and keys are read as such. */
    private float[][][][] attentions(BertModel.Output out, int b) {
        int length = out.batch().length();
        int n = out.batch().lengths()[b];
        int heads = model.config().numAttentionHeads();
        float[][][][] result = new float[out.attentions().size()][heads][n][n];
        for (int l = 0; l < result.length; l++) {
            float[] p = out.attentions().get(l);
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < n; i++) {
                    System.arraycopy(p, ((b * heads + h) * length + i) * length, result[l][h][i], 0, n);
                }
            }
        }
        return result;
    }
}
