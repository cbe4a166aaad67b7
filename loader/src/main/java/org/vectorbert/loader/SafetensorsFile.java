package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.common.Json;

/**
 * A safetensors file, validated as the reference implementation does and then memory-mapped
 * once; its tensors are zero-copy views into the mapping, released by {@link #close()}.
 *
 * <p>Layout: an 8-byte little-endian header length N, N bytes of UTF-8 JSON describing each
 * tensor's dtype, shape and [begin, end) offsets into the data buffer that follows, and the buffer.
 */
public final class SafetensorsFile implements TensorFile {
    /** The reference implementation's bound on the header. */
    public static final long MAX_HEADER_BYTES = 100_000_000;

    private final Path path;
    private final Arena arena;
    private final Map<String, Tensor> tensors;
    private final Map<String, String> metadata;

    private SafetensorsFile(Path path, Arena arena, Map<String, Tensor> tensors, Map<String, String> metadata) {
        this.path = path;
        this.arena = arena;
        this.tensors = tensors;
        this.metadata = metadata;
    }

    private record Entry(String name, DType dtype, long[] shape, long begin, long end) {}

    /**
     * Opens and validates {@code file}; nothing is mapped unless every check passes.
     *
     * @param file a safetensors file
     * @return the open file; close it to unmap
     * @throws LoaderException saying what is wrong with the file
     */
    public static SafetensorsFile open(Path file) {
        String where = file.toString();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size < 8) {
                throw new LoaderException(where + ": " + size + " bytes is too short for a safetensors file (truncated?)");
            }
            ByteBuffer lengthBytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(channel, lengthBytes, 0);
            long headerLength = lengthBytes.getLong(0);
            if (headerLength < 0 || headerLength > MAX_HEADER_BYTES) {
                throw new LoaderException(where + ": header length " + Long.toUnsignedString(headerLength)
                        + " exceeds the " + MAX_HEADER_BYTES + "-byte limit (corrupt file?)");
            }
            if (8 + headerLength > size) {
                throw new LoaderException(where + ": header length " + headerLength + " runs past the end of the "
                        + size + "-byte file (truncated?)");
            }
            ByteBuffer header = ByteBuffer.allocate((int) headerLength);
            readFully(channel, header, 8);
            List<Entry> entries = new ArrayList<>();
            Map<String, String> metadata = parseHeader(header.array(), where, entries);
            long dataLength = size - 8 - headerLength;
            checkLayout(entries, dataLength, where);

