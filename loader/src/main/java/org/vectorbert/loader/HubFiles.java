package org.vectorbert.loader;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The hub cache's files as a download leaves them: a name kept inside its directory, a download checked, a snapshot's link to its blob. */
final class HubFiles {
    private HubFiles() {}

    /** {@code directory/file}, refused unless it stays inside {@code directory}: no name from the hub writes elsewhere. */
    static Path inside(Path directory, String file) {
        Path target = directory.resolve(file).normalize();
        if (!target.startsWith(directory.normalize()) || target.equals(directory.normalize())) {
            throw new LoaderException("refused the file name '" + file + "', which would be written outside " + directory);
        }
        return target;
    }

    /**
     * Refuses (and deletes) a download whose size is not {@code size} (when known, 0 or more) or, when {@code etag} is a
     * SHA-256 as large files' are, whose hash is not it.
     */
    static void check(String file, long size, String etag, Path incomplete) throws IOException {
        long got = Files.size(incomplete);
        if (size >= 0 && got != size) {
            Files.delete(incomplete);
            throw new LoaderException("downloaded " + file + " has " + got + " bytes, the hub said " + size
                    + "; removed it, run again");
        }
        // Large (LFS) files carry their SHA-256 as ETag; small ones a git object hash, which the size covers well enough.
        if (etag.matches("[0-9a-f]{64}")) {
            String actual = ModelHome.sha256(incomplete);
            if (!actual.equals(etag)) {
                Files.delete(incomplete);
                throw new LoaderException("downloaded " + file + " has SHA-256 " + actual + ", the hub said " + etag
                        + "; removed it, run again");
            }
        }
    }

    /** A relative symbolic link as huggingface_hub makes them, or a copy where links are not allowed. */
    static void link(Path link, Path blob) throws IOException {
        Files.createDirectories(link.getParent());
        Files.deleteIfExists(link);
        try {
            Files.createSymbolicLink(link, link.getParent().relativize(blob));
        } catch (UnsupportedOperationException | FileSystemException e) {
            Files.copy(blob, link, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
