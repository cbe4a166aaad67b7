package org.vectorbert.loader;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;

/** A torch.save file of any bytes: its zip directory, its pickle and its tensors' views read, each tensor then read; refused only with the loader's error. */
@Tag("heavy")
class PytorchFuzzTest {
    @FuzzTest
    void open(byte[] bytes) throws IOException {
        Path file = Files.createTempFile("fuzz", ".bin");
        try {
            Files.write(file, bytes);
            try (PytorchFile f = PytorchFile.open(file)) {
                for (Tensor t : f.tensors().values()) {
                    if (t.dtype().isFloat()) {
                        t.toFloatArray();
                    } else {
                        t.data().toArray(ValueLayout.JAVA_BYTE);
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
