package org.vectorbert.loader;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;

/** A safetensors file of any bytes: its header parsed, its tensors' tiling checked, each tensor read; refused only with the loader's error. */
@Tag("heavy")
class SafetensorsFuzzTest {
    @FuzzTest
    void open(byte[] bytes) throws IOException {
        Path file = Files.createTempFile("fuzz", ".safetensors");
        try {
            Files.write(file, bytes);
            try (SafetensorsFile f = SafetensorsFile.open(file)) {
                for (Tensor t : f.tensors().values()) {
                    if (t.dtype().isFloat()) {
                        t.toFloatArray();
                    }
                }
            } catch (VectorbertException expected) {
                // A clear refusal is the right answer to bad bytes.
            }
        } finally {
            Files.delete(file);
        }
    }
}
