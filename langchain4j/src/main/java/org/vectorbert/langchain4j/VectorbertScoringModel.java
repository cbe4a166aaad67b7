package org.vectorbert.langchain4j;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.output.Response;
import dev.langchain4j.model.scoring.ScoringModel;
import dev.langchain4j.model.scoring.request.ScoringRequest;
import dev.langchain4j.model.scoring.response.ScoringResponse;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.vectorbert.engine.Precision;
import org.vectorbert.engine.Reranker;

/**
 * vectorbert's {@link Reranker} (a cross-encoder: a single-label {@code *ForSequenceClassification}
 * checkpoint such as cross-encoder/ms-marco-MiniLM-L-6-v2) as a langchain4j {@link ScoringModel}, for
 * {@code ReRankingContentAggregator}: every list of texts is one call into the engine, scored against
 * the query in batched forward passes. Scores are the logit's sigmoid, in [0, 1] (TEI's and
 * {@code vectorbert rerank}'s default), or the logit itself with {@code rawScores(true)} (what
 * langchain4j's {@code OnnxScoringModel} gives by default). Thread-safe.
 *
 * <pre>{@code
 * ScoringModel scoring = VectorbertScoringModel.builder().model("cross-encoder/ms-marco-MiniLM-L-6-v2").build();
 * double s = scoring.score("Paris is the capital of France.", "capital of France").content();
 * }</pre>
 */
public final class VectorbertScoringModel implements ScoringModel {
    private final Reranker reranker;
    private final boolean rawScores;
    private final boolean truncate;

    private VectorbertScoringModel(Reranker reranker, boolean rawScores, boolean truncate) {
        this.reranker = Objects.requireNonNull(reranker, "reranker");
        this.rawScores = rawScores;
        this.truncate = truncate;
    }

    /**
     * A scoring model over a reranker the caller already holds: sigmoid scores, pairs longer than the model takes cut.
     *
     * @param reranker the reranker
     * @return the scoring model
     */
    public static VectorbertScoringModel of(Reranker reranker) {
        return new VectorbertScoringModel(reranker, false, true);
    }

    /**
     * A builder of a scoring model loaded by name.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The vectorbert reranker behind this model.
     *
     * @return the reranker
     */
    public Reranker reranker() {
        return reranker;
    }

    /** Each segment's score against {@code query}, in the segments' order; an empty list is refused, as the reranker refuses it. */
    @Override
    public Response<List<Double>> scoreAll(List<TextSegment> segments, String query) {
        return Response.from(scores(segments.stream().map(TextSegment::text).toList(), query));
    }

    private List<Double> scores(List<String> texts, String query) {
        float[] s = reranker.scores(query, texts, rawScores, truncate);
        Double[] boxed = new Double[s.length];
        for (int i = 0; i < s.length; i++) {
            boxed[i] = (double) s[i];
        }
        return List.of(boxed);
    }

    /** {@code scoreAsync}'s work, on a virtual thread of its own (langchain4j's default refuses asynchronous scoring). */
    @Override
    public CompletableFuture<ScoringResponse> doScoreAsync(ScoringRequest request) {
        CompletableFuture<ScoringResponse> result = new CompletableFuture<>();
        Thread.ofVirtual().name("vectorbert-langchain4j-score").start(() -> {
            try {
                result.complete(ScoringResponse.builder().scores(scores(request.documents(), request.query())).build());
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Loads a cross-encoder into a {@link VectorbertScoringModel}. */
    public static final class Builder {
        private String model;
        private Precision precision = Precision.F32;
        private boolean rawScores;
        private boolean truncate = true;

        private Builder() {}

        /**
         * A cross-encoder's directory or Hugging Face id (a single-label sequence classifier).
         *
         * @param model what {@code --model} accepts
         * @return this builder
         */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /**
         * How the weight matrices are held (F32 by default; BF16 halves their memory).
         *
         * @param precision F32 or BF16
         * @return this builder
         */
        public Builder precision(Precision precision) {
            this.precision = Objects.requireNonNull(precision, "precision");
            return this;
        }

        /**
         * Scores are the model's logits, not their sigmoid (false by default).
         *
         * @param raw whether scores are logits
         * @return this builder
         */
        public Builder rawScores(boolean raw) {
            this.rawScores = raw;
            return this;
        }

        /**
         * Whether a query and text longer together than the model takes are cut, longest first (true by default), or
         * refused.
         *
         * @param truncate whether to cut
         * @return this builder
         */
        public Builder truncate(boolean truncate) {
            this.truncate = truncate;
            return this;
        }

        /**
         * Loads the model; refuses one without a single-label classifier head, naming what it has.
         *
         * @return the scoring model
         */
        public VectorbertScoringModel build() {
            if (model == null || model.isBlank()) {
                throw new VectorbertLangchain4jException("no model was given: builder().model(\"a directory or a Hugging Face id\")");
            }
            return new VectorbertScoringModel(Reranker.load(model, precision), rawScores, truncate);
        }
    }
}
