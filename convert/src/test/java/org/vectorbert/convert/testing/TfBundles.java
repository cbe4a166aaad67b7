package org.vectorbert.convert.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.vectorbert.convert.TfImport;
import org.vectorbert.loader.BertConfig;

/**
 * Writes float32 (and int64) variables as a TensorFlow checkpoint ({@code PREFIX.index}, {@code PREFIX.data-00000-of-00001}), the
 * layout {@code tf.train.Saver} leaves, for test checkpoints in layouts no real checkpoint here has (ELECTRA's). The
 * index is a LevelDB table: one data block holding the header entry (key "") and a {@code BundleEntryProto} per
 * variable in key order, an empty metaindex block, an index block pointing at the data block, and the 48-byte footer
 * ending in the table magic. Every block carries its type byte and masked CRC32C as LevelDB writes them, and every
 * variable its data's masked CRC32C. The importer's reading of this format is checked against Google's real
 * bert-base-uncased checkpoint (TfImportTest); this writer is checked by the importer reading it back.
 */
public final class TfBundles {
    private static final long MAGIC = 0xdb4775248b80fb57L;

    /** A variable's shape (TensorFlow's: kernels [in, out]) and its values, row-major: float32, or int64 where {@code longs} is set. */
    public record Variable(long[] shape, float[] values, long[] longs) {
        public Variable(long[] shape, float[] values) {
            this(shape, values, null);
        }

        /** An int64 scalar, as TensorFlow keeps {@code global_step}. */
        public static Variable int64(long value) {
            return new Variable(new long[0], null, new long[] {value});
        }

        int dtype() {
            return longs == null ? 1 : 9;   // DT_FLOAT, DT_INT64
        }

        byte[] bytes() {
            ByteBuffer b = ByteBuffer.allocate(longs == null ? values.length * 4 : longs.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            if (longs == null) {
                b.asFloatBuffer().put(values);
            } else {
                b.asLongBuffer().put(longs);
            }
            return b.array();
        }
    }

    private TfBundles() {}

    /**
     * {@link TfImport} of {@code source} into {@code out} (the ELECTRA generator when asked), for tests in modules
     * whose module does not read the converter's (the engine's).
     */
    public static BertConfig imported(Path source, Path out, boolean electraGenerator) {
        return TfImport.convert(source, out, electraGenerator, (done, total) -> { });
    }

    /** Writes {@code variables} (by TensorFlow name) as the checkpoint {@code prefix}. */
    public static void write(Path prefix, Map<String, Variable> variables) {
        TreeMap<String, Variable> sorted = new TreeMap<>(variables);
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        entry(block, "", header());
        for (var e : sorted.entrySet()) {
            byte[] bytes = e.getValue().bytes();
            entry(block, e.getKey(), bundleEntry(e.getValue().dtype(), e.getValue().shape(), data.size(), bytes));
            data.writeBytes(bytes);
        }
        ByteArrayOutputStream index = new ByteArrayOutputStream();
        long dataSize = finishBlock(block);
        long dataOffset = 0;
        index.writeBytes(block.toByteArray());
        long metaOffset = index.size();
        ByteArrayOutputStream meta = new ByteArrayOutputStream();
        long metaSize = finishBlock(meta);
        index.writeBytes(meta.toByteArray());
        ByteArrayOutputStream indexBlock = new ByteArrayOutputStream();
        ByteArrayOutputStream handle = new ByteArrayOutputStream();
        varint(handle, dataOffset);
        varint(handle, dataSize);
        String lastKey = sorted.isEmpty() ? "" : sorted.lastKey();   // an index key is at least its block's last key
        entry(indexBlock, lastKey, handle.toByteArray());
        long indexOffset = index.size();
        long indexSize = finishBlock(indexBlock);
        index.writeBytes(indexBlock.toByteArray());
        ByteArrayOutputStream footer = new ByteArrayOutputStream();
        varint(footer, metaOffset);
        varint(footer, metaSize);
        varint(footer, indexOffset);
        varint(footer, indexSize);
        footer.writeBytes(new byte[40 - footer.size()]);
        footer.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(MAGIC).array());
        index.writeBytes(footer.toByteArray());
        try {
            Files.createDirectories(prefix.toAbsolutePath().getParent());
            Files.write(Path.of(prefix + ".index"), index.toByteArray());
            Files.write(Path.of(prefix + ".data-00000-of-00001"), data.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A key/value entry sharing no prefix with the one before (allowed: sharing is how LevelDB saves space, not a rule). */
    private static void entry(ByteArrayOutputStream block, String key, byte[] value) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        varint(block, 0);
        varint(block, k.length);
        varint(block, value.length);
        block.writeBytes(k);
        block.writeBytes(value);
    }

    /** Appends the block's restart array (one restart, at 0) and trailer; returns the block's size without the trailer. */
    private static long finishBlock(ByteArrayOutputStream block) {
        block.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(0).putInt(1).array());
        long size = block.size();
        CRC32C crc = new CRC32C();
        crc.update(block.toByteArray());
        crc.update(0);
        block.write(0);   // no compression
        block.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(mask((int) crc.getValue())).array());
        return size;
    }

    /** BundleHeaderProto: num_shards 1, endianness LITTLE (0), version { producer 1 }. */
    private static byte[] header() {
        return new byte[] {0x08, 0x01, 0x10, 0x00, 0x1a, 0x02, 0x08, 0x01};
    }

    /** BundleEntryProto: dtype, shape, offset, size, crc32c (masked, fixed32). */
    private static byte[] bundleEntry(int dtype, long[] shape, long offset, byte[] bytes) {
        ByteArrayOutputStream shapeProto = new ByteArrayOutputStream();
        for (long d : shape) {
            ByteArrayOutputStream dim = new ByteArrayOutputStream();
            dim.write(0x08);
            varint(dim, d);
            embedded(shapeProto, 0x12, dim);
        }
        ByteArrayOutputStream p = new ByteArrayOutputStream();
        p.write(0x08);
        varint(p, dtype);
        embedded(p, 0x12, shapeProto);
        p.write(0x20);
        varint(p, offset);
        p.write(0x28);
        varint(p, bytes.length);
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        p.write(0x35);
        p.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(mask((int) crc.getValue())).array());
        return p.toByteArray();
    }

    /** LevelDB's and TensorFlow's masked CRC: rotated right by 15 bits, plus a constant. */
    private static int mask(int crc) {
        return Integer.rotateRight(crc, 15) + 0xa282ead8;
    }

    /** A length-delimited field: its tag, its length, its bytes. */
    private static void embedded(ByteArrayOutputStream out, int tag, ByteArrayOutputStream message) {
        out.write(tag);
        varint(out, message.size());
        out.writeBytes(message.toByteArray());
    }

    private static void varint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7fL) != 0) {
            out.write((int) ((value & 0x7f) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}
