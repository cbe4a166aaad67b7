package org.vectorbert.langchain4j;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The real all-MiniLM-L6-v2 for the tests: langchain4j's jar, which the build copies beside them (see the pom). */
final class TestModels {
    private TestModels() {}

    /** The jar's path, as vectorbert's {@code model} takes it. */
    static String miniLmJar() {
        String jar = System.getProperty("vectorbert.test.minilm");
        if (jar == null || !Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("run the tests through Maven, which copies the all-MiniLM-L6-v2 jar to " + jar);
        }
        return jar;
    }

    /** A copy of a model directory (hard links) with {@code stConfig} as its config_sentence_transformers.json. */
    static Path withSentenceTransformersConfig(Path model, Path copy, String stConfig) throws IOException {
        try (Stream<Path> files = Files.walk(model)) {
            for (Path f : files.toList()) {
                Path to = copy.resolve(model.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else if (!f.getFileName().toString().equals("config_sentence_transformers.json")) {
                    Files.createLink(to, f);
                }
            }
        }
        Files.writeString(copy.resolve("config_sentence_transformers.json"), stConfig);
        return copy;
    }
}
