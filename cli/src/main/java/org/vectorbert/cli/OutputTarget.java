package org.vectorbert.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.vectorbert.common.AtomicFiles;

/** An output file checked before any work: a run of minutes must not end in "cannot write". */
final class OutputTarget {
    private OutputTarget() {}

    /**
     * Refuses, with a message naming {@code option}, a target that cannot be written: a directory, one
     * in a directory that does not exist or cannot be written, a read-only file (and the same for the
     * {@code companion} file written beside it, when there is one). Removes partial files that killed
     * runs left for them. Returns the file to write: the target, or where it links to.
     */
    static Path check(String option, Path target, String example, UnaryOperator<Path> companion) {
        Path file = target;
        try {
            if (Files.isSymbolicLink(file)) {
                file = file.resolveSibling(Files.readSymbolicLink(file));
            }
        } catch (IOException e) {
            throw new UserError("cannot read the link " + target + ": " + e.getMessage());
        }
        if (Files.isDirectory(file)) {
            throw new UserError(option + " " + target + " is a directory; give a file name, such as " + target.resolve(example));
        }
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            throw new UserError(option + " " + target + ": the directory " + dir + " does not exist");
        }
        if (!Files.isWritable(dir)) {
            throw new UserError(option + " " + target + ": cannot write in " + dir + " (permission denied)");
        }
        for (Path f : companion != null ? List.of(file, companion.apply(file)) : List.of(file)) {
            if (Files.exists(f) && !writable(f)) {
                throw new UserError(option + " " + target + ": " + f + " is read-only; remove it or choose another name");
            }
            if (Files.isDirectory(f)) {
                throw new UserError(option + " " + target + ": " + f + " is a directory");
            }
            try {
                AtomicFiles.removeStale(f);
            } catch (IOException e) {
                // A stale file that cannot be removed is only clutter; this run's own name is its own.
            }
        }
        return file;
    }

    /** Writable, and not marked read-only (which the superuser's access check alone would not see). */
    private static boolean writable(Path f) {
        try {
            return Files.isWritable(f) && (!f.getFileSystem().supportedFileAttributeViews().contains("posix")
                    || Files.getPosixFilePermissions(f).contains(java.nio.file.attribute.PosixFilePermission.OWNER_WRITE));
        } catch (IOException e) {
            return false;
        }
    }
}
