package org.vectorbert.engine;

import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.tokenizer.Tokenizer;

/** Loading shared by the pipelines: the model resolved, then tokenizer and weights built side by side; progress through the platform logger. */
final class ModelLoading {
    private static final System.Logger LOG = System.getLogger("org.vectorbert");

    private ModelLoading() {}

    /**
     * Resolves {@code model} (null for the default) as {@link ModelResolver} does, builds the tokenizer
     * on its own thread while the weights load on this one and the kernel threads (they are
     * independent, and on a small machine each is a sizeable part of a one-shot command's time), then
     * makes the pipeline.
     */
    static <T> T load(String model, Precision precision, BiFunction<Encoder, Tokenizer, T> pipeline) {
        Path directory = ModelResolver.resolve(model, listener());
        CompletableFuture<Tokenizer> tokenizer = CompletableFuture.supplyAsync(
                () -> Tokenizer.fromDirectory(directory), task -> Thread.ofPlatform().daemon().name("vectorbert-tokenizer").start(task));
        Encoder encoder = Encoder.load(directory, precision);
        try {
            return pipeline.apply(encoder, tokenizer.join());
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    /** Model resolution's messages and progress, to the {@code org.vectorbert} logger. */
    static ModelResolver.Listener listener() {
        return new ModelResolver.Listener() {
            private int lastDecile = -1;
            private String lastTask;

            @Override
            public void log(String message) {
                LOG.log(Level.INFO, message);
            }

            @Override
            public void progress(String task, long done, long total) {
                int decile = total > 0 ? (int) (10 * done / total) : 0;
                if (!task.equals(lastTask) || decile != lastDecile) {
                    lastTask = task;
                    lastDecile = decile;
                    LOG.log(Level.DEBUG, () -> task + " " + (10 * decile) + "%");
                }
            }
        };
    }
}
