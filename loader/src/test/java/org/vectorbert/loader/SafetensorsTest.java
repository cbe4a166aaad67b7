package org.vectorbert.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The safetensors reader and writer, and the corrupt files the reader must refuse. */
class SafetensorsTest {
    @TempDir
    Path dir;

    /** Writes a file by hand: 8-byte length, the header text as given, then {@code data}. */
    private Path raw(String header, byte[] data) throws IOException {
        return raw(header.getBytes(StandardCharsets.UTF_8), header.getBytes(StandardCharsets.UTF_8).length, data);
    }

    private Path raw(byte[] header, long declaredLength, byte[] data) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + header.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putLong(declaredLength).put(header).put(data);
        return Files.write(dir.resolve("model.safetensors"), b.array());
    }

    private static String refusal(Path file) {
        return assertThrows(LoaderException.class, () -> SafetensorsFile.open(file).close()).getMessage();
    }

    private static void assertRefused(Path file, String expected) {
        String message = refusal(file);
        assertTrue(message.contains(expected), message);
        assertFalse(message.contains("\n"), message);
    }

    @Test
    void writesAndMapsFloatTensors() throws IOException {
        Path file = dir.resolve("t.safetensors");
        float[] a = {1.5f, -2f, 3.25f, 0f, 1e-8f, -0f};
        try (SafetensorsWriter w = new SafetensorsWriter(file, List.of(
                new SafetensorsWriter.Spec("a", DType.F32, new long[] {2, 3}),
                new SafetensorsWriter.Spec("empty", DType.F32, new long[] {0, 4})), Map.of("format", "pt"))) {
            w.write(a);
            w.write(new float[0]);
            w.finish();
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(file), files.toList(), "nothing but the finished file");
        }
        long headerLength = ByteBuffer.wrap(Files.readAllBytes(file), 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        assertEquals(0, headerLength % 8, "data starts 8-byte aligned");
        try (SafetensorsFile f = SafetensorsFile.open(file)) {
            assertEquals(Map.of("format", "pt"), f.metadata());
            Tensor t = f.tensor("a");
            assertArrayEquals(new long[] {2, 3}, t.shape());
            assertArrayEquals(a, t.toFloatArray());
            assertEquals(3.25f, t.getFloat(2));
            try (Arena arena = Arena.ofConfined()) {
                assertEquals(t.data().address(), t.asFloat32(arena).address(), "F32 is read in place, not copied");
            }
            assertEquals(0, f.tensor("empty").elementCount());
        }
    }

    @Test
    void halfPrecisionIsWidenedToFloat32() throws IOException {
        // 1.0, -2.5 and 65504 in F16; 1.0, -2.5 and 3.140625 in BF16.
        byte[] data = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN)
                .putShort((short) 0x3C00).putShort((short) 0xC100).putShort((short) 0x7BFF)
                .putShort((short) 0x3F80).putShort((short) 0xC020).putShort((short) 0x4049).array();
        Path file = raw("{\"h\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[0,6]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[6,12]}}", data);
        try (SafetensorsFile f = SafetensorsFile.open(file); Arena arena = Arena.ofConfined()) {
            assertArrayEquals(new float[] {1f, -2.5f, 65504f}, f.tensor("h").toFloatArray());
            assertArrayEquals(new float[] {1f, -2.5f, 3.140625f}, f.tensor("b").toFloatArray());
            MemorySegment widened = f.tensor("b").asFloat32(arena);
            assertEquals(12, widened.byteSize());
        }
    }

    @Test
    void closingReleasesTheMapping() throws IOException {
        Path file = raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]);
        SafetensorsFile f = SafetensorsFile.open(file);
        Tensor t = f.tensor("a");
        f.close();
        assertThrows(IllegalStateException.class, () -> t.getFloat(0));
    }

    @Test
    void truncatedData() throws IOException {
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", new byte[10]),
                "tensor 'a' ends at byte 16 of the data buffer, which has only 10 (truncated file?)");
    }

    @Test
    void truncatedHeader() throws IOException {
        byte[] header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}".getBytes(StandardCharsets.UTF_8);
        assertRefused(raw(java.util.Arrays.copyOf(header, 20), header.length, new byte[0]), "runs past the end");
        assertRefused(raw(new byte[0], 0, new byte[0]).resolveSibling("model.safetensors"), "does not start with '{'");
        Path tiny = Files.write(dir.resolve("tiny.safetensors"), new byte[] {1, 2, 3});
        assertRefused(tiny, "3 bytes is too short for a safetensors file");
    }

    @Test
    void absurdHeaderLengthsAreRefusedBeforeAnyAllocation() throws IOException {
        assertRefused(raw(new byte[0], Long.MIN_VALUE, new byte[0]), "header length 9223372036854775808 exceeds");
        assertRefused(raw(new byte[0], -1L, new byte[0]), "header length 18446744073709551615 exceeds");
        assertRefused(raw(new byte[0], 99_999_999L, new byte[0]), "header length 99999999 runs past the end");
    }

    @Test
    void offsetsPastTheEnd() throws IOException {
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", new byte[4]),
                "tensor 'b' ends at byte 8");
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,18446744073709551615]}}", new byte[4]),
                "needs data_offsets [begin, end]");
    }

    @Test
    void overlappingTensors() throws IOException {
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                + "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", new byte[12]),
                "tensors 'a' and 'b' overlap");
    }

    @Test
    void holesAndTrailingBytes() throws IOException {
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", new byte[8]),
                "bytes 0..4 of the data buffer belong to no tensor");
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[6]),
                "2 bytes after the last tensor belong to no tensor");
    }

    @Test
    void byteLengthMustMatchShapeAndDtype() throws IOException {
        assertRefused(raw("{\"a\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", new byte[16]),
                "data_offsets [0,16] span 16 bytes but F16 [2,2] needs 8");
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}", new byte[4]),
                "too large to address");
        assertRefused(raw("{\"a\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", new byte[4]),
                "unknown dtype \"F33\"");
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", new byte[4]),
                "invalid dimension -1");
    }

    @Test
    void headerMustBeUtf8JsonObjectWithoutDuplicates() throws IOException {
        byte[] latin1 = "{\"caf\u00e9\":{}}".getBytes(StandardCharsets.ISO_8859_1);
        assertRefused(raw(latin1, latin1.length, new byte[0]), "the header is not valid UTF-8");
        assertRefused(raw("[1, 2, 3]", new byte[0]), "does not start with '{'");
        assertRefused(raw("{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                + "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", new byte[8]), "Duplicate field 'a'");
        assertRefused(raw("{\"a\": 5}", new byte[0]), "tensor 'a' must be described by an object");
        assertRefused(raw("{\"a\": {\"dtype\": \"F32\"", new byte[0]), "cannot parse");
        assertRefused(raw("{} {}", new byte[0]), "after the document");
    }

    @Test
    void deeplyNestedJsonIsRefusedWithoutStackOverflow() throws IOException {
        String deep = "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";
        assertRefused(raw(deep, new byte[0]), "nesting depth");
    }

    @Test
    void writerRefusesWrongSizesAndLeavesNoPartialFile() throws IOException {
        Path file = dir.resolve("w.safetensors");
        try (SafetensorsWriter w = new SafetensorsWriter(file,
                List.of(new SafetensorsWriter.Spec("a", DType.F32, new long[] {3})), Map.of())) {
            assertThrows(IllegalArgumentException.class, () -> w.write(new float[2]));
            assertThrows(IllegalStateException.class, w::finish);
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(), files.toList(), "neither the file nor a partial one");
        }
    }
}
