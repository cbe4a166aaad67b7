package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.vectorbert.loader.Labels;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;

/**
 * Text classification with a {@code *ForSequenceClassification} checkpoint, as transformers'
 * text-classification pipeline does it: texts or text pairs, each given a score per label
 * ({@code id2label}), made of the logits by softmax, sigmoid or nothing ({@link Function#defaultFor}
 * picks as the pipeline does), sorted, cut to the top k. Texts are grouped by length into forward
 * passes of at most {@link EmbeddingOptions#BATCH_TOKENS} positions. Thread-safe.
 *
 * <pre>{@code
 * TextClassifier classifier = TextClassifier.load("path/to/sentiment-model");
 * classifier.classify("I loved it.").getFirst();   // Label[label=POSITIVE, score=0.998]
 * }</pre>
 */
public final class TextClassifier {
    /**
     * One label and its score.
     *
     * @param label the label's name
     * @param score its score
     */
    public record Label(String label, float score) {}

    /**
     * One input's labels, best first, with its length in tokens (special tokens included, after any cut).
     *
     * @param truncated whether the input was cut to {@link #maxTokens()}
     * @param labels    the labels kept, best first
     * @param tokens    the input's length in tokens
     */
    public record Result(List<Label> labels, int tokens, boolean truncated) {}

    /** Logits, [inputs, labels] row-major, with each input's length in tokens and whether it was cut. */
    record Logits(float[] values, int[] tokens, boolean[] truncated) {}

    /** How logits become scores: the pipeline's {@code function_to_apply}. */
    public enum Function {
        /** Probabilities over the labels, summing to 1. */
        SOFTMAX,
        /** Each label's probability on its own. */
        SIGMOID,
        /** The logits as they are. */
        NONE;

        /**
         * The text-classification pipeline's default: none for regression; sigmoid for multi-label
         * classification or a single label; softmax otherwise.
         *
         * @param labels the model's labels and problem type
         * @return the function
         */
        public static Function defaultFor(Labels labels) {
            if ("regression".equals(labels.problemType())) {
                return NONE;
            }
            if ("multi_label_classification".equals(labels.problemType()) || labels.count() == 1) {
                return SIGMOID;
            }
            return SOFTMAX;
        }

        /**
         * "softmax", "sigmoid" or "none", in any case.
         *
         * @param name the function's name
         * @return the function
         */
        public static Function parse(String name) {
            try {
                return valueOf(name.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new EngineException("function_to_apply must be softmax, sigmoid or none, not '" + name + "'");
            }
        }

        /**
         * The scores of one row of logits.
         *
         * @param logits an array of logits
         * @param from   where the row starts
         * @param n      the row's length: the number of labels
         * @return n scores
         */
        public float[] apply(float[] logits, int from, int n) {
            float[] s = Arrays.copyOfRange(logits, from, from + n);
            switch (this) {
                case SOFTMAX -> {
                    float max = Float.NEGATIVE_INFINITY;
                    for (float v : s) {
                        max = Math.max(max, v);
                    }
                    double sum = 0;
                    for (int i = 0; i < n; i++) {
                        s[i] = (float) Math.exp(s[i] - max);
                        sum += s[i];
                    }
                    for (int i = 0; i < n; i++) {
                        s[i] = (float) (s[i] / sum);
                    }
                }
                case SIGMOID -> {
                    for (int i = 0; i < n; i++) {
                        s[i] = (float) (1 / (1 + Math.exp(-s[i])));
                    }
                }
                case NONE -> { }
            }
            return s;
        }
    }

    private final Encoder model;
    private final Tokenizer tokenizer;
    private final Labels labels;
    private final int maxTokens;
    private final YesNoPrompt prompt;     // a causal LM reranker's (Qwen3-Reranker), or null for a classifier head

    private TextClassifier(Encoder model, Tokenizer tokenizer) {
        this(model, tokenizer, model.heads().contains(HeadKind.SEQUENCE_CLASSIFIER) ? null : YesNoPrompt.of(model, tokenizer).orElse(null));
    }

    private TextClassifier(Encoder model, Tokenizer tokenizer, YesNoPrompt prompt) {
        this.prompt = prompt;
        if (prompt == null) {
            model.requireHead(HeadKind.SEQUENCE_CLASSIFIER, ": it cannot classify texts or rerank");
        }
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.labels = prompt == null ? model.labels() : new Labels(List.of("yes"), null);
        this.maxTokens = Math.min(model.config().maxTokens(), tokenizer.modelMaxLength());
    }

    /**
     * The model {@code model} names (a directory or a Hugging Face id), in float32.
     *
     * @param model what {@code --model} accepts
     * @return the classifier
     */
    public static TextClassifier load(String model) {
        return load(model, Precision.F32);
    }

