package org.vectorbert.spark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

    private LoadedModels() {}

    static Embeddings get(EmbedSettings settings) {
        useTaskCores();
        return LOADED.computeIfAbsent(settings, LoadedModels::load);
    }

    private static Embeddings load(EmbedSettings s) {
        try {
            return Embeddings.load(s.model(), s.options());
        } catch (VectorbertException e) {
            String host = TaskContext.get() == null ? "this JVM" : "executor " + org.apache.spark.SparkEnv.get().executorId();
            throw new VectorbertSparkException("the model '" + (s.model() == null ? "bert-base-uncased (default)" : s.model())
                    + "' (param model) cannot be loaded on " + host + ": " + e.getMessage(), e);
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
