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
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Where vectorbert keeps models: {@code $VECTORBERT_HOME}, by default {@code ~/.cache/vectorbert},
 * with the default model under {@code models/bert-base-uncased} and converted checkpoints under
 * {@code models/converted}.
 *
 * <p>A model is converted into a staging directory beside its place, checked, and only then
 * renamed into place, so an interrupted run never leaves a half-written model a later run trusts.
 */
public final class ModelHome {
    /** The default model's name and folder under {@code models/}. */
    public static final String DEFAULT_MODEL = "bert-base-uncased";

    private ModelHome() {}

    /** {@return vectorbert's cache directory} {@code -Dvectorbert.home}, else {@code $VECTORBERT_HOME}, else {@code ~/.cache/vectorbert}. */
    public static Path root() {
        String home = System.getProperty("vectorbert.home", System.getenv("VECTORBERT_HOME"));
        if (home != null && !home.isBlank()) {
            return Path.of(home);
        }
        return Path.of(System.getProperty("user.home"), ".cache", "vectorbert");
    }

    /** {@return where the default model is, or will be made} {@code root()/models/bert-base-uncased}. */
    public static Path defaultModelDirectory() {
        return root().resolve("models").resolve(DEFAULT_MODEL);
    }

    /**
     * Makes the model directory {@code target}: {@code make} writes it into a staging directory beside
     * it, then {@code check} runs on that, then it is renamed into place (replacing an older
     * {@code target}). If another process put a model there meanwhile, that one is kept.
     *
     * @param target the model directory to make
     * @param make   writes the model into the directory it is given
     * @param check  throws if the directory it is given is not a loadable model
     */
    public static void convertInto(Path target, Consumer<Path> make, Consumer<Path> check) {
        Path staging = target.resolveSibling("." + target.getFileName() + ".partial-" + ProcessHandle.current().pid());
        deleteRecursively(staging);
        try {
            make.accept(staging);
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

    /**
     * The file's SHA-256.
     *
     * @param file the file to hash
     * @return its SHA-256 in lowercase hex
     */
    public static String sha256(Path file) {
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

    /**
     * Deletes a staging or download folder and what is in it, as far as it can.
     *
     * @param dir the folder
     */
    public static void deleteRecursively(Path dir) {
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
