package org.vectorbert.loader;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The records of a zip written by PyTorch's {@code PyTorchStreamWriter} (miniz), read from the central directory of the
 * mapped file, ZIP64 fields included: each record's name and where its bytes lie. Nothing is inflated; only stored
 * records can be read, as torch stores every record of {@code torch.save}.
 */
final class TorchZip {
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int LOCAL = 0x04034b50;
    private static final int CENTRAL = 0x02014b50;
    private static final int END = 0x06054b50;
    private static final int END64 = 0x06064b50;
    private static final int LOCATOR64 = 0x07064b50;

    /** One record: its full name, compression method (0 stored), and its bytes' offset and length in the file. */
    record Entry(String name, int method, long offset, long size) {}

    private final MemorySegment file;
    private final String where;

    private TorchZip(MemorySegment file, String where) {
        this.file = file;
        this.where = where;
    }

    /**
     * The records of {@code file}, in central-directory order, by name.
     *
     * @param file  the whole file, mapped
     * @param where the file's name, for messages
     * @return every record
     * @throws LoaderException naming what is malformed
     */
    static Map<String, Entry> entries(MemorySegment file, String where) {
        return new TorchZip(file, where).read();
    }

    private Map<String, Entry> read() {
        long size = file.byteSize();
        long end = findEnd(size);
        long count = u16(end + 10);
        long cdSize = u32(end + 12);
        long cdOffset = u32(end + 16);
        if (count == 0xFFFF || cdSize == 0xFFFFFFFFL || cdOffset == 0xFFFFFFFFL) {
            // ZIP64: the locator just before the end record points at the ZIP64 end record
            if (end < 20 || u32(end - 20) != LOCATOR64) {
                throw bad("the ZIP64 end-of-directory locator is missing");
            }
            long end64 = file.get(U64, end - 12);
            if (end64 < 0 || end64 > end - 20 - 56 || u32(end64) != END64) {
                throw bad("the ZIP64 end-of-directory record is missing or out of range");
            }
            count = file.get(U64, end64 + 32);
            cdSize = file.get(U64, end64 + 40);
            cdOffset = file.get(U64, end64 + 48);
        }
        if (cdOffset < 0 || cdSize < 0 || cdOffset > end || cdSize > end - cdOffset) {
            throw bad("the central directory (" + cdSize + " bytes at " + cdOffset + ") lies outside the file");
        }
        if (count < 0 || count > cdSize / 46) {
            throw bad("the central directory claims " + count + " records in " + cdSize + " bytes");
        }
        Map<String, Entry> entries = new LinkedHashMap<>();
        long p = cdOffset;
        long cdEnd = cdOffset + cdSize;
        for (long i = 0; i < count; i++) {
            if (p + 46 > cdEnd || u32(p) != CENTRAL) {
                throw bad("central directory record " + i + " is malformed");
            }
            int method = u16(p + 10);
            long compressed = u32(p + 20);
            long uncompressed = u32(p + 24);
            int nameLength = u16(p + 28);
            int extraLength = u16(p + 30);
            int commentLength = u16(p + 32);
            long local = u32(p + 42);
            long next = p + 46 + nameLength + extraLength + commentLength;
            if (next > cdEnd) {
                throw bad("central directory record " + i + " runs past the directory");
            }
            String name = new String(file.asSlice(p + 46, nameLength).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            // ZIP64 extra field: the 64-bit values of whichever of the three fields are all ones, in this order
            long[] wide = {uncompressed, compressed, local};
            long x = p + 46 + nameLength;
            long xEnd = x + extraLength;
            while (x + 4 <= xEnd) {
                int id = u16(x);
                int length = u16(x + 2);
                if (x + 4 + length > xEnd) {
                    throw bad("record " + name + " has an extra field past its end");
                }
                if (id == 1) {
                    long q = x + 4;
                    for (int k = 0; k < 3; k++) {
                        if (wide[k] == 0xFFFFFFFFL) {
                            if (q + 8 > x + 4 + length) {
                                throw bad("record " + name + " has a short ZIP64 field");
                            }
                            wide[k] = file.get(U64, q);
                            q += 8;
                        }
                    }
                }
                x += 4 + length;
            }
            uncompressed = wide[0];
            compressed = wide[1];
            local = wide[2];
            if (local < 0 || compressed < 0 || uncompressed < 0 || local > cdOffset - 30 || u32(local) != LOCAL) {
                throw bad("record " + name + " has no local header at " + local);
            }
            long data = local + 30 + u16(local + 26) + u16(local + 28);
            if (data > cdOffset || compressed > cdOffset - data) {
                throw bad("record " + name + " (" + compressed + " bytes) runs past the data into the directory");
            }
            if (method == 0 && compressed != uncompressed) {
                throw bad("stored record " + name + " has " + compressed + " bytes but claims " + uncompressed);
            }
            if (entries.putIfAbsent(name, new Entry(name, method, data, compressed)) != null) {
                throw bad("record " + name + " appears twice");
            }
            p = next;
        }
        return Collections.unmodifiableMap(entries);
    }

    /** The end-of-central-directory record: searched backwards over the longest comment a zip may have. */
    private long findEnd(long size) {
        long lowest = Math.max(0, size - 22 - 0xFFFF);
        for (long p = size - 22; p >= lowest; p--) {
            if (u32(p) == END && p + 22 + u16(p + 20) == size) {
                return p;
            }
        }
        throw bad("no zip end-of-directory record (truncated file?)");
    }

    private int u16(long offset) {
        return Short.toUnsignedInt(file.get(U16, offset));
    }

    private long u32(long offset) {
        return Integer.toUnsignedLong(file.get(U32, offset));
    }

    private LoaderException bad(String what) {
        return new LoaderException(where + ": not a readable PyTorch zip: " + what);
    }
}
