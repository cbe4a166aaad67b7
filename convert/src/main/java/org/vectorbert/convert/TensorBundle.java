package org.vectorbert.convert;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.Tensor;

/**
 * A TensorFlow tensor bundle (a checkpoint's {@code .index} and {@code .data-00000-of-00001}).
 * The index is a LevelDB table: data blocks of prefix-compressed key/value entries, an index
 * block pointing at them, and a 48-byte footer. Each key is a variable name and each value a
 * {@code BundleEntryProto} saying where in the data file its raw little-endian bytes are.
 */
final class TensorBundle {
    private static final long MAGIC = 0xdb4775248b80fb57L;
    private static final int FOOTER = 48;
    private static final int DT_FLOAT = 1;

    /** A float32 variable of the bundle. */
    record Variable(String name, long[] shape, long offset, long size, int maskedCrc32c) {
        long elementCount() {
            return Tensor.elementCount(shape);
        }
    }

    private final List<Variable> variables;
    private final List<String> skipped;

    private TensorBundle(List<Variable> variables, List<String> skipped) {
        this.variables = variables;
        this.skipped = skipped;
    }

    /** Float32 variables, in the order their bytes appear in the data file. */
    List<Variable> variables() {
        return variables;
    }

    /** Names of entries that are not float32 tensors (step counters and the like). */
    List<String> skipped() {
        return skipped;
    }

    /** Parses an index file's bytes; {@code source} names it in messages. */
    static TensorBundle parseIndex(byte[] index, String source) {
        try {
            return parse(ByteBuffer.wrap(index).order(ByteOrder.LITTLE_ENDIAN), source);
        } catch (IndexOutOfBoundsException | IllegalArgumentException | ArithmeticException | java.nio.BufferUnderflowException e) {
            // A structure that points past the bytes: every read is bounds-checked, and this names it.
            throw new LoaderException(source + ": corrupt tensor bundle index (" + e + ")", e);
        }
    }

    private static TensorBundle parse(ByteBuffer in, String source) {
        if (in.limit() < FOOTER || in.getLong(in.limit() - 8) != MAGIC) {
            throw new LoaderException(source + ": not a TensorFlow checkpoint index (no table magic number)");
        }
        ByteBuffer footer = in.duplicate().order(ByteOrder.LITTLE_ENDIAN).position(in.limit() - FOOTER);
        varint(footer); // metaindex handle: offset
        varint(footer); //                    size
        long indexOffset = varint(footer);
        long indexSize = varint(footer);
        List<Variable> variables = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (byte[][] indexEntry : block(in, indexOffset, indexSize, source)) {
            ByteBuffer handle = ByteBuffer.wrap(indexEntry[1]);
            long offset = varint(handle);
            long size = varint(handle);
            for (byte[][] kv : block(in, offset, size, source)) {
                String name = new String(kv[0], StandardCharsets.UTF_8);
                if (name.isEmpty()) {
                    checkHeader(kv[1], source);
                    continue;
                }
                Variable v = entry(name, kv[1], source);
                if (v == null) {
                    skipped.add(name);
                } else {
                    variables.add(v);
                }
            }
        }
        variables.sort(Comparator.comparingLong(Variable::offset));
        return new TensorBundle(List.copyOf(variables), List.copyOf(skipped));
    }

