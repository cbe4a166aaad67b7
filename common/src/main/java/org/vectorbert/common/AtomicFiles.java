package org.vectorbert.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Files that appear whole or not at all: written beside their target, then moved into place. */
public final class AtomicFiles {
    private AtomicFiles() {}

    /** Where to write {@code target} first; the process id keeps two concurrent writers apart. */
    public static Path partial(Path target) {
        return target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid() + ".partial");
    }

    public static void moveIntoPlace(Path partial, Path target) throws IOException {
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public static void write(Path target, byte[] bytes) throws IOException {
        Path partial = partial(target);
        Files.write(partial, bytes);
        moveIntoPlace(partial, target);
    }
}
