package org.vectorbert.engine;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.ref.Cleaner;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.vectorbert.common.AtomicFiles;
import org.vectorbert.loader.ModelHome;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.WeightSource;

/**
 * A model's packed matrices ({@link PackedMatrix}) kept in one file in the vectorbert cache, written
 * once and then mapped read-only: a load is a map and a check, with no packing or copying, the
 * weights are page-cache pages that processes share, and a process's private memory stays small.
 *
 * <p>The file, {@code $VECTORBERT_HOME/packed/NAME-HASH.PRECISION.pPANEL.vbpack} (the hash is of
 * the model directory's absolute path, the precision and {@link PackedMatrix#PANEL}, which differs
 * by vector width), holds the magic {@code VBPACK01}, the header's length (little-endian), the
 * header as {@link java.io.DataOutput} writes it (format version, PANEL, a stamp of the source:
 * the precision, then config.json's and every weight file's absolute path, size and modification
 * time; the file's total size; a table of matrices: tensor name and precision, out, in, byte
 * offset, byte length), then the panels (little-endian, as the kernels load them), each 64-byte
 * aligned. A file whose header does not parse, or disagrees with the source, the precision, PANEL or its own
 * size (a truncated file), or lacks a matrix the model asks for, is never trusted: the model is
 * packed again and the file rewritten ({@code NAME.PID.partial}, forced, moved into place
 * atomically, then mapped). A cache that cannot be written leaves the weights packed in memory, with
 * one warning per process through the {@code org.vectorbert} logger. Biases are not in the file:
 * they are read from the checkpoint (a few hundred KB). A file is never changed in place, only
 * replaced by a rename, because a process mapping it would fault on pages cut off by truncation;
 * what the stamp cannot see is a weight file rewritten with the same size and modification time.
 */
final class PackedWeights {
    private static final System.Logger LOG = System.getLogger("org.vectorbert");
    private static final byte[] MAGIC = "VBPACK01".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;
    /** A header larger than this is garbage (bert-base's is about 20 KB). */
    private static final int MAX_HEADER = 1 << 24;
    private static final AtomicBoolean WARNED = new AtomicBoolean();
    /** Warnings given, for tests: at most one per process (until {@link #resetWarning}). */
    static final AtomicInteger WARNINGS = new AtomicInteger();
    /** How many times a model's matrices were packed, for tests: a load from a valid file packs nothing. */
    static final AtomicInteger PACKINGS = new AtomicInteger();

    /** Where a matrix lies in the file. */
    private record Entry(String key, int out, int in, long offset, long length) {}

