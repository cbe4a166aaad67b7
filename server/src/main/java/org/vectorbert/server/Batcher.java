package org.vectorbert.server;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Embeddings.Include;
import org.vectorbert.engine.Embeddings.Prepared;
import org.vectorbert.engine.Embeddings.Result;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.tokenizer.Encoding;

/**
 * Dynamic batching: every request's texts join one queue, and one thread, the only one that runs
 * the model, takes them out in rounds of at most {@code maxBatchTokens} positions. A round is built
 * around the oldest text still waiting (so none waits forever) from the texts nearest it in length,
 * whichever request they came from, and run as forward passes of texts of nearly equal length (so
 * little of the work is padding); one request's texts may ride with another's, and a large request
 * is spread over several rounds. A request whose client has gone away is dropped before the next round.
 * Texts and pairs for the classifier (/rerank, /predict) are batched the same way, among themselves: a round
 * holds either texts to embed or inputs to classify, never both.
 *
 * <p>Why one thread: the engine's kernels split each matrix product over all the cores its
 * thread team has, and a forward pass started while another runs would get no helpers and run
 * on its caller alone. Passes in a row keep the whole team on one large product at a time, which
 * is also what makes batching pay.
 */
final class Batcher implements AutoCloseable {
    /**
     * Positions one forward pass holds at most: a round of texts is run as passes of this size, each
     * over texts of nearly the same length; the library's own budget ({@link EmbeddingOptions#BATCH_TOKENS}).
     * Sorted by length, since texts as they come leave a third of the positions padding; as large as the
     * library's, since the engine computes no padding and smaller passes left the server behind the library.
     */
    static final int PASS_TOKENS = EmbeddingOptions.BATCH_TOKENS;

    private final Embeddings pipeline;
    /** The model's sequence classifier, or null when it has none. */
    private final TextClassifier classifier;
    private final int maxBatchTokens;
    private final ServerMetrics metrics;
    /** Requests' texts ({@link Job}) and other model work ({@link Task}), in arrival order. */
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final Thread thread;
    private volatile boolean closing;

    /**
     * One request's inputs and what has been computed of them: texts to embed ({@code items}, each result an
     * {@link Result}) or texts and pairs to classify ({@code encodings}, each result its logits). Touched by the
     * inference thread only, but for {@code done}.
     */
    private static final class Job {
        final List<Prepared> items;
        final List<Encoding> encodings;
        final Object[] results;
        final boolean tokenVectors;
        final long queuedAt = System.nanoTime();
        final CompletableFuture<List<Object>> done = new CompletableFuture<>();
        /** Whether its client is still there; asked before each pass. */
        final BooleanSupplier connected;
        int unrun;
        boolean started;

        Job(List<Prepared> items, List<Encoding> encodings, boolean tokenVectors, BooleanSupplier connected) {
            this.items = items;
            this.encodings = encodings;
            this.connected = connected;
            this.results = new Object[size()];
            this.tokenVectors = tokenVectors;
            this.unrun = size();
        }

        int size() {
            return items != null ? items.size() : encodings.size();
        }

        int length(int i) {
            return items != null ? items.get(i).length() : encodings.get(i).length();
        }

        boolean classifies() {
            return encodings != null;
        }
    }

    /** Model work that is not a batch of texts (fill-mask), run by the inference thread between passes. */
    private record Task(Runnable work) {}

    /** One text of one request. */
    private record Slot(Job job, int index) {
        int length() {
            return job.length(index);
        }
    }

    Batcher(Embeddings pipeline, TextClassifier classifier, int maxBatchTokens, ServerMetrics metrics) {
        this.pipeline = pipeline;
        this.classifier = classifier;
        this.maxBatchTokens = maxBatchTokens;
        this.metrics = metrics;
        this.thread = Thread.ofPlatform().name("vectorbert-inference").daemon(true).unstarted(this::loop);
        thread.start();
    }

    /**
     * The texts' results, in order, once their passes have run; with every token's vector when
     * {@code tokenVectors}. The request is dropped (its future cancelled) when {@code connected}
     * says its client has gone before its next pass; cancelling the future drops it too.
     */
    @SuppressWarnings("unchecked")  // the job holds one Result per item, as built here
    CompletableFuture<List<Result>> embed(List<Prepared> items, boolean tokenVectors, BooleanSupplier connected) {
        return (CompletableFuture<List<Result>>) (CompletableFuture<?>) submit(new Job(items, null, tokenVectors, connected));
    }

    /**
     * The classifier's logits for each encoded text or pair ({@link TextClassifier#encode}), in order, once their
     * passes have run; inputs of other requests share the passes. Dropped as {@link #embed} drops a request.
     */
    @SuppressWarnings("unchecked")  // the job holds one float[] per input, as built here
    CompletableFuture<List<float[]>> classify(List<Encoding> encodings, BooleanSupplier connected) {
        if (classifier == null) {
            throw new IllegalStateException("the model has no classifier");
        }
        return (CompletableFuture<List<float[]>>) (CompletableFuture<?>) submit(new Job(null, encodings, false, connected));
    }

    private CompletableFuture<List<Object>> submit(Job job) {
        refuseWhenClosing();
        metrics.queueSize.inc(job.size());
        queue.add(job);
        return job.done;
    }

    /** {@code work} run by the inference thread, between passes, with the whole thread team. */
    <T> CompletableFuture<T> call(Supplier<T> work) {
        refuseWhenClosing();
        CompletableFuture<T> done = new CompletableFuture<>();
        queue.add(new Task(() -> {
            if (done.isDone()) {
                return;
            }
            try {
                done.complete(work.get());
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
            }
        }));
        return done;
    }

