package org.vectorbert.spark;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.SparkEnv;
import org.apache.spark.SparkFiles;
import org.apache.spark.TaskContext;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Parallel;
import org.vectorbert.engine.Precision;

/**
 * The models an executor JVM has loaded (embeddings, classifiers), one per settings, shared by every task and thread in it:
 * tasks that start at once wait for the first to load it instead of each loading its own copy.
 */
final class LoadedModels {
    private static final Map<EmbedSettings, Embeddings> LOADED = new ConcurrentHashMap<>();
    private static final Map<List<String>, org.vectorbert.engine.TextClassifier> CLASSIFIERS = new ConcurrentHashMap<>();
    /** Models loaded by this JVM so far, for tests. */
    static final AtomicInteger LOADS = new AtomicInteger();

    private LoadedModels() {}

    static Embeddings get(EmbedSettings settings) {
        useTaskCores();
        return LOADED.computeIfAbsent(settings, LoadedModels::load);
    }

    /** The text classifier of {@code model} (null: the default model) at {@code precision}, loaded once per JVM. */
    static org.vectorbert.engine.TextClassifier classifier(String model, String precision) {
        useTaskCores();
        return CLASSIFIERS.computeIfAbsent(java.util.Arrays.asList(model, precision), key -> {
            LOADS.incrementAndGet();
            try {
                return org.vectorbert.engine.TextClassifier.load(shipped(model), Precision.parse(precision));
            } catch (VectorbertException e) {
                throw failed(model, e);
            }
        });
    }

    private static VectorbertSparkException failed(String model, VectorbertException e) {
        String host = TaskContext.get() == null ? "this JVM" : "executor " + SparkEnv.get().executorId();
        return new VectorbertSparkException("the model '" + (model == null ? "bert-base-uncased (default)" : model)
                + "' (param model) cannot be loaded on " + host + ": " + e.getMessage(), e);
    }

    private static Embeddings load(EmbedSettings s) {
        LOADS.incrementAndGet();
        try {
            return Embeddings.load(shipped(s.model()), s.options());
        } catch (VectorbertException e) {
            throw failed(s.model(), e);
        }
    }

    /**
     * A name that Spark shipped with the job (spark-submit's --files or --archives, or addFile) as the
     * file where Spark put it on this executor; anything else as it is, for the resolver (a path, a hub id).
     */
    private static String shipped(String model) {
        if (model == null || Path.of(model).isAbsolute() || SparkEnv.get() == null) {
            return model;
        }
        try {
            Path local = Path.of(SparkFiles.get(model));
            return Files.exists(local) ? local.toString() : model;
        } catch (RuntimeException e) {
            return model;           // no files shipped under that name: a hub id or a relative path
        }
    }

    /**
     * The kernels use the cores Spark gives a task (spark.task.cpus), not the whole machine: an
     * executor runs as many tasks at once as it has cores over task.cpus, each on its own share.
     */
    private static void useTaskCores() {
        TaskContext task = TaskContext.get();
        if (task != null && Parallel.threads() != task.cpus()) {
            Parallel.setThreads(task.cpus());
        }
    }
}