    /** Thrown while building from a file that lacks a matrix the model asks for: the file is stale. */
    private static final class Stale extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stale(String message) {
            super(message, null, false, false);
        }
    }

    /** Closes the memory of weights packed in memory once the model holding them is unreachable. */
    private static final Cleaner CLEANER = Cleaner.create();

    /** The mapped file, or null while packing in memory. */
    private final MemorySegment file;
    /** Where weights packed in memory live, or null: closed as soon as the model is rebuilt from the file. */
    private final Arena memory;
    private final Map<String, Entry> entries;
    /** What was packed in memory, by key (blocks load in parallel): what the file is written from, in key order. */
    private final Map<String, PackedMatrix> packed = new ConcurrentHashMap<>();

    private PackedWeights(MemorySegment file, Map<String, Entry> entries, Arena memory) {
        this.file = file;
        this.entries = entries;
        this.memory = memory;
    }

    /** {@code -Dvectorbert.packed}, else {@code packed} under the vectorbert home ({@link ModelHome#root()}). */
    static Path directory() {
        String dir = System.getProperty("vectorbert.packed");
        return dir != null && !dir.isBlank() ? Path.of(dir) : ModelHome.root().resolve("packed");
    }

    /**
     * Builds a model with {@code build}, whose blocks take their matrices from the weights it is
     * given: mapped from the packed file in {@code directory} when it is valid; otherwise packed in
     * memory, written to the file, and built again from its mapping (the in-memory copy then freed),
     * or kept in memory when the file cannot be written (freed with the model).
     */
    static <T> T load(WeightSource checkpoint, Precision precision, Path directory, Function<PackedWeights, T> build) {
        Path path = directory.resolve(fileName(checkpoint.directory(), precision));
        String stamp = stamp(checkpoint, precision);
        PackedWeights mapped = Files.isRegularFile(path) ? map(path, stamp) : null;
        if (mapped != null) {
            try {
                return build.apply(mapped);
            } catch (Stale e) {
                LOG.log(Level.DEBUG, () -> path + " is stale (" + e.getMessage() + "): packing again");
            }
        }
        // A shared arena, closed once the model is rebuilt from the file: left to the GC (Arena.ofAuto), the
        // packed copy would stay resident until an old-generation collection, which a short run may never have.
        Arena arena = Arena.ofShared();
        PackedWeights memory = new PackedWeights(null, Map.of(), arena);
        PACKINGS.incrementAndGet();
        T model;
        try {
            model = build.apply(memory);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        PackedWeights written = null;
        try {
            memory.write(path, stamp);
            written = map(path, stamp);
        } catch (IOException | RuntimeException e) {
            if (WARNED.compareAndSet(false, true)) {
                WARNINGS.incrementAndGet();
                LOG.log(Level.WARNING, "cannot write packed weights to " + path + " (" + e
                        + "): holding them in memory, packed on every load");
            }
        }
        if (written == null) {
            CLEANER.register(model, arena::close);
            return model;
        }
        T fromFile = build.apply(written);
        arena.close();
        return fromFile;
    }

    /** Forgets that the unwritable-cache warning was given, for tests. */
    static void resetWarning() {
        WARNED.set(false);
        WARNINGS.set(0);
    }

    /** The packed weight {@code weight} ([out, in]) at {@code precision}, with {@code bias} (null for none). */
    PackedMatrix matrix(Tensor weight, Tensor bias, Precision precision) {
        String key = weight.name() + ":" + precision;
        float[] b = PackedMatrix.paddedBias(bias == null ? null : bias.toFloatArray(), (int) weight.shape()[0]);
        if (file == null) {
            PackedMatrix m = packed.computeIfAbsent(key, k -> PackedMatrix.pack(weight, null, precision, memory));
            return new PackedMatrix(m.out, m.in, m.weights, m.bf16, b);
        }
        Entry e = entries.get(key);
        int out = (int) weight.shape()[0];
        int in = (int) weight.shape()[1];
        if (e == null || e.out != out || e.in != in) {
            throw new Stale(e == null ? "no " + key : key + " is " + e.out + " x " + e.in + ", not " + out + " x " + in);
        }
        return new PackedMatrix(out, in, file.asSlice(e.offset, e.length), precision == Precision.BF16, b);
    }

    /** {@code NAME-HASH.PRECISION.pPANEL.vbpack}: one file per model directory, precision and panel width. */
    static String fileName(Path model, Precision precision) {
        String source = model.toAbsolutePath().normalize() + "\0" + precision + "\0" + PackedMatrix.PANEL;
        String name = model.toAbsolutePath().normalize().getFileName() == null ? "model"
                : model.toAbsolutePath().normalize().getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_");
        return name + "-" + HexFormat.of().formatHex(sha256(source), 0, 8) + "." + precision.name().toLowerCase(Locale.ROOT)
                + ".p" + PackedMatrix.PANEL + ".vbpack";
    }

    /** The source the file was packed from: config.json and every weight file, each path, size and modification time. */
    private static String stamp(WeightSource checkpoint, Precision precision) {
        List<Path> files = new ArrayList<>();
        files.add(checkpoint.directory().resolve("config.json"));
        files.addAll(checkpoint.weightFiles());
        StringBuilder s = new StringBuilder("precision=" + precision + " panel=" + PackedMatrix.PANEL + "\n");
        for (Path f : files) {
            try {
                s.append(f.toAbsolutePath()).append('\t').append(Files.size(f)).append('\t')
                        .append(Files.getLastModifiedTime(f)).append('\n');
            } catch (IOException e) {
                s.append(f.toAbsolutePath()).append("\tunreadable\n");
            }
        }
        return s.toString();
    }

    /** The file mapped read-only with its table, or null (and why, at DEBUG) when anything in it disagrees. */
    private static PackedWeights map(Path path, String stamp) {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = ch.size();
            Header header = header(ch, path);
            if (header == null) {
                return null;
            }
            int headerLength = header.length;
            DataInputStream h = header.in;
            int version = h.readInt();
            int panel = h.readInt();
            String writtenStamp = h.readUTF();
            long total = h.readLong();
            if (version != VERSION || panel != PackedMatrix.PANEL || !writtenStamp.equals(stamp) || total != size) {
                return stale(path, version != VERSION ? "format version " + version : panel != PackedMatrix.PANEL ? "panel " + panel
                        : !writtenStamp.equals(stamp) ? "packed from another source" : size + " bytes, not " + total);
            }
            int count = h.readInt();
            Map<String, Entry> entries = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                Entry e = new Entry(h.readUTF(), h.readInt(), h.readInt(), h.readLong(), h.readLong());
                boolean bf16 = e.key.endsWith(":" + Precision.BF16);
                if (e.out <= 0 || e.in <= 0 || e.offset % PackedMatrix.ALIGNMENT != 0 || e.offset < MAGIC.length + 4L + headerLength
                        || e.length != PackedMatrix.weightBytes(e.out, e.in, bf16) || e.offset + e.length > size) {
                    return stale(path, "entry " + e);
                }
                entries.put(e.key, e);
            }
            if (h.available() != 0) {
                return stale(path, "header has " + h.available() + " bytes more than its table");
            }
            return new PackedWeights(ch.map(FileChannel.MapMode.READ_ONLY, 0, size, Arena.ofAuto()), entries, null);
        } catch (IOException | RuntimeException e) {
            return stale(path, e.toString());
        }
    }

    /** A packed file's header, {@code length} bytes read into {@code in}. */
    private record Header(int length, DataInputStream in) {}

    /** The header of an open file, or null (and why, at DEBUG) when it has none. */
    private static Header header(FileChannel ch, Path path) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(MAGIC.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        if (ch.read(head, 0) != head.capacity() || !head.slice(0, MAGIC.length).equals(ByteBuffer.wrap(MAGIC))) {
            return stale(path, "not a packed-weights file");
        }
        int length = head.getInt(MAGIC.length);
        if (length < 0 || length > MAX_HEADER || MAGIC.length + 4L + length > ch.size()) {
            return stale(path, "header length " + length + " in a file of " + ch.size() + " bytes");
        }
        ByteBuffer header = ByteBuffer.allocate(length);
        if (ch.read(header, MAGIC.length + 4) != length) {
            return stale(path, "short header");
        }
        return new Header(length, new DataInputStream(new ByteArrayInputStream(header.array())));
    }

    /**
     * Removes the packed files whose model is gone (a replaced snapshot, a deleted or temporary model
     * directory): nothing can use them again, and each is the size of the model. Best effort.
     */
    private static void removeOrphans(Path directory) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.vbpack")) {
            for (Path f : files) {
                String config = null;
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                    Header h = header(ch, f);
                    if (h != null) {
                        h.in.readInt();
                        h.in.readInt();
                        String[] lines = h.in.readUTF().split("\n");
                        config = lines.length > 1 ? lines[1].split("\t")[0] : null;
                    }
                }
                if (config != null && !Files.exists(Path.of(config))) {
                    Files.deleteIfExists(f);   // a process that has it mapped keeps its pages
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "could not look for unused packed files in " + directory + ": " + e);
        }
    }

    private static <T> T stale(Path path, String why) {
        LOG.log(Level.DEBUG, () -> path + " is not used (" + why + "): packing again");
        return null;
    }

    /** Writes what was packed in memory as {@code NAME.PID.partial}, forces it to disk, and moves it into place. */
    private void write(Path path, String stamp) throws IOException {
        Files.createDirectories(path.getParent());
        AtomicFiles.removeStale(path);
        removeOrphans(path.getParent());
        List<Entry> table = new ArrayList<>();
        byte[] header = header(stamp, table, 0);
        // The offsets depend on the header's length, which the offsets' digits do not change (fixed-width longs).
        header = header(stamp, table, MAGIC.length + 4 + header.length);
        Path partial = AtomicFiles.partial(path);
        try {
            try (FileChannel ch = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                ByteBuffer start = ByteBuffer.allocate(MAGIC.length + 4 + header.length).order(ByteOrder.LITTLE_ENDIAN);
                start.put(MAGIC).putInt(header.length).put(header).flip();
                writeFully(ch, start, 0);
                for (Entry e : table) {
                    writeFully(ch, packed.get(e.key).weights.asByteBuffer(), e.offset);
                }
                long total = table.isEmpty() ? MAGIC.length + 4 + header.length : table.getLast().offset + table.getLast().length;
                if (ch.size() != total) {
                    throw new IOException("wrote " + ch.size() + " bytes, not " + total);
                }
                ch.force(true);
            }
            AtomicFiles.moveIntoPlace(partial, path);
        } finally {
            AtomicFiles.discard(partial);
        }
    }

    /** The header for the matrices packed so far, their offsets laid from {@code dataStart} (0 to measure the header). */
    private byte[] header(String stamp, List<Entry> table, long dataStart) throws IOException {
        table.clear();
        long offset = align(dataStart);
        for (Map.Entry<String, PackedMatrix> m : new TreeMap<>(packed).entrySet()) {
            long length = m.getValue().weights.byteSize();
            table.add(new Entry(m.getKey(), m.getValue().out, m.getValue().in, offset, length));
            offset = align(offset + length);
        }
        long total = table.isEmpty() ? dataStart : table.getLast().offset + table.getLast().length;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream h = new DataOutputStream(bytes);
        h.writeInt(VERSION);
        h.writeInt(PackedMatrix.PANEL);
        h.writeUTF(stamp);
        h.writeLong(total);
        h.writeInt(table.size());
        for (Entry e : table) {
            h.writeUTF(e.key);
            h.writeInt(e.out);
            h.writeInt(e.in);
            h.writeLong(e.offset);
            h.writeLong(e.length);
        }
        return bytes.toByteArray();
    }

    private static long align(long offset) {
        return (offset + PackedMatrix.ALIGNMENT - 1) / PackedMatrix.ALIGNMENT * PackedMatrix.ALIGNMENT;
    }

    private static void writeFully(FileChannel ch, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            position += ch.write(buffer, position);
        }
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
