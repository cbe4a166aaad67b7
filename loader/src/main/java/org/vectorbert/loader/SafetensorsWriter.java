package org.vectorbert.loader;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.vectorbert.common.Json;
import org.vectorbert.common.AtomicFiles;

/**
 * Writes a safetensors file tensor by tensor, in the order the header lists them, so a
 * conversion can stream. The file is written beside its destination and moved into place by
 * {@link #finish()}; closing without finishing deletes it, so no half-written file is left to trust.
 */
public final class SafetensorsWriter implements AutoCloseable {
    /**
     * A tensor's header entry: what {@link #write} must then supply, in this order.
     *
     * @param name  the tensor's name
     * @param dtype its element type
     * @param shape its dimensions
     */
    public record Spec(String name, DType dtype, long[] shape) {
        long byteSize() {
            return Math.multiplyExact(Tensor.elementCount(shape), dtype.bytes());
        }
    }

    private final Path target;
    private final Path partial;
    private final FileChannel channel;
    private final List<Spec> specs;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 22);
    private final MemorySegment staging = MemorySegment.ofBuffer(buffer);
    private int next;
    private boolean finished;

    /**
     * Starts a file of {@code specs}' tensors: writes the header into a partial file beside {@code target}.
     *
     * @param target   the safetensors file, in place once every tensor is written and {@link #finish()} called
     * @param specs    the tensors, in the order their bytes will come
     * @param metadata the header's {@code __metadata__}
     */
    public SafetensorsWriter(Path target, List<Spec> specs, Map<String, String> metadata) {
        this.target = target;
        this.partial = AtomicFiles.partial(target);
        this.specs = List.copyOf(specs);
        ObjectNode header = Json.object();
        if (!metadata.isEmpty()) {
            ObjectNode meta = header.putObject("__metadata__");
            // Sorted, so the same tensors always give the same bytes (Map.of iterates in a per-run order).
            new java.util.TreeMap<>(metadata).forEach(meta::put);
        }
        var names = new HashSet<String>();
        long offset = 0;
        for (Spec s : specs) {
            if (!names.add(s.name())) {
                throw new LoaderException("duplicate tensor name '" + s.name() + "'");
            }
            ObjectNode entry = header.putObject(s.name());
            entry.put("dtype", s.dtype().name());
            var shape = entry.putArray("shape");
            Arrays.stream(s.shape()).forEach(shape::add);
            var offsets = entry.putArray("data_offsets");
            offsets.add(offset);
            offset += s.byteSize();
            offsets.add(offset);
        }
        byte[] json = header.toString().getBytes(StandardCharsets.UTF_8);
        // Pad with spaces so the data starts 8-byte aligned, as the reference writer does.
        int padded = (json.length + 7) / 8 * 8;
        ByteBuffer head = ByteBuffer.allocate(8 + padded).order(ByteOrder.LITTLE_ENDIAN);
        head.putLong(padded).put(json);
        while (head.hasRemaining()) {
            head.put((byte) ' ');
        }
        head.flip();
        try {
            Files.createDirectories(target.toAbsolutePath().getParent());
            channel = FileChannel.open(partial, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
            writeAll(head);
        } catch (IOException e) {
            throw new LoaderException("cannot write " + partial + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes the next tensor's bytes.
     *
     * @param bytes little-endian, row-major, exactly the tensor's size
     */
    public void write(MemorySegment bytes) {
        if (next >= specs.size()) {
            throw new IllegalStateException("all " + specs.size() + " tensors are already written");
        }
        Spec spec = specs.get(next);
        if (bytes.byteSize() != spec.byteSize()) {
            throw new IllegalArgumentException("tensor " + spec.name() + " needs " + spec.byteSize() + " bytes, got "
                    + bytes.byteSize());
        }
        try {
            // Through one direct buffer: works for heap arrays and mapped files alike.
            for (long at = 0; at < bytes.byteSize(); at += buffer.capacity()) {
                int n = (int) Math.min(buffer.capacity(), bytes.byteSize() - at);
                MemorySegment.copy(bytes, at, staging, 0, n);
                writeAll(buffer.clear().limit(n));
            }
        } catch (IOException e) {
            throw new LoaderException("cannot write " + partial + ": " + e.getMessage(), e);
        }
        next++;
    }

    /**
     * Writes the next tensor, a float32 one.
     *
     * @param values its elements, row-major
     */
    public void write(float[] values) {
        MemorySegment segment = MemorySegment.ofArray(values);
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("writing from a big-endian machine");
        }
        write(segment);
    }

    /** {@return the tensor whose bytes are to come next} */
    public Spec nextSpec() {
        return specs.get(next);
    }

    private void writeAll(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    /** Flushes the file to disk and moves it into place. */
    public void finish() {
        if (next != specs.size()) {
            throw new IllegalStateException("only " + next + " of " + specs.size() + " tensors were written");
        }
        try {
            channel.force(true);
            channel.close();
            AtomicFiles.moveIntoPlace(partial, target);
            finished = true;
        } catch (IOException e) {
            throw new LoaderException("cannot write " + target + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        if (!finished) {
            try {
                channel.close();
                Files.deleteIfExists(partial);
            } catch (IOException e) {
                // Best effort: a leftover .partial file is never read as a checkpoint.
            }
        }
    }
}
