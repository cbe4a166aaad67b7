package org.vectorbert.spark;

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

/**
 * The models an executor JVM has loaded, one per settings, shared by every task and thread in it:
 * tasks that start at once wait for the first to load it instead of each loading its own copy.
 */
final class LoadedModels {
    private static final Map<EmbedSettings, Embeddings> LOADED = new ConcurrentHashMap<>();
    /** Models loaded by this JVM so far, for tests. */
    static final AtomicInteger LOADS = new AtomicInteger();

    private LoadedModels() {}

    static Embeddings get(EmbedSettings settings) {
        useTaskCores();
        return LOADED.computeIfAbsent(settings, LoadedModels::load);
    }

    private static Embeddings load(EmbedSettings s) {
        LOADS.incrementAndGet();
        try {
            return Embeddings.load(shipped(s.model()), s.options());
        } catch (VectorbertException e) {
            String host = TaskContext.get() == null ? "this JVM" : "executor " + SparkEnv.get().executorId();
            throw new VectorbertSparkException("the model '" + (s.model() == null ? "bert-base-uncased (default)" : s.model())
                    + "' (param model) cannot be loaded on " + host + ": " + e.getMessage(), e);
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