    /** The key/value entries of one table block, keys reassembled from their shared prefixes. */
    private static List<byte[][]> block(ByteBuffer in, long offset, long size, String source) {
        if (offset < 0 || size < 4 || offset > in.limit() || size > in.limit() || offset + size + 5 > in.limit()) {
            throw new LoaderException(source + ": block at " + offset + " (+" + size + ") lies outside the index");
        }
        if (in.get((int) (offset + size)) != 0) {
            throw new LoaderException(source + ": compressed index blocks are not supported");
        }
        ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN).position((int) offset).limit((int) (offset + size));
        int restarts = b.getInt((int) (offset + size - 4));
        int entriesEnd = (int) (offset + size - 4 - 4L * restarts);
        if (restarts < 0 || entriesEnd < offset) {
            throw new LoaderException(source + ": corrupt block at " + offset);
        }
        List<byte[][]> entries = new ArrayList<>();
        byte[] key = new byte[0];
        while (b.position() < entriesEnd) {
            long shared = varint(b);
            long unshared = varint(b);
            long valueLength = varint(b);
            if (shared < 0 || shared > key.length) {
                throw new LoaderException(source + ": corrupt key prefix in block at " + offset);
            }
            if (unshared < 0 || valueLength < 0 || unshared > b.remaining() || valueLength > b.remaining() - unshared) {
                throw new LoaderException(source + ": an entry in the block at " + offset + " runs past the block");
            }
            byte[] next = new byte[(int) (shared + unshared)];
            System.arraycopy(key, 0, next, 0, (int) shared);
            b.get(next, (int) shared, (int) unshared);
            byte[] value = new byte[(int) valueLength];
            b.get(value);
            key = next;
            entries.add(new byte[][] {key, value});
        }
        return entries;
    }

    private static void checkHeader(byte[] proto, String source) {
        ByteBuffer p = ByteBuffer.wrap(proto);
        while (p.hasRemaining()) {
            long tag = varint(p);
            int field = (int) (tag >>> 3);
            if (field == 1 && (tag & 7) == 0) {
                long shards = varint(p);
                if (shards != 1) {
                    throw new LoaderException(source + ": checkpoints split into " + shards + " shards are not supported");
                }
            } else if (field == 2 && (tag & 7) == 0) {
                if (varint(p) != 0) {
                    throw new LoaderException(source + ": big-endian checkpoints are not supported");
                }
            } else {
                skip(p, (int) (tag & 7));
            }
        }
    }

    /** A BundleEntryProto: dtype 1, shape 2, shard 3, offset 4, size 5, crc32c 6, slices 7. */
    private static Variable entry(String name, byte[] proto, String source) {
        ByteBuffer p = ByteBuffer.wrap(proto).order(ByteOrder.LITTLE_ENDIAN);
        int dtype = 0;
        List<Long> shape = new ArrayList<>();
        long offset = 0;
        long size = 0;
        int crc = 0;
        while (p.hasRemaining()) {
            long tag = varint(p);
            int field = (int) (tag >>> 3);
            int wire = (int) (tag & 7);
            switch (field) {
                case 1 -> dtype = (int) varint(p);
                case 2 -> shape = shape(message(p));
                case 3 -> {
                    if (varint(p) != 0) {
                        throw new LoaderException(source + ": variable " + name + " lives in another shard");
                    }
                }
                case 4 -> offset = varint(p);
                case 5 -> size = varint(p);
                case 6 -> crc = p.getInt();
                case 7 -> throw new LoaderException(source + ": variable " + name + " is partitioned (slices are not supported)");
                default -> skip(p, wire);
            }
        }
        if (dtype != DT_FLOAT) {
            return null;
        }
        long[] dims = shape.stream().mapToLong(Long::longValue).toArray();
        if (Math.multiplyExact(Tensor.elementCount(dims), 4L) != size) {
            throw new LoaderException(source + ": variable " + name + " has shape " + shape + " but " + size + " bytes");
        }
        return new Variable(name, dims, offset, size, crc);
    }

    /** TensorShapeProto: repeated dim (field 2), each a message with size (field 1). */
    private static List<Long> shape(ByteBuffer p) {
        List<Long> dims = new ArrayList<>();
        while (p.hasRemaining()) {
            long tag = varint(p);
            if ((tag >>> 3) == 2 && (tag & 7) == 2) {
                ByteBuffer dim = message(p);
                long size = 0;
                while (dim.hasRemaining()) {
                    long t = varint(dim);
                    if ((t >>> 3) == 1 && (t & 7) == 0) {
                        size = varint(dim);
                    } else {
                        skip(dim, (int) (t & 7));
                    }
                }
                dims.add(size);
            } else {
                skip(p, (int) (tag & 7));
            }
        }
        return dims;
    }

    private static ByteBuffer message(ByteBuffer p) {
        int length = length(p);
        ByteBuffer m = p.slice(p.position(), length).order(ByteOrder.LITTLE_ENDIAN);
        p.position(p.position() + length);
        return m;
    }

    private static void skip(ByteBuffer p, int wire) {
        switch (wire) {
            case 0 -> varint(p);
            case 1 -> p.position(p.position() + 8);
            case 2 -> {
                int length = length(p); // read before p.position(): the varint moves it
                p.position(p.position() + length);
            }
            case 5 -> p.position(p.position() + 4);
            default -> throw new IllegalArgumentException("unknown protobuf wire type " + wire);
        }
    }

    /**
     * A length-delimited field's length, checked against what is left: a negative one would move the
     * reader backwards, and the fuzzer found an index whose field skipped back over itself forever.
     */
    private static int length(ByteBuffer p) {
        long length = varint(p);
        if (length < 0 || length > p.remaining()) {
            throw new IllegalArgumentException("a field of " + length + " bytes runs past its message");
        }
        return (int) length;
    }

    private static long varint(ByteBuffer b) {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte x = b.get();
            value |= (long) (x & 0x7f) << shift;
            if (x >= 0) {
                return value;
            }
        }
        throw new IllegalArgumentException("varint longer than 10 bytes");
    }

    /** Receives each variable's values, in data-file order. */
    interface VariableConsumer {
        void accept(Variable variable, float[] values) throws IOException;
    }

    /**
     * Reads the data file as a stream, verifying each variable's CRC32C, and hands over its values.
     * Streaming lets the data come straight out of a zip (the Maven Central jar) without a copy on disk.
     */
    void readData(InputStream data, String source, VariableConsumer consumer) throws IOException {
        long position = 0;
        byte[] scratch = new byte[1 << 16];
        for (Variable v : variables) {
            if (v.offset < position) {
                throw new LoaderException(source + ": variables overlap at " + v.name);
            }
            skipFully(data, v.offset - position, scratch, source);
            if (v.size > Integer.MAX_VALUE - 8) {
                throw new LoaderException(source + ": variable " + v.name + " is too large to import");
            }
            byte[] bytes = data.readNBytes((int) v.size);
            if (bytes.length != v.size) {
                throw new LoaderException(source + ": data ends inside variable " + v.name + " (truncated checkpoint?)");
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes);
            if (mask((int) crc.getValue()) != v.maskedCrc32c) {
                throw new LoaderException(source + ": checksum mismatch in variable " + v.name + " (corrupt checkpoint)");
            }
            float[] values = new float[(int) (v.size / 4)];
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
            consumer.accept(v, values);
            position = v.offset + v.size;
        }
    }

    private static void skipFully(InputStream in, long n, byte[] scratch, String source) throws IOException {
        while (n > 0) {
            int read = in.read(scratch, 0, (int) Math.min(scratch.length, n));
            if (read < 0) {
                throw new EOFException(source + ": data ends early (truncated checkpoint?)");
            }
            n -= read;
        }
    }

    /** TensorFlow stores CRC32C values masked (rotated and offset), as LevelDB does. */
    static int mask(int crc) {
        return ((crc >>> 15) | (crc << 17)) + 0xa282ead8;
    }
}
