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

    /** Converts {@code source} into {@code target}, a directory it creates, telling {@code listener} how it goes. */
    void convert(Path source, Path target, ModelResolver.Listener listener);
}