            Arena arena = Arena.ofShared();
            try {
                MemorySegment data = channel.map(FileChannel.MapMode.READ_ONLY, 8 + headerLength, dataLength, arena);
                Map<String, Tensor> tensors = new LinkedHashMap<>();
                for (Entry e : entries) {
                    tensors.put(e.name, new Tensor(e.name, e.dtype, e.shape, data.asSlice(e.begin, e.end - e.begin)));
                }
                return new SafetensorsFile(file, arena, Collections.unmodifiableMap(tensors), metadata);
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

    private static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position + buffer.position());
            if (n < 0) {
                throw new IOException("unexpected end of file");
            }
        }
    }

    /** Parses the JSON header into entries (in file order) and returns the metadata. */
    private static Map<String, String> parseHeader(byte[] bytes, String where, List<Entry> entries) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new LoaderException(where + ": the header is not valid UTF-8 (corrupt file?)");
        }
        if (!text.startsWith("{")) {
            throw new LoaderException(where + ": the header does not start with '{' (not a safetensors file?)");
        }
        JsonNode root = Json.parse(bytes, where + " header", LoaderException::new);
        if (!root.isObject()) {
            throw new LoaderException(where + ": the header is not a JSON object");
        }
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            String name = field.getKey();
            JsonNode info = field.getValue();
            if (name.equals("__metadata__")) {
                if (!info.isObject()) {
                    throw new LoaderException(where + ": __metadata__ must be an object of strings");
                }
                for (Map.Entry<String, JsonNode> m : info.properties()) {
                    if (!m.getValue().isTextual()) {
                        throw new LoaderException(where + ": __metadata__ value '" + m.getKey() + "' is not a string");
                    }
                    metadata.put(m.getKey(), m.getValue().asText());
                }
                continue;
            }
            entries.add(entry(name, info, where));
        }
        return Collections.unmodifiableMap(metadata);
    }

    private static Entry entry(String name, JsonNode info, String where) {
        String prefix = where + ": tensor '" + name + "'";
        if (!info.isObject()) {
            throw new LoaderException(prefix + " must be described by an object");
        }
        DType dtype = DType.byName(info.path("dtype").asText(""));
        if (dtype == null) {
            throw new LoaderException(prefix + " has unknown dtype " + info.path("dtype"));
        }
        JsonNode shapeNode = info.path("shape");
        if (!shapeNode.isArray()) {
            throw new LoaderException(prefix + " has no shape array");
        }
        long[] shape = new long[shapeNode.size()];
        for (int i = 0; i < shape.length; i++) {
            JsonNode d = shapeNode.get(i);
            if (!d.canConvertToLong() || !d.isIntegralNumber() || d.longValue() < 0) {
                throw new LoaderException(prefix + " has invalid dimension " + d + " in shape " + shapeNode);
            }
            shape[i] = d.longValue();
        }
        JsonNode offsets = info.path("data_offsets");
        if (!offsets.isArray() || offsets.size() != 2 || !offsets.get(0).canConvertToLong() || !offsets.get(1).canConvertToLong()
                || !offsets.get(0).isIntegralNumber() || !offsets.get(1).isIntegralNumber()) {
            throw new LoaderException(prefix + " needs data_offsets [begin, end], found " + offsets);
        }
        long begin = offsets.get(0).longValue();
        long end = offsets.get(1).longValue();
        if (begin < 0 || end < begin) {
            throw new LoaderException(prefix + " has invalid data_offsets " + offsets);
        }
        long bytes;
        try {
            bytes = Math.multiplyExact(Tensor.elementCount(shape), dtype.bytes());
        } catch (ArithmeticException e) {
            throw new LoaderException(prefix + " has shape " + shapeNode + " too large to address");
        }
        if (end - begin != bytes) {
            throw new LoaderException(prefix + ": data_offsets " + offsets + " span " + (end - begin)
                    + " bytes but " + dtype + " " + shapeNode + " needs " + bytes);
        }
        return new Entry(name, dtype, shape, begin, end);
    }

    /** Tensors must tile the data buffer exactly: no overlap, no hole, nothing past the end. */
    private static void checkLayout(List<Entry> entries, long dataLength, String where) {
        List<Entry> byOffset = new ArrayList<>(entries);
        byOffset.sort(Comparator.comparingLong(Entry::begin).thenComparingLong(Entry::end));
        long expected = 0;
        Entry previous = null;
        for (Entry e : byOffset) {
            if (e.begin < expected) {
                throw new LoaderException(where + ": tensors '" + previous.name + "' and '" + e.name + "' overlap (bytes "
                        + e.begin + ".." + Math.min(expected, e.end) + ")");
            }
            if (e.begin > expected) {
                throw new LoaderException(where + ": bytes " + expected + ".." + e.begin
                        + " of the data buffer belong to no tensor (corrupt header?)");
            }
            expected = e.end;
            previous = e;
        }
        if (expected > dataLength) {
            throw new LoaderException(where + ": tensor '" + previous.name + "' ends at byte " + expected
                    + " of the data buffer, which has only " + dataLength + " (truncated file?)");
        }
        if (expected < dataLength) {
            throw new LoaderException(where + ": " + (dataLength - expected)
                    + " bytes after the last tensor belong to no tensor (corrupt file?)");
        }
    }

    /** {@return the file} */
    public Path path() {
        return path;
    }

    /** {@return the tensors in file order, by name} */
    public Map<String, Tensor> tensors() {
        return tensors;
    }

    /** {@return the header's {@code __metadata__}} */
    public Map<String, String> metadata() {
        return metadata;
    }

    /** Unmaps the file; tensors from it must not be used afterwards. */
    @Override
    public void close() {
        if (arena.scope().isAlive()) {
            arena.close();
        }
    }
}