    /**
     * The model {@code model} names, its matrices held at {@code precision}.
     *
     * @param model     what {@code --model} accepts
     * @param precision F32 or BF16
     * @return the classifier
     */
    public static TextClassifier load(String model, Precision precision) {
        return ModelLoading.load(model, precision, TextClassifier::of);
    }

    /**
     * A classifier over a model and tokenizer already loaded.
     *
     * @param model     a model with a sequence-classification head
     * @param tokenizer its tokenizer
     * @return the classifier
     */
    public static TextClassifier of(Encoder model, Tokenizer tokenizer) {
        return new TextClassifier(model, tokenizer);
    }

    /**
     * The classifier over a model already loaded, when it has one: a sequence-classification head, or a causal LM that
     * reranks by answering yes or no (Qwen3-Reranker); else empty.
     *
     * @param model     a model
     * @param tokenizer its tokenizer
     * @return the classifier, or empty
     */
    public static Optional<TextClassifier> ifAny(Encoder model, Tokenizer tokenizer) {
        if (model.heads().contains(HeadKind.SEQUENCE_CLASSIFIER)) {
            return Optional.of(new TextClassifier(model, tokenizer, null));
        }
        return YesNoPrompt.of(model, tokenizer).map(p -> new TextClassifier(model, tokenizer, p));
    }

    /** {@return the model} */
    public Encoder model() {
        return model;
    }

    /** {@return the tokenizer} */
    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** {@return config.json's labels, in id order, with the problem type} */
    public Labels labels() {
        return labels;
    }

    /** {@return the longest input the model takes, in tokens, special tokens included} */
    public int maxTokens() {
        return maxTokens;
    }

    /**
     * Every label of {@code text}, best first, scored as the pipeline does by default.
     *
     * @param text the text
     * @return its labels
     */
    public List<Label> classify(String text) {
        return classify(List.of(text), null, Function.defaultFor(labels), labels.count(), false).getFirst().labels();
    }

    /**
     * For each text (or pair, when {@code pairs} is not null), the {@code topK} best labels, best first
     * (all of them when there are fewer; none for 0, as the pipeline gives).
     *
     * @param function how logits become scores
     * @param truncate whether inputs longer than {@link #maxTokens()} are cut (longest first), else refused
     * @param texts    the texts, or each pair's first text
     * @param pairs    each pair's second text, or null for single texts
     * @param topK     how many labels to keep
     * @return one result per input, in order
     */
    public List<Result> classify(List<String> texts, List<String> pairs, Function function, int topK, boolean truncate) {
        if (topK < 0) {
            throw new EngineException("top_k must not be negative, was " + topK);
        }
        Logits logits = run(texts, pairs, truncate);
        List<Result> results = new ArrayList<>(texts.size());
        for (int t = 0; t < texts.size(); t++) {
            results.add(new Result(labels(logits.values(), t * labels.count(), function, topK), logits.tokens()[t],
                    logits.truncated()[t]));
        }
        return results;
    }

    /**
     * The {@code topK} best labels of the logits at {@code logits[from, from + labels)}, best first, scored
     * by {@code function} (equal scores keep id order, as Python's sorted does).
     *
     * @param logits   an array of logits
     * @param from     where the input's row starts
     * @param function how logits become scores
     * @param topK     how many labels to keep
     * @return the labels kept
     */
    public List<Label> labels(float[] logits, int from, Function function, int topK) {
        return labels(labels, logits, from, function, topK);
    }

    /**
     * {@link #labels(float[], int, Function, int)} for a classifier known by its {@code labels} alone (as a server's
     * /info describes it), so that logits computed elsewhere are scored and ordered as here.
     *
     * @param labels   the classifier's labels
     * @param logits   an array of logits
     * @param from     where the input's row starts
     * @param function how logits become scores
     * @param topK     how many labels to keep
     * @return the labels kept
     */
    public static List<Label> labels(Labels labels, float[] logits, int from, Function function, int topK) {
        int n = labels.count();
        float[] scores = function.apply(logits, from, n);
        List<Label> row = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            row.add(new Label(labels.names().get(i), scores[i]));
        }
        row.sort(Comparator.comparingDouble((Label l) -> l.score()).reversed());
        return List.copyOf(row.subList(0, Math.min(topK, n)));
    }

    /**
     * The classifier's logits, [texts, labels] row-major, for texts or pairs (null for single texts),
     * grouped by length into forward passes.
     *
     * @param texts    the texts, or each pair's first text
     * @param pairs    each pair's second text, or null for single texts
     * @param truncate whether inputs longer than {@link #maxTokens()} are cut (longest first), else refused
     * @return the logits
     */
    public float[] logits(List<String> texts, List<String> pairs, boolean truncate) {
        return run(texts, pairs, truncate).values();
    }

