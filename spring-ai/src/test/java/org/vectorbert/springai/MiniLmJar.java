package org.vectorbert.springai;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * sentence-transformers' all-MiniLM-L6-v2 as langchain4j ships it on Maven Central (a test dependency): the jar
 * itself is what the tests name in {@code vectorbert.model}, as a user may. vectorbert converts it once into the
 * vectorbert home, which the build points at target.
 */
final class MiniLmJar {
    /** What the jar gives: 384 dimensions, mean pooling, unit length. */
    static final int DIMENSION = 384;

    private MiniLmJar() {}

    static Path path() {
        String url = MiniLmJar.class.getClassLoader().getResource("all-minilm-l6-v2.onnx").toString();
        try {
            return Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url, e);
        }
    }

    /** The property that names it. */
    static String modelProperty() {
        return "vectorbert.model=" + path();
    }
}
