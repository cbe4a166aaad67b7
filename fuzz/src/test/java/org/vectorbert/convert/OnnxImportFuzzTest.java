package org.vectorbert.convert;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;

/** An ONNX file of any bytes: the protobuf parsed and the graph read as a BERT encoder, or refused with the loader's error. */
@Tag("heavy")
class OnnxImportFuzzTest {
    @FuzzTest
    void importGraph(byte[] bytes) {
        try {
            OnnxImport.importGraph(OnnxGraph.parse(MemorySegment.ofArray(bytes), "fuzz.onnx"), "fuzz.onnx");
        } catch (VectorbertException expected) {
            // refused clearly
        }
    }
}
