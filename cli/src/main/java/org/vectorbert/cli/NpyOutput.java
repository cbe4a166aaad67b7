package org.vectorbert.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.vectorbert.common.AtomicFiles;
import java.util.Arrays;

/**
 * Embeddings written as numpy {@code .npy} (format 1.0, little-endian float32), streamed as they come:
 * pooled vectors as {@code [n, dim]}; token vectors as {@code [n, seq, dim]} padded with zeros to the
 * longest text, with each text's length in {@code NAME.lengths.npy} ({@code [n]}, int32).
 *
 * <p>How the files land: the target is checked before any work ({@link #checkTarget}); files are
 * written beside it as {@code NAME.PID.partial} ({@link AtomicFiles}: removed on failure, Ctrl-C and
 * SIGTERM, and, once their process is gone, by the next run writing the same target) and moved into
 * place when complete. A symlink is written through (the link stays), and a replaced file keeps its
 * permissions. An array and its lengths land both or neither: the old lengths are kept aside until
 * the array is in place, and put back if it cannot be.
 */
final class NpyOutput implements AutoCloseable {
    /** Header block size: magic, version, length and the dict padded; 128 holds any shape, and keeps data 64-aligned. */
    private static final int HEADER = 128;

    private final Path target;
    private final int dim;
    private final boolean tokens;
    private final Path partial;
    private final FileChannel channel;
    private int[] lengths = new int[64];
    private int count;
    private boolean complete;

    private NpyOutput(Path target, int dim, boolean tokens) {
        this.target = checkTarget(target, tokens);
        this.dim = dim;
        this.tokens = tokens;
        this.partial = AtomicFiles.partial(this.target);
        try {
            this.channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE, StandardOpenOption.READ);
            if (!tokens) {
                channel.position(HEADER);
            }
        } catch (IOException e) {
            throw new UserError("cannot write " + target + ": " + e.getMessage());
        }
    }

    /**
     * Refuses, with a message saying why, a target that cannot be written (see {@link OutputTarget}),
     * its lengths file too for token vectors. Returns the file to write: the target, or where it links to.
     */
    static Path checkTarget(Path target, boolean tokens) {
        return OutputTarget.check("--output", target, "vectors.npy", tokens ? NpyOutput::lengthsPath : null);
    }

    /** For {@code [n, dim]} pooled vectors. */
    static NpyOutput pooled(Path target, int dim) {
        return new NpyOutput(target, dim, false);
    }

    /** For {@code [n, seq, dim]} token vectors and their lengths. */
    static NpyOutput tokenVectors(Path target, int dim) {
        return new NpyOutput(target, dim, true);
    }

    /** Where the lengths go: {@code out.npy} gives {@code out.lengths.npy}. */
    static Path lengthsPath(Path target) {
        String name = target.getFileName().toString();
        String stem = name.endsWith(".npy") ? name.substring(0, name.length() - 4) : name;
        return target.resolveSibling(stem + ".lengths.npy");
    }

    /** Appends one text's vectors: {@code length} rows of {@code dim} (one row for pooled output). */
    void add(float[] vectors, int length) {
        if (vectors.length != length * dim) {
            throw new IllegalArgumentException(vectors.length + " floats are not " + length + " x " + dim);
        }
        if (count == lengths.length) {
            lengths = Arrays.copyOf(lengths, count * 2);
        }
        lengths[count++] = length;
        ByteBuffer bytes = ByteBuffer.allocate(vectors.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(vectors);
        write(channel, bytes);
    }

    @Override
    public void close() {
        try {
            if (!complete) {
                channel.close();
                AtomicFiles.discard(partial);
                return;
            }
            if (tokens) {
                writePadded();
            } else {
                write(channel.position(0), header("<f4", count + ", " + dim));
                channel.close();
                AtomicFiles.moveIntoPlace(partial, target);
            }
        } catch (IOException e) {
            throw new UserError("cannot write " + target + ": " + e.getMessage());
        }
    }

    /** Marks the output whole, so {@link #close} keeps it; without this call close discards it. */
    void complete() {
        complete = true;
    }

    /** Token vectors arrived ragged; copies them into the padded array, then writes the lengths. */
    private void writePadded() throws IOException {
        int seq = Arrays.stream(lengths, 0, count).max().orElse(0);
        Path padded = AtomicFiles.partial(target, "padded");
        try (FileChannel out = FileChannel.open(padded, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            write(out, header("<f4", count + ", " + seq + ", " + dim));
            long from = 0;
            ByteBuffer zeros = ByteBuffer.allocate(seq * dim * Float.BYTES);
            for (int i = 0; i < count; i++) {
                long n = (long) lengths[i] * dim * Float.BYTES;
                for (long done = 0; done < n; ) {
                    done += channel.transferTo(from + done, n - done, out);
                }
                from += n;
                write(out, zeros.clear().limit((seq - lengths[i]) * dim * Float.BYTES));
            }
        } finally {
            channel.close();
            AtomicFiles.discard(partial);
        }
        Path lengthsFile = lengthsPath(target);
        Path lengthsPartial = AtomicFiles.partial(lengthsFile);
        ByteBuffer lengthBytes = ByteBuffer.allocate(count * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        lengthBytes.asIntBuffer().put(lengths, 0, count);
        try (FileChannel out = FileChannel.open(lengthsPartial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            write(out, header("<i4", count + ","));
            write(out, lengthBytes);
        }
        landPair(padded, target, lengthsPartial, lengthsFile);
    }

    /** Moves the array and its lengths into place, both or neither: old lengths kept aside until the array has landed. */
    private static void landPair(Path array, Path arrayTarget, Path lengths, Path lengthsTarget) throws IOException {
        Path previous = null;
        try {
            if (Files.exists(lengthsTarget)) {
                previous = AtomicFiles.partial(lengthsTarget, "previous");
                Files.copy(lengthsTarget, previous, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
            }
            AtomicFiles.moveIntoPlace(lengths, lengthsTarget);
            try {
                AtomicFiles.moveIntoPlace(array, arrayTarget);
            } catch (IOException e) {
                if (previous != null) {
                    AtomicFiles.moveIntoPlace(previous, lengthsTarget);
                } else {
                    Files.deleteIfExists(lengthsTarget);
                }
                throw e;
            }
        } finally {
            AtomicFiles.discard(array);
            AtomicFiles.discard(lengths);
            if (previous != null) {
                AtomicFiles.discard(previous);
            }
        }
    }

    /** The {@value #HEADER}-byte .npy header for the given dtype and shape (inside the parentheses). */
    static ByteBuffer header(String descr, String shape) {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
        int prefix = 6 + 2 + 2;
        String padded = dict + " ".repeat(HEADER - prefix - dict.length() - 1) + "\n";
        ByteBuffer b = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1).put((byte) 0);
        b.putShort((short) (HEADER - prefix)).put(padded.getBytes(StandardCharsets.US_ASCII));
        return b.flip();
    }

    private void write(FileChannel out, ByteBuffer bytes) {
        try {
            while (bytes.hasRemaining()) {
                out.write(bytes);
            }
        } catch (IOException e) {
            throw new UserError("cannot write " + target + ": " + e.getMessage());
        }
    }
}
