package org.vectorbert.convert;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;

/** A TensorFlow checkpoint's bundle index of any bytes: parsed, or refused with the loader's error. */
@Tag("heavy")
class TensorBundleFuzzTest {
    @FuzzTest
    void parseIndex(byte[] bytes) {
        try {
            TensorBundle.parseIndex(bytes, "fuzz.index");
        } catch (VectorbertException expected) {
            // refused clearly
        }
    }
}
