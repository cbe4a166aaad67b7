package org.vectorbert.loader;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A checkpoint written by {@code torch.save} in the zip format of torch 1.6 to 2.x ({@code pytorch_model.bin}, a
 * {@code .pt} of a state dict), read without running Python's unpickler: the zip's central directory is read by
 * {@link TorchZip}, {@code data.pkl} by {@link TorchPickle}, which accepts only what a dict of tensors needs and refuses
 * anything else in one line. The file is mapped once; tensors are zero-copy views into its stored records, released by
 * {@link #close()}.
 *
 * <p>Refused: the pickle-only format of torch before 1.6, compressed records, big-endian files, nested dicts (a training
 * checkpoint's {@code {"state_dict": ...}}), and tensors whose strides are not row-major contiguous.
 */
public final class PytorchFile implements TensorFile {
    private final Path path;
    private final Arena arena;
    private final Map<String, Tensor> tensors;

    private PytorchFile(Path path, Arena arena, Map<String, Tensor> tensors) {
        this.path = path;
        this.arena = arena;
        this.tensors = tensors;
    }

    /**
     * Opens and validates {@code file}.
     *
     * @param file a file written by {@code torch.save}
     * @return the open file; close it to unmap
     * @throws LoaderException saying what is wrong with the file, in one line
     */
    public static PytorchFile open(Path file) {
        String where = file.toString();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            ByteBuffer magic = ByteBuffer.allocate(4);
            while (magic.hasRemaining() && channel.read(magic, magic.position()) > 0) {
                // read the first bytes, however short the file
            }
            if (magic.position() >= 2 && Byte.toUnsignedInt(magic.get(0)) == 0x80 && magic.get(1) <= 5) {
                throw new LoaderException(where + " is in the pickle-only format of torch before 1.6 (or saved with "
                        + "_use_new_zipfile_serialization=False), which vectorbert does not read: save it again with torch >= 1.6");
            }
            if (size < 22 || magic.get(0) != 'P' || magic.get(1) != 'K' || magic.get(2) != 3 || magic.get(3) != 4) {
                throw new LoaderException(where + " is not a PyTorch checkpoint: it does not start as a zip file does");
            }
            Arena arena = Arena.ofShared();
            try {
                MemorySegment all = channel.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
                return new PytorchFile(file, arena, Collections.unmodifiableMap(read(all, where)));
            } catch (IOException | RuntimeException e) {
                arena.close();
                throw e;
            }
        } catch (NoSuchFileException e) {
            throw new LoaderException("file not found: " + file);
        } catch (IOException e) {
            throw new LoaderException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** The tensors of the mapped file, by name in the pickle's order. */
    private static Map<String, Tensor> read(MemorySegment all, String where) {
        Map<String, TorchZip.Entry> entries = TorchZip.entries(all, where);
        String first = entries.keySet().stream().findFirst()
                .orElseThrow(() -> new LoaderException(where + ": the zip holds no records"));
        int slash = first.indexOf('/');
        if (slash <= 0) {
            throw new LoaderException(where + ": record " + first + " is not inside a folder, as torch.save writes them");
        }
        String archive = first.substring(0, slash + 1);
        TorchZip.Entry pickle = entries.get(archive + "data.pkl");
        if (pickle == null) {
            throw new LoaderException(where + ": no " + archive + "data.pkl (not a file written by torch.save)");
        }
        TorchZip.Entry byteOrder = entries.get(archive + "byteorder");
        if (byteOrder != null) {
            String order = new String(bytes(all, byteOrder, where, 16), StandardCharsets.US_ASCII).strip();
            if (!order.equals("little")) {
                throw new LoaderException(where + ": byteorder is '" + order
                        + "'; vectorbert reads little-endian checkpoints only (load and save it again on a little-endian machine)");
            }
        }
        Object top = TorchPickle.load(record(all, pickle, where), where + " (data.pkl)");
        if (!(top instanceof Map<?, ?> dict)) {
            throw new LoaderException(where + " holds " + TorchPickle.kind(top) + ", not a dict of tensors");
        }
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : dict.entrySet()) {
            String name = (String) e.getKey(); // TorchPickle accepts string keys only
            switch (e.getValue()) {
                case TorchPickle.TensorView view -> tensors.put(name, tensor(all, entries, archive, name, view, where));
                case Map<?, ?> nested -> throw new LoaderException(where + " is a nested dict (keys "
                        + dict.keySet().stream().limit(8).map(k -> "'" + k + "'").collect(Collectors.joining(", "))
                        + (dict.size() > 8 ? ", ..." : "") + "), not a state dict of tensors: save the model's state_dict() alone");
                default -> throw new LoaderException(where + ": '" + name + "' is " + TorchPickle.kind(e.getValue()) + ", not a tensor");
            }
        }
        return tensors;
    }

    /** A tensor as a view of its storage's record: contiguous, inside the record. */
    private static Tensor tensor(MemorySegment all, Map<String, TorchZip.Entry> entries, String archive, String name,
            TorchPickle.TensorView view, String where) {
        String prefix = where + ": tensor '" + name + "'";
        TorchPickle.Storage storage = view.storage();
        TorchZip.Entry entry = entries.get(archive + "data/" + storage.key());
        if (entry == null) {
            throw new LoaderException(prefix + " names storage " + storage.key() + ", which has no record data/" + storage.key());
        }
        int width = storage.dtype().bytes();
        long[] shape = view.shape();
        long[] stride = view.stride();
        if (stride.length != shape.length) {
            throw new LoaderException(prefix + " has " + shape.length + " dimensions but " + stride.length + " strides");
        }
        long begin;
        long length;
        try {
            long count = Tensor.elementCount(shape);
            long expected = 1;
            for (int i = shape.length - 1; i >= 0 && count > 0; i--) {
                if (shape[i] != 1 && stride[i] != expected) {
                    throw new LoaderException(prefix + " has strides " + java.util.Arrays.toString(stride) + " for shape "
                            + java.util.Arrays.toString(shape) + ", not row-major contiguous (save it after .contiguous())");
                }
                expected = Math.multiplyExact(expected, shape[i]);
            }
            begin = Math.multiplyExact(view.offset(), width);
            length = Math.multiplyExact(count, width);
            long storageBytes = Math.multiplyExact(storage.numel(), width);
            if (view.offset() < 0 || Math.addExact(begin, length) > storageBytes) {
                throw new LoaderException(prefix + " (" + count + " elements at offset " + view.offset()
                        + ") runs past its storage of " + storage.numel() + " elements");
            }
            if (storageBytes > entry.size()) {
                throw new LoaderException(prefix + ": storage " + storage.key() + " of " + storage.numel() + " " + storage.dtype()
                        + " elements needs " + storageBytes + " bytes, its record has " + entry.size() + " (truncated?)");
            }
        } catch (ArithmeticException e) {
            throw new LoaderException(prefix + " has a shape or offset too large to address");
        }
        return new Tensor(name, storage.dtype(), shape, record(all, entry, where).asSlice(begin, length));
    }

    /** A stored record's bytes, a slice of the mapping; a compressed record is refused. */
    private static MemorySegment record(MemorySegment all, TorchZip.Entry entry, String where) {
        if (entry.method() != 0) {
            throw new LoaderException(where + ": record " + entry.name() + " is compressed (zip method " + entry.method()
                    + "); torch.save stores records uncompressed, and vectorbert maps them as they are");
        }
        return all.asSlice(entry.offset(), entry.size());
    }

    private static byte[] bytes(MemorySegment all, TorchZip.Entry entry, String where, int max) {
        MemorySegment s = record(all, entry, where);
        return s.asSlice(0, Math.min(max, s.byteSize())).toArray(ValueLayout.JAVA_BYTE);
    }

    /** {@return the file} */
    public Path path() {
        return path;
    }

    /** {@return the tensors in the pickle's order, by name} */
    public Map<String, Tensor> tensors() {
        return tensors;
    }

    /** Unmaps the file; tensors from it must not be used afterwards. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
