package org.vectorbert.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.vectorbert.loader.BertBaseUncasedArtifact;
import org.vectorbert.loader.TfImport;

/** bert-base-uncased, converted once per test run from the Maven Central jar on the test classpath. */
final class RealModel {
    private static Path directory;
    private static BertModel model;

    private RealModel() {}

    static synchronized Path directory() {
        if (directory == null) {
            try {
                String url = RealModel.class.getClassLoader().getResource(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY).toString();
                Path jar = Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
                Path dir = Files.createTempDirectory("vectorbert-bert-base-uncased");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                TfImport.convert(jar, dir, (done, total) -> { });
                directory = dir;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
        }
        return directory;
    }

    /** One model shared by the tests (it is thread-safe and read-only). */
    static synchronized BertModel model() {
        if (model == null) {
            model = BertModel.load(directory());
        }
        return model;
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
