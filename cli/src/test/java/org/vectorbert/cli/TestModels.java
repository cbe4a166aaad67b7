package org.vectorbert.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.vectorbert.loader.TfImport;

/** The real bert-base-uncased, converted once per test JVM from the Maven Central jar and removed at exit. */
final class TestModels {
    private static Path bertBaseUncased;

    private TestModels() {}

    static synchronized Path bertBaseUncased() {
        if (bertBaseUncased == null) {
            try {
                Path dir = Files.createTempDirectory("vectorbert-test-model");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                bertBaseUncased = dir.resolve("bert-base-uncased");
                TfImport.convert(CheckpointCommandsTest.jar(), bertBaseUncased, (d, t) -> { });
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (java.net.URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return bertBaseUncased;
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Best effort: a temp directory left behind is the OS's to clean.
        }
    }
}