    private void refuseWhenClosing() {
        if (closing) {
            throw new ApiError(503, "Unhealthy", "the server is shutting down");
        }
    }

    private void loop() {
        List<Job> pending = new ArrayList<>();
        while (true) {
            List<Object> arrived = new ArrayList<>();
            try {
                Object first = pending.isEmpty() ? queue.poll(100, TimeUnit.MILLISECONDS) : queue.poll();
                if (first != null) {
                    arrived.add(first);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            queue.drainTo(arrived);
            for (Object o : arrived) {
                if (o instanceof Job job) {
                    pending.add(job);
                } else {
                    ((Task) o).work().run();
                }
            }
            pending.removeIf(job -> {
                if (!job.done.isDone() && !(!job.connected.getAsBoolean() && job.done.cancel(false))) {
                    return false;
                }
                metrics.queueSize.dec(job.unrun);
                metrics.dropped.inc();
                return true;
            });
            if (pending.isEmpty()) {
                if (closing && queue.isEmpty()) {
                    return;
                }
                continue;
            }
            List<Slot> round = choose(pending);
            for (int from = 0; from < round.size(); ) {
                // Sorted by length: each pass takes the next texts while, padded to its longest, they fit PASS_TOKENS.
                int to = from + 1;
                while (to < round.size() && (long) (to - from + 1) * round.get(to).length() <= PASS_TOKENS) {
                    to++;
                }
                runPass(round.subList(from, to));
                from = to;
            }
            pending.removeIf(job -> job.done.isDone());
        }
    }

    /** One forward pass over {@code pass}, its results handed to their requests. */
    private void runPass(List<Slot> pass) {
        boolean tokenVectors = pass.stream().anyMatch(s -> s.job().tokenVectors);
        long start = System.nanoTime();
        for (Slot s : pass) {
            if (!s.job().started) {
                s.job().started = true;
                metrics.queue.observe((start - s.job().queuedAt) / 1e9);
            }
        }
        List<Object> results = new ArrayList<>(pass.size());
        try {
            if (pass.getFirst().job().classifies()) {
                float[] logits = classifier.forward(pass.stream().map(s -> s.job().encodings.get(s.index())).toList());
                int n = logits.length / pass.size();
                for (int i = 0; i < pass.size(); i++) {
                    results.add(Arrays.copyOfRange(logits, i * n, (i + 1) * n));
                }
            } else {
                List<Prepared> batch = pass.stream().map(s -> s.job().items.get(s.index())).toList();
                results.addAll(tokenVectors ? pipeline.forward(batch, Include.TOKEN_VECTORS) : pipeline.forward(batch));
            }
        } catch (RuntimeException | Error e) {
            // Nothing a client sent gets this far unchecked; a failure here is the server's (memory, a bug).
            ApiError failure = new ApiError(424, "Backend", "the forward pass failed: " + e);
            for (Slot s : pass) {
                s.job().done.completeExceptionally(failure);
            }
            metrics.queueSize.dec(pass.size());
            return;
        }
        metrics.inference.observe((System.nanoTime() - start) / 1e9);
        metrics.batchSize.observe(pass.size());
        metrics.batchTokens.observe(pass.stream().mapToInt(Slot::length).sum());
        metrics.queueSize.dec(pass.size());
        for (int i = 0; i < pass.size(); i++) {
            Job job = pass.get(i).job();
            Object o = results.get(i);
            job.results[pass.get(i).index()] = tokenVectors && !job.tokenVectors && o instanceof Result r
                    ? new Result(r.ids(), r.pooled(), null, null, null, null, r.truncated(), r.batchLength(), r.secondStart()) : o;
            if (--job.unrun == 0) {
                job.done.complete(Arrays.asList(job.results));
            }
        }
    }

    /**
     * The texts of the next round, shortest first: the oldest request's first waiting text, and then
     * its neighbours in length among the inputs of the same kind (to embed or to classify), the nearer one
     * first, while the round padded to its longest fits the budget ({@code --max-batch-tokens}).
     */
    private List<Slot> choose(List<Job> pending) {
        List<Slot> waiting = new ArrayList<>();
        Slot anchor = null;
        for (Job job : pending) {
            if (anchor != null && job.classifies() != anchor.job().classifies()) {
                continue;
            }
            for (int i = 0; i < job.size(); i++) {
                if (job.results[i] == null) {
                    Slot s = new Slot(job, i);
                    anchor = anchor == null ? s : anchor;
                    waiting.add(s);
                }
            }
        }
        waiting.sort(Comparator.comparingInt(Slot::length));
        int a = waiting.indexOf(anchor);
        int lo = a;
        int hi = a;
        while (true) {
            int count = hi - lo + 1;
            boolean up = hi + 1 < waiting.size() && (long) (count + 1) * waiting.get(hi + 1).length() <= maxBatchTokens;
            boolean down = lo > 0 && (long) (count + 1) * waiting.get(hi).length() <= maxBatchTokens;
            if (!up && !down) {
                break;
            }
            int length = anchor.length();
            if (up && (!down || waiting.get(hi + 1).length() - length <= length - waiting.get(lo - 1).length())) {
                hi++;
            } else {
                lo--;
            }
        }
        return List.copyOf(waiting.subList(lo, hi + 1));
    }

    /** Stops taking work, finishes what is queued, and waits (up to a minute) for the inference thread to end. */
    @Override
    public void close() {
        closing = true;
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
