package org.vectorbert.common;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Files that appear whole or not at all: written beside their target as {@code NAME.PID.partial},
 * then moved into place.
 *
 * <p>A partial file is registered while it is being written: if the JVM stops before it lands (an
 * error, Ctrl-C, SIGTERM), a shutdown hook removes it. One left by a process that was killed outright
 * carries that process's id, and the next writer of the same target removes it once no process with
 * that id is alive.
 */
public final class AtomicFiles {
    /** {@code NAME.PID.partial}, or {@code NAME.PID.KIND.partial} for a second partial of the same target. */
    private static final Pattern PARTIAL = Pattern.compile("(.*)\\.(\\d+)(\\.[a-z]+)?\\.partial");
    private static final Set<Path> PENDING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(AtomicFiles::removePending, "vectorbert-partial-files"));
    }

    private AtomicFiles() {}

    /**
     * Where to write {@code target} first; the process id keeps two concurrent writers apart. Registered for removal.
     *
     * @param target the file to be written
     * @return {@code NAME.PID.partial} beside it
     */
    public static Path partial(Path target) {
        return partial(target, null);
    }

    /**
     * A second partial of the same target, told apart by {@code kind}.
     *
     * @param target the file to be written
     * @param kind   lower-case letters, or null for the first partial
     * @return {@code NAME.PID.KIND.partial} beside it
     */
    public static Path partial(Path target, String kind) {
        Path p = target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid()
                + (kind == null ? "" : "." + kind) + ".partial");
        PENDING.add(p.toAbsolutePath());
        return p;
    }

    /**
     * Moves a partial file into place, keeping the permissions of the file it replaces, and unregisters it.
     *
     * @param partial the partial file, written whole
     * @param target  the file it replaces, atomically
     * @throws IOException if the move fails
     */
    public static void moveIntoPlace(Path partial, Path target) throws IOException {
        keepPermissions(target, partial);
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        PENDING.remove(partial.toAbsolutePath());
    }

    /**
     * Deletes a partial file that will not land, and unregisters it.
     *
     * @param partial the partial file; nothing happens if it is gone
     * @throws IOException if it cannot be deleted
     */
    public static void discard(Path partial) throws IOException {
        Files.deleteIfExists(partial);
        PENDING.remove(partial.toAbsolutePath());
    }

    /**
     * Writes {@code bytes} to {@code target} whole or not at all: to a partial file first, then moved into place.
     *
     * @param target the file to write
     * @param bytes  its new content
     * @throws IOException if writing or the move fails; the target is then as it was
     */
    public static void write(Path target, byte[] bytes) throws IOException {
        Path partial = partial(target);
        try {
            Files.write(partial, bytes);
            moveIntoPlace(partial, target);
        } finally {
            discard(partial);
        }
    }

    /**
     * Removes the partial files of {@code target} that processes no longer alive left behind (killed
     * outright: no hook ran). Those of live processes stay.
     *
     * @param target the file whose partials to look for
     * @return how many were removed
     * @throws IOException if the directory cannot be listed or a file deleted
     */
    public static int removeStale(Path target) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        String name = target.getFileName().toString();
        int removed = 0;
        if (dir == null || !Files.isDirectory(dir)) {
            return 0;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, name + ".*.partial")) {
            for (Path f : files) {
                Matcher m = PARTIAL.matcher(f.getFileName().toString());
                if (m.matches() && m.group(1).equals(name) && !alive(Long.parseLong(m.group(2)))) {
                    Files.deleteIfExists(f);
                    removed++;
                }
            }
        }
        return removed;
    }

    private static boolean alive(long pid) {
        return pid == ProcessHandle.current().pid() || ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static void keepPermissions(Path from, Path to) throws IOException {
        if (Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
            PosixFileAttributeView source = Files.getFileAttributeView(from, PosixFileAttributeView.class);
            PosixFileAttributeView dest = Files.getFileAttributeView(to, PosixFileAttributeView.class);
            if (source != null && dest != null) {
                dest.setPermissions(source.readAttributes().permissions());
            }
        }
    }

    private static void removePending() {
        for (Path p : PENDING) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException | RuntimeException e) {
                // Nothing more to do at exit; the next writer of the target removes it as stale.
            }
        }
    }
}
