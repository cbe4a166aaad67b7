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
import java.util.Arrays;

/**
 * Embeddings written as numpy {@code .npy} (format 1.0, little-endian float32), streamed as they come:
 * pooled vectors as {@code [n, dim]}; token vectors as {@code [n, seq, dim]} padded with zeros to the
 * longest text, with each text's length in {@code NAME.lengths.npy} ({@code [n]}, int32). Files are
 * written beside the target and moved into place when complete, so a failed run leaves no half file.
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
        this.target = target;
        this.dim = dim;
        this.tokens = tokens;
        this.partial = target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid() + ".partial");
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
                Files.deleteIfExists(partial);
                return;
            }
            if (tokens) {
                writePadded();
            } else {
                write(channel.position(0), header("<f4", count + ", " + dim));
                channel.close();
                Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
        Path padded = target.resolveSibling(target.getFileName() + "." + ProcessHandle.current().pid() + ".padded.partial");
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
            Files.deleteIfExists(partial);
        }
        Path lengthsFile = lengthsPath(target);
        Path lengthsPartial = lengthsFile.resolveSibling(lengthsFile.getFileName() + "." + ProcessHandle.current().pid() + ".partial");
        ByteBuffer lengthBytes = ByteBuffer.allocate(count * Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        lengthBytes.asIntBuffer().put(lengths, 0, count);
        try (FileChannel out = FileChannel.open(lengthsPartial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            write(out, header("<i4", count + ","));
            write(out, lengthBytes);
        }
        Files.move(lengthsPartial, lengthsFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.move(padded, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
