package org.vectorbert.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Embeddings.Prepared;
import org.vectorbert.engine.Embeddings.Result;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.TextTooLongException;
import org.vectorbert.engine.TruncationSide;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * A request's texts to results: tokenized on the request's own thread with the request's options
 * (truncation, normalisation, prompt), then queued for the {@link Batcher}, and waited for. The
 * pipeline variants a request's options call for are made once and kept.
 */
final class Embedder {
    private final Embeddings base;
    private final Batcher batcher;
    private final ServerMetrics metrics;
    private final boolean autoTruncate;
    private final Map<Variant, Embeddings> variants = new ConcurrentHashMap<>();

    /** What a request may choose; the pooling is the model's. */
    private record Variant(boolean truncate, boolean normalize, String promptName, Integer dimensions) {}

    /** A request's texts as the batcher returns them. */
    record Embedded(List<Result> results, int tokens) {}

    Embedder(Embeddings base, Batcher batcher, ServerMetrics metrics, boolean autoTruncate) {
        this.base = base;
        this.batcher = batcher;
        this.metrics = metrics;
        this.autoTruncate = autoTruncate;
    }

    /** The pipeline for a request's options; {@code truncate} null means the server's --auto-truncate. */
    Embeddings variant(Boolean truncate, boolean normalize, String promptName) {
        return variant(truncate, normalize, promptName, null);
    }

    /** The same, the vectors cut to their first {@code dimensions} components (null: all) before any normalising. */
    Embeddings variant(Boolean truncate, boolean normalize, String promptName, Integer dimensions) {
        Variant v = new Variant(truncate != null ? truncate : autoTruncate, normalize, promptName, dimensions);
        Embeddings known = variants.get(v);
        if (known != null) {
            return known;
        }
        EmbeddingOptions asked = base.options().withTruncate(v.truncate()).withNormalize(v.normalize());
        if (promptName != null) {
            asked = asked.withPrompt(null).withPromptName(promptName);
        }
        if (dimensions != null) {
            asked = asked.withDimensions(dimensions);
        }
        try {
            Embeddings made = base.with(asked);
            variants.putIfAbsent(v, made);
            return made;
        } catch (EngineException e) {
            throw ApiError.validation(e.getMessage());
        }
    }

    /**
     * The texts tokenized by {@code pipeline} (each refused naming its index when too long), run in
     * the batcher's passes, and waited for, unless the client goes away first.
     */
    Embedded embed(Embeddings pipeline, List<String> texts, TruncationSide side, boolean tokenVectors, Client client) {
        return embed(pipeline, texts, side, tokenVectors, client, "shorten it or send \"truncate\": true");
    }

    /** {@link #embed}, a text too long refused with {@code howToFit} (what its client can do about it) after its length. */
    Embedded embed(Embeddings pipeline, List<String> texts, TruncationSide side, boolean tokenVectors, Client client, String howToFit) {
        long start = System.nanoTime();
        List<Prepared> prepared = new ArrayList<>(texts.size());
        int tokens = 0;
        for (int i = 0; i < texts.size(); i++) {
            try {
                Prepared p = pipeline.prepare(List.of(texts.get(i)), null, side).getFirst();
                prepared.add(p);
                tokens += p.length();
            } catch (TextTooLongException e) {
                throw ApiError.validation((texts.size() == 1 ? "the input" : "input " + i) + " is " + e.tokens()
                        + " tokens, longer than the model's " + e.maximum() + "; " + howToFit);
            } catch (TokenizerException e) {
                throw new ApiError(422, "Tokenizer", e.getMessage());
            }
        }
        metrics.tokenization.observe((System.nanoTime() - start) / 1e9);
        CompletableFuture<List<Result>> done = batcher.embed(prepared, tokenVectors, client::connected);
        client.onFailure(() -> done.cancel(false));
        return new Embedded(await(done), tokens);
    }

    /** The future's value, its ApiError thrown as is. */
    static <T> T await(CompletableFuture<T> done) {
        try {
            return done.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(503, "Unhealthy", "interrupted while waiting for the model");
        } catch (CancellationException e) {
            throw new ClientGone();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ApiError api) {
                throw api;
            }
            if (e.getCause() instanceof EngineException || e.getCause() instanceof TokenizerException) {
                throw ApiError.validation(e.getCause().getMessage());
            }
            throw new ApiError(424, "Backend", "the model failed: " + e.getCause());
        }
    }

    /** The client went away while its request waited: nobody to answer. */
    static final class ClientGone extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClientGone() {
            super("client gone", null, false, false);
        }
    }
}
