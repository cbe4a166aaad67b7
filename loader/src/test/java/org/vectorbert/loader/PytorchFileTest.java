package org.vectorbert.loader;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Files written by torch.save (tools/torch-reference/make_pytorch_fixtures.py, torch 1.13) read by {@link PytorchFile}:
 * every tensor equals its twin in a safetensors file written by hand from the same tensors, bit for bit; what the
 * reader does not accept is refused in one line naming it.
 */
class PytorchFileTest {
    private static final Path DIR = Path.of("src/test/resources/pytorch");

    @TempDir
    Path tmp;

    private static String refusal(Path file) {
        String message = assertThrows(LoaderException.class, () -> PytorchFile.open(file).close()).getMessage();
        assertFalse(message.contains("\n"), message);
        assertTrue(message.contains(file.toString()), message);
        return message;
    }

    /** Same names in the same order, same dtypes, shapes and bytes. */
    static void assertSameTensors(Map<String, Tensor> expected, Map<String, Tensor> actual) {
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(actual.keySet()));
        for (Tensor e : expected.values()) {
            Tensor a = actual.get(e.name());
            assertEquals(e.dtype(), a.dtype(), e.name());
            assertArrayEquals(e.shape(), a.shape(), e.name());
            assertArrayEquals(e.data().toArray(ValueLayout.JAVA_BYTE), a.data().toArray(ValueLayout.JAVA_BYTE), e.name());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shared-f32", "dtypes", "opcodes"})
    void everyTensorEqualsItsSafetensorsTwin(String name) {
        try (PytorchFile torch = PytorchFile.open(DIR.resolve(name + ".bin"));
                SafetensorsFile twin = SafetensorsFile.open(DIR.resolve(name + ".safetensors"))) {
            assertSameTensors(twin.tensors(), torch.tensors());
        }
    }

    @Test
    void viewsOfOneStorageShareItsBytesAndKeepTheirOffsets() {
        try (PytorchFile f = PytorchFile.open(DIR.resolve("shared-f32.bin"))) {
            Tensor weight = f.tensor("a.weight");
            Tensor bias = f.tensor("a.bias");
            Tensor next = f.tensor("b.weight");
            assertEquals(weight.data().address() + 12 * 4, bias.data().address());
            assertEquals(weight.data().address() + 16 * 4, next.data().address());
            assertArrayEquals(new long[] {4}, bias.shape());
        }
    }

    @Test
    void scalarsIntegersAndHalfTypesKeepTheirTypes() {
        try (PytorchFile f = PytorchFile.open(DIR.resolve("dtypes.bin"))) {
            assertEquals(0, f.tensor("scalar").shape().length);
            assertEquals(2.5f, f.tensor("scalar").getFloat(0));
            assertEquals(DType.I64, f.tensor("position_ids").dtype());
            assertEquals(6L, f.tensor("position_ids").data().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, 6));
            assertEquals(DType.BF16, f.tensor("bf16").dtype());
            assertEquals(DType.F16, f.tensor("f16").dtype());
            assertEquals(DType.BOOL, f.tensor("mask").dtype());
            assertEquals(0, f.tensor("empty").data().byteSize());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"torch2-layout", "zip64"})
    void theLayoutTorch2WritesAndZip64FieldsReadAlike(String name) {
        try (PytorchFile newer = PytorchFile.open(DIR.resolve(name + ".bin"));
                SafetensorsFile twin = SafetensorsFile.open(DIR.resolve("shared-f32.safetensors"))) {
            assertSameTensors(twin.tensors(), newer.tensors());
        }
    }

    @Test
    void whatIsNotAStateDictOfTensorsIsRefusedInOneLine() {
        assertTrue(refusal(DIR.resolve("legacy.bin")).contains("pickle-only format of torch before 1.6"));
        assertTrue(refusal(DIR.resolve("os-system.bin")).contains("global os.system is not allowed"));
        assertTrue(refusal(DIR.resolve("counter.bin")).contains("global collections.Counter is not allowed"));
        assertTrue(refusal(DIR.resolve("nested.bin")).contains("is a nested dict (keys 'state_dict', 'epoch')"));
        assertTrue(refusal(DIR.resolve("transposed.bin")).contains("tensor 't' has strides [1, 2] for shape [2, 3], not row-major"));
        assertTrue(refusal(DIR.resolve("big-endian.bin")).contains("byteorder is 'big'"));
        assertTrue(refusal(DIR.resolve("compressed-record.bin")).contains("record archive/data/0 is compressed (zip method 8)"));
    }

    /** A zip holding {@code pickle} as archive/data.pkl, stored as torch stores it. */
    private Path torchZip(String name, byte[] pickle) throws IOException {
        Path file = tmp.resolve(name);
        try (var zip = new java.util.zip.ZipOutputStream(Files.newOutputStream(file))) {
            var entry = new java.util.zip.ZipEntry("archive/data.pkl");
            var crc = new java.util.zip.CRC32();
            crc.update(pickle);
            entry.setMethod(java.util.zip.ZipEntry.STORED);
            entry.setSize(pickle.length);
            entry.setCrc(crc.getValue());
            zip.putNextEntry(entry);
            zip.write(pickle);
            zip.closeEntry();
        }
        return file;
    }

