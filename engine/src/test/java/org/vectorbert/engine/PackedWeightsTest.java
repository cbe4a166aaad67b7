package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;

/**
 * Packed weights mapped from their file in the cache: the kernels give the bits of their float32
 * fused-multiply-add twin on them; a second load maps without packing; a file that is stale or
 * damaged in any way is rebuilt, never read; a cache that cannot be written still loads, with one warning.
 */
class PackedWeightsTest {
    private static final Batch BATCH = Batch.of(List.of(new int[] {1, 7, 12, 49, 3, 2}, new int[] {1, 30, 2}),
            List.of(new int[] {0, 0, 0, 1, 1, 1}, new int[] {0, 0, 0}), 0);
    /** Shapes [out, in] across full, short and several panels at either vector width. */
    private static final Map<String, long[]> SHAPES = Map.of("a.weight", new long[] {130, 96}, "b.weight", new long[] {64, 200},
            "c.weight", new long[] {17, 33}, "d.weight", new long[] {1, 5});

    @TempDir
    Path temp;
    private String property;

    @BeforeEach
    void useATemporaryCache() {
        property = System.getProperty("vectorbert.packed");
        System.setProperty("vectorbert.packed", temp.resolve("cache").toString());
    }

    @AfterEach
    void restore() {
        if (property == null) {
            System.clearProperty("vectorbert.packed");
        } else {
            System.setProperty("vectorbert.packed", property);
        }
    }