    /**
     * Texts or pairs (null for single texts) encoded as {@link #classify} encodes them: cut, longest first, to
     * {@link #maxTokens()} when {@code truncate}, else refused when longer ({@link TextTooLongException}).
     * With {@link #forward}, a caller that batches inputs itself (the server, across requests) gets the same logits.
     *
     * @param texts    the texts, or each pair's first text
     * @param pairs    each pair's second text, or null for single texts
     * @param truncate whether inputs longer than {@link #maxTokens()} are cut (longest first), else refused
     * @return one encoding per input
     */
    public List<Encoding> encode(List<String> texts, List<String> pairs, boolean truncate) {
        return encode(texts, pairs, truncate ? Truncation.LONGEST_FIRST : null);
    }

    /** {@link #encode(List, List, boolean)}, cut by {@code truncation} (null: refused when too long). */
    List<Encoding> encode(List<String> texts, List<String> pairs, Truncation truncation) {
        if (pairs != null && pairs.size() != texts.size()) {
            throw new EngineException("there are " + texts.size() + " texts but " + pairs.size() + " second texts of pairs");
        }
        if (prompt != null) {
            if (pairs == null) {
                throw new EngineException(model.directory() + " is a reranker (a causal LM answering yes or no): it scores a query"
                        + " and a document, not a text alone");
            }
            List<Encoding> prompted = new ArrayList<>(texts.size());
            for (int i = 0; i < texts.size(); i++) {
                prompted.add(prompt.encode(tokenizer, texts.get(i), pairs.get(i), maxTokens, truncation != null));
                if (prompted.getLast().length() > maxTokens) {
                    throw new TextTooLongException(texts.get(i), texts.get(i) + " / " + pairs.get(i), prompted.getLast().length(), maxTokens, true);
                }
            }
            return prompted;
        }
        EncodeOptions options = EncodeOptions.defaults().withPadding(Padding.NONE);
        if (truncation != null) {
            options = options.withTruncation(truncation).withMaxLength(maxTokens);
        }
        List<Encoding> encodings = tokenizer.encodeBatch(texts, pairs, options);
        for (int i = 0; i < encodings.size(); i++) {
            if (encodings.get(i).length() > maxTokens) {
                throw new TextTooLongException(texts.get(i), pairs == null ? texts.get(i) : texts.get(i) + " / " + pairs.get(i),
                        encodings.get(i).length(), maxTokens, true);
            }
        }
        return encodings;
    }

    /**
     * The logits of encoded inputs ({@link #encode}) in one forward pass, [inputs, labels] row-major.
     *
     * @param encodings inputs encoded by {@link #encode}
     * @return the logits
     */
    public float[] forward(List<Encoding> encodings) {
        Batch batch = Batch.of(encodings, tokenizer.padTokenId());
        if (prompt != null) {
            int[] last = new int[batch.size()];
            Arrays.setAll(last, b -> b * batch.length() + batch.lengths()[b] - 1);
            int vocab = model.config().vocabSize();
            return model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.CAUSAL_LM, last).lastHiddenStateOnlyAt(),
                    o -> prompt.scores(o.heads().get(HeadKind.CAUSAL_LM), encodings.size(), vocab));
        }
        return model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.SEQUENCE_CLASSIFIER, null).lastHiddenStateOnlyAt(),
                o -> Arrays.copyOf(o.heads().get(HeadKind.SEQUENCE_CLASSIFIER), encodings.size() * labels.count()));
    }

    Logits run(List<String> texts, List<String> pairs, boolean truncate) {
        return run(texts, pairs, truncate ? Truncation.LONGEST_FIRST : null);
    }

    /** The logits of texts or pairs cut by {@code truncation} (null: refused when too long). */
    Logits run(List<String> texts, List<String> pairs, Truncation truncation) {
        List<Encoding> encodings = encode(texts, pairs, truncation);
        int[] tokens = new int[encodings.size()];
        boolean[] truncated = new boolean[encodings.size()];
        for (int i = 0; i < encodings.size(); i++) {
            tokens[i] = encodings.get(i).length();
            truncated[i] = !encodings.get(i).overflowing().isEmpty();
        }
        int n = labels.count();
        float[] logits = new float[texts.size() * n];
        for (List<Integer> members : LengthBatches.of(tokens, EmbeddingOptions.BATCH_TOKENS)) {
            float[] out = forward(members.stream().map(encodings::get).toList());
            for (int b = 0; b < members.size(); b++) {
                System.arraycopy(out, b * n, logits, members.get(b) * n, n);
            }
        }
        return new Logits(logits, tokens, truncated);
    }
}
