package org.vectorbert.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import org.vectorbert.engine.Parallel;
import org.vectorbert.loader.ModelHome;
import picocli.CommandLine.Option;

/** --model and --threads, shared by the commands that run the model. */
final class ModelOptions {
    @Option(names = "--model", paramLabel = "DIR",
            description = "Hugging Face model directory (config.json, model.safetensors, vocab.txt or tokenizer.json). Default: bert-base-uncased, made on first use.")
    Path model;

    @Option(names = "--threads", paramLabel = "N", description = "Threads for the kernels (default: all cores).")
    Integer threads;

    /** The model directory, converting the default model on first use; applies --threads. */
    Path directory(PrintWriter err) {
        if (threads != null) {
            if (threads <= 0) {
                throw new UserError("--threads must be positive, was " + threads);
            }
            Parallel.setThreads(threads);
        }
        return model != null ? model : ModelHome.ensureDefaultModel(err::println, new ProgressBar(err, "converting")::update);
    }
}