    @Test
    void kernelsOnMappedWeightsGiveTheirScalarTwinsBitsInF32AndBf16() throws IOException {
        Path model = randomCheckpoint(temp.resolve("random"));
        Random random = new Random(7);
        for (Precision precision : Precision.values()) {
            for (int load = 0; load < 2; load++) {
                int packings = PackedWeights.PACKINGS.get();
                try (BertCheckpoint checkpoint = BertCheckpoint.open(model)) {
                    Map<String, PackedMatrix> matrices = PackedWeights.load(checkpoint, precision, PackedWeights.directory(), packed -> {
                        Map<String, PackedMatrix> m = new LinkedHashMap<>();
                        for (String name : SHAPES.keySet()) {
                            m.put(name, packed.matrix(checkpoint.tensors().get(name), checkpoint.tensors().get(name.replace("weight", "bias")),
                                    precision));
                        }
                        return m;
                    });
                    assertEquals(packings + (load == 0 ? 1 : 0), PackedWeights.PACKINGS.get(), "load " + load);
                    for (Map.Entry<String, PackedMatrix> e : matrices.entrySet()) {
                        PackedMatrix m = e.getValue();
                        assertTrue(m.weights.isMapped(), e.getKey() + " is not mapped");
                        float[] w = checkpoint.tensors().get(e.getKey()).toFloatArray();
                        if (precision == Precision.BF16) {
                            for (int i = 0; i < w.length; i++) {
                                w[i] = Float.intBitsToFloat(PackedMatrix.bf16(w[i]) << 16);
                            }
                        }
                        float[] b = checkpoint.tensors().get(e.getKey().replace("weight", "bias")).toFloatArray();
                        for (int rows : new int[] {1, 2, 3, 4, 5, 6, 7, 9, 13}) {
                            float[] x = new float[rows * m.in];
                            for (int i = 0; i < x.length; i++) {
                                x[i] = (float) random.nextGaussian();
                            }
                            float[] y = new float[rows * m.out];
                            m.apply(x, rows, y);
                            assertArrayEquals(ScalarKernels.linearFma(x, rows, m.in, w, b, m.out), y,
                                    precision + " " + e.getKey() + " rows " + rows);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aSecondLoadMapsTheFileWithoutPackingOrWriting() throws IOException {
        Path model = copyOf("tiny-pre-ln");
        float[] first = run(model);
        Path file = onlyFile();
        FileTime written = Files.getLastModifiedTime(file);
        int packings = PackedWeights.PACKINGS.get();
        assertArrayEquals(first, run(model));
        assertEquals(packings, PackedWeights.PACKINGS.get(), "the second load packed");
        assertEquals(written, Files.getLastModifiedTime(file));
        assertArrayEquals(inMemory(model), first, "mapped weights give other results than weights packed in memory");
    }

    @Test
    void aStaleOrDamagedFileIsRebuiltNeverTrusted() throws IOException {
        Path model = copyOf("tiny-post-ln-gelu-new");
        float[] expected = inMemory(model);
        Map<String, Consumer<Path>> damages = new LinkedHashMap<>();
        damages.put("longer", f -> append(f, new byte[100]));
        damages.put("truncated", f -> truncate(f, size(f) / 2));
        damages.put("one byte short", f -> truncate(f, size(f) - 1));
        damages.put("garbage header", f -> overwrite(f, 8, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}));
        damages.put("header length past the end", f -> overwrite(f, 8, new byte[] {(byte) 0xFF, (byte) 0xFF, 0, 0}));
        damages.put("not a packed file", f -> overwrite(f, 0, "PK\u0003\u0004".getBytes()));
        damages.put("empty", f -> truncate(f, 0));
        damages.put("weights touched", f -> touch(model.resolve("model.safetensors")));
        damages.put("config touched", f -> touch(model.resolve("config.json")));
        damages.put("config changed size", f -> append(model.resolve("config.json"), "\n".getBytes()));
        for (Map.Entry<String, Consumer<Path>> damage : damages.entrySet()) {
            run(model);
            Path file = onlyFile();
            damage.getValue().accept(file);
            int packings = PackedWeights.PACKINGS.get();
            assertArrayEquals(expected, run(model), damage.getKey());
            assertEquals(packings + 1, PackedWeights.PACKINGS.get(), damage.getKey() + ": the file was trusted");
            int again = PackedWeights.PACKINGS.get();
            assertArrayEquals(expected, run(model), damage.getKey());
            assertEquals(again, PackedWeights.PACKINGS.get(), damage.getKey() + ": the rebuilt file was not used");
            assertEquals(List.of(file), files(), damage.getKey() + ": partial files left");
        }
    }

    @Test
    void theFileOfAModelThatIsGoneIsRemovedWhenAnotherIsWritten() throws IOException {
        Path gone = copyOf("tiny-pre-ln");
        run(gone);
        Path orphan = onlyFile();
        for (String file : List.of("config.json", "model.safetensors")) {
            Files.delete(gone.resolve(file));
        }
        Files.delete(gone);
        run(copyOf("tiny-post-ln-gelu-new"));
        assertFalse(Files.exists(orphan), "the packed file of a deleted model stayed");
        assertEquals(1, files().size());
    }

    @Test
    void anUnwritableCacheLoadsFromMemoryAndWarnsOnce() throws IOException {
        Path model = copyOf("tiny-pre-ln");
        float[] expected = inMemory(model);
        Path notADirectory = Files.writeString(temp.resolve("file"), "a file, where the cache's parent should be");
        System.setProperty("vectorbert.packed", notADirectory.resolve("packed").toString());
        PackedWeights.resetWarning();
        int packings = PackedWeights.PACKINGS.get();
        assertArrayEquals(expected, run(model));
        assertArrayEquals(expected, run(model));
        assertEquals(packings + 2, PackedWeights.PACKINGS.get());
        assertEquals(1, PackedWeights.WARNINGS.get(), "warned " + PackedWeights.WARNINGS.get() + " times");
        // A read-only directory, where permissions bind (not for root, who writes anyway: hence the file above).
        Path readOnly = Files.createDirectories(temp.resolve("read-only"));
        Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-xr-xr-x"));
        try {
            if (!Files.isWritable(readOnly)) {
                System.setProperty("vectorbert.packed", readOnly.toString());
                PackedWeights.resetWarning();
                assertArrayEquals(expected, run(model));
                assertArrayEquals(expected, run(model));
                assertEquals(1, PackedWeights.WARNINGS.get(), "warned " + PackedWeights.WARNINGS.get() + " times");
            }
        } finally {
            Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    @Tag("heavy")
    @Test
    void theRealModelIsMappedOnItsSecondLoad() {
        System.setProperty("vectorbert.packed", property != null ? property : temp.resolve("cache").toString());
        BertModel first = BertModel.load(RealModel.directory());
        int packings = PackedWeights.PACKINGS.get();
        long start = System.nanoTime();
        BertModel second = BertModel.load(RealModel.directory());
        long micros = (System.nanoTime() - start) / 1000;
        assertEquals(packings, PackedWeights.PACKINGS.get(), "the second load packed");
        System.out.println("bert-base-uncased mapped from its packed file in " + micros / 1000.0 + " ms");
        Encoder.Request request = Encoder.Request.lastHiddenState().withPooled();
        assertArrayEquals(first.forward(BATCH, request).lastHiddenState(), second.forward(BATCH, request).lastHiddenState());
    }

    private static float[] run(Path model) {
        Encoder.Output out = BertModel.load(model, Precision.F32).forward(BATCH, Encoder.Request.lastHiddenState().withPooled());
        float[] both = new float[out.lastHiddenState().length + out.pooled().length];
        System.arraycopy(out.lastHiddenState(), 0, both, 0, out.lastHiddenState().length);
        System.arraycopy(out.pooled(), 0, both, out.lastHiddenState().length, out.pooled().length);
        return both;
    }

    /** The model's outputs with its weights packed in memory (a cache that cannot be written). */
    private float[] inMemory(Path model) throws IOException {
        String cache = System.getProperty("vectorbert.packed");
        Path blocked = Files.writeString(temp.resolve("blocked"), "");
        System.setProperty("vectorbert.packed", blocked.resolve("packed").toString());
        try {
            return run(model);
        } finally {
            System.setProperty("vectorbert.packed", cache);
            PackedWeights.resetWarning();
        }
    }

    private Path onlyFile() throws IOException {
        List<Path> files = files();
        assertEquals(1, files.size(), files.toString());
        assertFalse(files.getFirst().getFileName().toString().endsWith(".partial"));
        return files.getFirst();
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(PackedWeights.directory())) {
            return s.sorted().toList();
        }
    }

    private Path copyOf(String name) throws IOException {
        Path to = temp.resolve(name);
        Files.createDirectories(to);
        Path from;
        try {
            from = Path.of(PackedWeightsTest.class.getResource("/reference/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        for (String file : List.of("config.json", "model.safetensors")) {
            Files.copy(from.resolve(file), to.resolve(file));
        }
        return to;
    }

    /** A checkpoint of random matrices and biases of {@link #SHAPES}, and a config it opens with. */
    private static Path randomCheckpoint(Path dir) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), "{\"hidden_size\": 4, \"num_attention_heads\": 2, \"num_hidden_layers\": 1,"
                + " \"intermediate_size\": 8, \"vocab_size\": 10, \"max_position_embeddings\": 16}");
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        SHAPES.forEach((name, shape) -> {
            specs.add(new SafetensorsWriter.Spec(name, DType.F32, shape));
            specs.add(new SafetensorsWriter.Spec(name.replace("weight", "bias"), DType.F32, new long[] {shape[0]}));
        });
        Random random = new Random(42);
        try (SafetensorsWriter w = new SafetensorsWriter(dir.resolve("model.safetensors"), specs, Map.of())) {
            for (SafetensorsWriter.Spec s : specs) {
                float[] values = new float[(int) Tensor.elementCount(s.shape())];
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) random.nextGaussian() * 0.5f;
                }
                w.write(values);
            }
            w.finish();
        }
        return dir;
    }

    private static long size(Path f) {
        try {
            return Files.size(f);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void append(Path f, byte[] bytes) {
        try {
            Files.write(f, bytes, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void truncate(Path f, long size) {
        try (RandomAccessFile file = new RandomAccessFile(f.toFile(), "rw")) {
            file.setLength(size);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void overwrite(Path f, long at, byte[] bytes) {
        try (RandomAccessFile file = new RandomAccessFile(f.toFile(), "rw")) {
            file.seek(at);
            file.write(bytes);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void touch(Path f) {
        try {
            Files.setLastModifiedTime(f, FileTime.fromMillis(Files.getLastModifiedTime(f).toMillis() + 2000));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
