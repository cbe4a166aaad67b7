package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * Cross-encoder reranking: a query against many texts, each pair scored by a single-label
 * {@code *ForSequenceClassification} checkpoint (cross-encoder/ms-marco-MiniLM-L-6-v2 is a BERT one,
 * bge-reranker-base an XLM-R one) in batched forward passes, the texts sorted by score. Scores are
 * TEI's: the sigmoid of the logit, or the logit itself when raw scores are asked for (what
 * sentence-transformers' CrossEncoder gives for the many rerankers that store an identity activation).
 * Pairs longer than the model takes are cut, longest first, as CrossEncoder and TEI do. Thread-safe.
 *
 * <pre>{@code
 * Reranker reranker = Reranker.load("path/to/ms-marco-MiniLM-L-6-v2");
 * reranker.rank("capital of France", List.of("Paris is in France.", "Bananas are yellow."), false, 10);
 * }</pre>
 */
public final class Reranker {
    /**
     * A text's index in the list given, and its score.
     *
     * @param index the text's index in the list given
     * @param score its score
     */
    public record Score(int index, float score) {}

    private final TextClassifier classifier;

    private Reranker(TextClassifier classifier) {
        if (classifier.labels().count() != 1) {
            throw new EngineException(classifier.model().directory() + " is not a reranker: its classifier has "
                    + classifier.labels().count() + " labels " + classifier.labels().names() + ", a reranker one score");
        }
        this.classifier = classifier;
    }

    /**
     * The model {@code model} names, in float32.
     *
     * @param model what {@code --model} accepts
     * @return the reranker
     */
    public static Reranker load(String model) {
        return load(model, Precision.F32);
    }

    /**
     * The model {@code model} names, its matrices held at {@code precision}.
     *
     * @param model     what {@code --model} accepts
     * @param precision F32 or BF16
     * @return the reranker
     */
    public static Reranker load(String model, Precision precision) {
        return new Reranker(TextClassifier.load(model, precision));
    }

    /**
     * A reranker over a model and tokenizer already loaded.
     *
     * @param model     a model with a one-label sequence-classification head
     * @param tokenizer its tokenizer
     * @return the reranker
     */
    public static Reranker of(Encoder model, Tokenizer tokenizer) {
        return new Reranker(TextClassifier.of(model, tokenizer));
    }

    /**
     * A reranker over a one-label classifier already loaded.
     *
     * @param classifier a classifier with one label
     * @return the reranker
     */
    public static Reranker of(TextClassifier classifier) {
        return new Reranker(classifier);
    }

    /** {@return the classifier it scores with} */
    public TextClassifier classifier() {
        return classifier;
    }

    /**
     * Each text's score against {@code query}, in the texts' order.
     *
     * @param query     the query
     * @param texts     the texts to score against it
     * @param rawScores whether scores are the logits rather than their sigmoid
     * @return one score per text
     */
    public float[] scores(String query, List<String> texts, boolean rawScores) {
        return scores(query, texts, rawScores, true);
    }

    /**
     * The same, refusing a pair longer than the model takes unless {@code truncate}.
     *
     * @param query     the query
     * @param texts     the texts to score against it
     * @param rawScores whether scores are the logits rather than their sigmoid
     * @param truncate  whether a pair longer than the model takes is cut (longest first), else refused
     * @return one score per text
     */
    public float[] scores(String query, List<String> texts, boolean rawScores, boolean truncate) {
        Objects.requireNonNull(query, "query");
        if (texts.isEmpty()) {
            throw new EngineException("there are no texts to rerank");
        }
        float[] logits = classifier.logits(texts.stream().map(t -> query).toList(), texts, truncate);
        if (!rawScores) {
            for (int i = 0; i < logits.length; i++) {
                logits[i] = TextClassifier.Function.SIGMOID.apply(logits, i, 1)[0];
            }
        }
        return logits;
    }

    /**
     * The {@code topK} texts that best answer {@code query}, best first (equal scores keep the texts' order).
     *
     * @param query     the query
     * @param texts     the texts to score against it
     * @param rawScores whether scores are the logits rather than their sigmoid
     * @param topK      how many to keep
     * @return the best texts' scores
     */
    public List<Score> rank(String query, List<String> texts, boolean rawScores, int topK) {
        return rank(query, texts, rawScores, topK, true);
    }

    /**
     * The same, refusing a pair longer than the model takes unless {@code truncate}.
     *
     * @param query     the query
     * @param texts     the texts to score against it
     * @param rawScores whether scores are the logits rather than their sigmoid
     * @param topK      how many to keep
     * @param truncate  whether a pair longer than the model takes is cut (longest first), else refused
     * @return the best texts' scores
     */
    public List<Score> rank(String query, List<String> texts, boolean rawScores, int topK, boolean truncate) {
        if (topK <= 0) {
            throw new EngineException("top_k must be positive, was " + topK);
        }
        return ranked(scores(query, texts, rawScores, truncate), topK);
    }

    /**
     * The {@code topK} best of {@code scores} (one a text, in the texts' order), best first, equal scores in the texts'
     * order: {@link #rank}'s order, for scores computed elsewhere (a server's logits, say).
     *
     * @param scores one score a text
     * @param topK   how many to keep
     * @return the best texts' scores
     */
    public static List<Score> ranked(float[] scores, int topK) {
        if (topK <= 0) {
            throw new EngineException("top_k must be positive, was " + topK);
        }
        List<Score> ranked = new ArrayList<>(scores.length);
        for (int i = 0; i < scores.length; i++) {
            ranked.add(new Score(i, scores[i]));
        }
        ranked.sort(Comparator.comparingDouble((Score r) -> r.score()).reversed());
        return List.copyOf(ranked.subList(0, Math.min(topK, ranked.size())));
    }
}
