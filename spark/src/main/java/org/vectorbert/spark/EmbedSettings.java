package org.vectorbert.spark;

import java.io.Serializable;
import java.util.List;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Pooling;
import org.vectorbert.engine.Precision;

/**
 * What an executor needs to embed: the model as {@code --model} names it (null: the default model)
 * and the options; null fields mean what the model declares. Shipped to executors with each task;
 * equal settings share one loaded model in an executor JVM.
 *
 * @param model       the model as {@code --model} names it, or null for the default model
 * @param precision   f32 or bf16
 * @param pooling     pooling modes, comma-separated, or null
 * @param normalize   whether vectors are scaled to unit length, or null
 * @param truncate    whether long texts are cut, or null
 * @param promptName  a prompt the model's config_sentence_transformers.json names, or null
 * @param batchTokens positions a forward pass may hold
 */
record EmbedSettings(String model, String precision, String pooling, Boolean normalize, Boolean truncate, String promptName,
                     int batchTokens)
        implements Serializable {
    EmbeddingOptions options() {
        List<Pooling> modes = pooling == null ? null : List.of(pooling.split(",")).stream().map(p -> Pooling.parse(p.trim())).toList();
        return new EmbeddingOptions(Precision.parse(precision), modes, normalize, truncate, null, promptName, batchTokens);
    }
}
