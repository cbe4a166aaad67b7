package org.vectorbert.loader;

import java.nio.file.Path;

/**
 * Something vectorbert reads by converting it once into a Hugging Face model directory: a
 * TensorFlow checkpoint, an ONNX export. Implementations live in the vectorbert-convert module and
 * are found through {@link java.util.ServiceLoader}, so the loader resolves models without
 * depending on them; {@link ModelResolver} keeps each conversion in the model cache.
 */
public interface ModelConverter {
    /** {@return what this converter reads, for messages} For instance "TensorFlow checkpoint". */
    String kind();

    /**
     * {@return what marks one, for a message saying it was not found} For instance "bert_model.ckpt.index,
     * variables/variables.index or a checkpoint's .index".
     */
    String marks();

    /**
     * Whether {@code path} is something this converter reads (cheap: looks at names, not contents).
     *
     * @param path a file or directory {@code --model} named
     * @return whether this converter takes it
     */
    boolean accepts(Path path);

    /**
     * Refuses, before any conversion starts, what {@link #convert} would refuse on reading its first pieces (a
     * quantised langchain4j jar, a jar whose settings cannot be read); the default checks nothing.
     *
     * @param source what {@link #accepts} took
     * @throws LoaderException saying why it cannot be converted
     */
    default void check(Path source) { }

    /**
     * Part of the cache key of a conversion: a converter that now writes a directory differently returns a new value,
     * so that directories converted by an older vectorbert are converted again. Empty by default.
     *
     * @return the converter's output version
     */
    default String version() {
        return "";
    }

    /**
     * Converts {@code source} into {@code target}, a directory it creates.
     *
     * @param source   what {@link #accepts} took
     * @param target   the model directory to create
     * @param listener hears how it goes
     */
    void convert(Path source, Path target, ModelResolver.Listener listener);
}
