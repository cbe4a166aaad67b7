package org.vectorbert.loader;

import java.nio.file.Path;

/**
 * Something vectorbert reads by converting it once into a Hugging Face model directory: a
 * TensorFlow checkpoint, an ONNX export. Implementations live in the vectorbert-convert module and
 * are found through {@link java.util.ServiceLoader}, so the loader resolves models without
 * depending on them; {@link ModelResolver} keeps each conversion in the model cache.
 */
public interface ModelConverter {
    /** What this converter reads, for messages: "TensorFlow checkpoint". */
    String kind();

    /** What marks one, for a message saying it was not found: "bert_model.ckpt.index, variables/variables.index or a checkpoint's .index". */
    String marks();

    /** Whether {@code path} is something this converter reads (cheap: looks at names, not contents). */
    boolean accepts(Path path);

    /**
     * Refuses, before any conversion starts, what {@link #convert} would refuse on reading its first pieces (a
     * quantised langchain4j jar, a jar whose settings cannot be read); the default checks nothing.
     */
    default void check(Path source) { }

    /**
     * Part of the cache key of a conversion: a converter that now writes a directory differently returns a new value,
     * so that directories converted by an older vectorbert are converted again. Empty by default.
     */
    default String version() {
        return "";
    }

    /** Converts {@code source} into {@code target}, a directory it creates, telling {@code listener} how it goes. */
    void convert(Path source, Path target, ModelResolver.Listener listener);
}