    private static byte[] pickle(String opcodes) {
        return opcodes.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    }

    @Test
    void pickleOpcodesGlobalsAndIdsOutsideAStateDictAreRefusedByName() throws IOException {
        assertTrue(refusal(torchZip("eval.bin", pickle("\u0080\u0002cbuiltins\neval\nX\u0001\u0000\u0000\u00001\u0085R.")))
                .endsWith("(data.pkl): global builtins.eval is not allowed: only tensors, storages and OrderedDict are read, nothing is executed"));
        assertTrue(refusal(torchZip("inst.bin", pickle("\u0080\u0002(ios\nsystem\n."))).contains("opcode 0x69 ('i') at byte 3 is not one"));
        assertTrue(refusal(torchZip("pid.bin", pickle("\u0080\u0002X\u0001\u0000\u0000\u0000xQ."))).contains("a persistent id is not ('storage'"));
        assertTrue(refusal(torchZip("list.bin", pickle("\u0080\u0002]."))).contains(" holds a list, not a dict of tensors"));
        assertTrue(refusal(torchZip("value.bin", pickle("\u0080\u0002}X\u0001\u0000\u0000\u0000aK\u0001s.")))
                .contains(": 'a' is an integer, not a tensor"));
        assertTrue(refusal(torchZip("short.bin", pickle("\u0080\u0002}X\u00ff\u0000\u0000\u0000a"))).contains("the pickle ends inside"));
        assertTrue(refusal(torchZip("long-name.bin", pickle("\u0080\u0002X\u0000\u0000\u0020\u0000" + "a".repeat(1 << 21) + ".")))
                .contains("a string of 2097152 bytes"));
        assertTrue(refusal(torchZip("marks.bin", pickle("\u0080\u0002" + "(".repeat((1 << 20) + 1) + "."))).contains("nested MARKs"));
        String selfHolding = "\u0080\u0002]q\u0000h\u0000ah\u0000a}q\u0001h\u0000b.";
        assertTrue(refusal(torchZip("self.bin", pickle(selfHolding))).contains("BUILD on a dict with a list state"));
    }

    @Test
    void brokenFilesAreRefusedInOneLine() throws IOException {
        byte[] good = Files.readAllBytes(DIR.resolve("shared-f32.bin"));
        assertTrue(refusal(Files.write(tmp.resolve("empty.bin"), new byte[0])).contains("does not start as a zip file does"));
        assertTrue(refusal(Files.write(tmp.resolve("text.bin"), "{\"a\": 1}".getBytes())).contains("does not start as a zip"));
        byte[] cut = java.util.Arrays.copyOf(good, good.length - 30);
        assertTrue(refusal(Files.write(tmp.resolve("cut.bin"), cut)).contains("no zip end-of-directory record"));
        // every single byte flipped in turn: refused in one line or read, never another exception
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= (byte) 0xA5;
            Path file = Files.write(tmp.resolve("flip.bin"), bad);
            try (PytorchFile f = PytorchFile.open(file)) {
                f.tensors().values().forEach(t -> t.data().toArray(ValueLayout.JAVA_BYTE));
            } catch (LoaderException e) {
                assertFalse(e.getMessage().contains("\n"), e.getMessage());
            }
        }
    }

    @Test
    void aDirectoryWithOnlyPytorchWeightsOpensThroughTensorFiles() {
        try (TensorFiles single = TensorFiles.open(DIR.resolve("single"));
                TensorFiles sharded = TensorFiles.open(DIR.resolve("sharded"));
                SafetensorsFile twin = SafetensorsFile.open(DIR.resolve("shared-f32.safetensors"))) {
            assertSameTensors(twin.tensors(), single.tensors());
            assertSameTensors(twin.tensors(), sharded.tensors());
            assertEquals(List.of(DIR.resolve("single/pytorch_model.bin")), single.weightFiles());
            assertEquals(2, sharded.weightFiles().size());
            assertEquals(DType.F32, single.require("c.weight", 3, 2).dtype());
        }
    }

    @Test
    void safetensorsBesidePytorchWeightsWin() throws IOException {
        Path both = Files.createDirectories(tmp.resolve("both"));
        Files.copy(DIR.resolve("single/config.json"), both.resolve("config.json"));
        Files.copy(DIR.resolve("dtypes.bin"), both.resolve("pytorch_model.bin"));
        Files.copy(DIR.resolve("shared-f32.safetensors"), both.resolve("model.safetensors"));
        try (TensorFiles files = TensorFiles.open(both)) {
            assertEquals(List.of(both.resolve("model.safetensors")), files.weightFiles());
        }
    }
}
