package org.vectorbert.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.Function;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.Parallel;
import org.vectorbert.engine.Precision;
import org.vectorbert.loader.ModelResolver;
import picocli.CommandLine.Option;

/** --model and --threads, shared by the commands that run the model. */
final class ModelOptions {
    static final String MODEL_HELP = "A Hugging Face model directory; a TensorFlow checkpoint, a langchain4j model jar or an "
            + "ONNX file with its tokenizer.json beside it, converted once; or a hub id "
            + "such as google-bert/bert-base-uncased[@revision] (from the Hugging Face cache, else downloaded into it). "
            + "Default: bert-base-uncased, made on first use.";

    @Option(names = "--model", paramLabel = "MODEL", description = MODEL_HELP)
    String model;

    @Option(names = "--threads", paramLabel = "N", description = "Threads for the kernels (default: all cores).")
    Integer threads;

    @Option(names = "--dtype", paramLabel = "TYPE", defaultValue = "f32", completionCandidates = DTypes.class,
            description = "Weight matrices in f32 (exact, default) or bf16 (half the memory and bytes read per token; "
                    + "about three significant digits per weight, so scores move in the third digit).")
    String dtype;

    /** What --dtype may be. */
    static final class DTypes extends java.util.ArrayList<String> {
        private static final long serialVersionUID = 1L;

        DTypes() {
            super(java.util.List.of("f32", "bf16"));
        }
    }

    /** --dtype as the engine's precision. */
    Precision precision() {
        try {
            return Precision.parse(dtype);
        } catch (EngineException e) {
            throw new UserError("--dtype: " + e.getMessage());
        }
    }

    /** The model directory, fetching or converting it on first use; applies --threads. */
    Path directory(PrintWriter err) {
        if (threads != null) {
            if (threads <= 0) {
                throw new UserError("--threads must be positive, was " + threads);
            }
            int cores = Runtime.getRuntime().availableProcessors();
            if (threads > cores) {
                // More threads than cores only take turns on them, and each kernel waits for the last.
                throw new UserError("--threads " + threads + " is more than the " + cores + " cores this machine gives the JVM; use 1 to "
                        + cores);
            }
            Parallel.setThreads(threads);
        }
        return resolve(model, err);
    }

    /**
     * {@code loader} given the model directory ({@link #directory}), and its refusals (a missing head, not a reranker, ...)
     * naming the model as --model gave it: a jar, an ONNX file or a TensorFlow checkpoint runs from a directory it was
     * converted into, under $VECTORBERT_HOME, and a hub id from the Hugging Face cache, neither of which the user named.
     */
    <T> T load(PrintWriter err, Function<String, T> loader) {
        String directory = directory(err).toString();
        try {
            return loader.apply(directory);
        } catch (VectorbertException e) {
            if (model == null || model.equals(directory) || e.getMessage() == null || !e.getMessage().contains(directory)) {
                throw e;
            }
            throw new UserError(e.getMessage().replace(directory, model));
        }
    }

    /** What {@code model} names (null: the default model), with progress on {@code err}. */
    static Path resolve(String model, PrintWriter err) {
        return ModelResolver.resolve(model, new ProgressBar(err));
    }
}
