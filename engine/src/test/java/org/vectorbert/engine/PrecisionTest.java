package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;

/**
 * bfloat16 mode against float32 on the same rounded numbers: the kernels widen bf16 exactly and
 * do the same FMAs in the same order, so the results must be bit-identical, whether the rounding
 * happened at load time or in the checkpoint (a BF16 safetensors file).
 */
class PrecisionTest {
    private static final Batch BATCH = Batch.of(List.of(new int[] {1, 7, 12, 49, 3, 2}, new int[] {1, 30, 2}),
            List.of(new int[] {0, 0, 0, 1, 1, 1}, new int[] {0, 0, 0}), 0);

    @TempDir
    Path temp;

    @Test
    void bf16IsFloat32OnRoundedMatricesBitForBit() throws Exception {
        for (String name : List.of("tiny-pre-ln", "tiny-post-ln-gelu-new")) {
            Path original = resource(name);
            Path rounded = rewrite(original, temp.resolve(name + "-rounded-f32"), false);
            Path bf16File = rewrite(original, temp.resolve(name + "-bf16"), true);
            Encoder.Output reference = run(rounded, Precision.F32);
            for (Encoder.Output out : List.of(run(original, Precision.BF16), run(bf16File, Precision.BF16),
                    run(bf16File, Precision.F32))) {
                assertArrayEquals(reference.lastHiddenState(), out.lastHiddenState(), name);
                assertArrayEquals(reference.pooled(), out.pooled(), name);
            }
            // And bf16 is close to, but not the same as, the float32 original.
            float[] exact = run(original, Precision.F32).lastHiddenState();
            double worst = 0;
            for (int i = 0; i < exact.length; i++) {
                worst = Math.max(worst, Math.abs(exact[i] - reference.lastHiddenState()[i]));
            }
            assertTrue(worst > 0 && worst < 0.05, name + ": bf16 differs from f32 by " + worst);
        }
    }

    @Tag("heavy")
    @Test
    void bf16FillsTheMaskOfTheRealModelLikeFloat32() {
        FillMask bf16 = FillMask.load(RealModel.directory().toString(), FillMaskOptions.defaults().withPrecision(Precision.BF16));
        assertEquals(Precision.BF16, bf16.model().precision());
        List<FillMask.Candidate> top = bf16.predict("Paris is the [MASK] of France.").candidates();
        assertEquals("capital", top.getFirst().tokenStr());
        assertTrue(top.getFirst().score() > 0.99, "score " + top.getFirst().score());
    }

    @Test
    void dtypeNames() {
        assertEquals(Precision.BF16, Precision.parse("bf16"));
        assertEquals(Precision.BF16, Precision.parse("BFloat16"));
        assertEquals(Precision.F32, Precision.parse("fp32"));
        assertEquals("unknown dtype 'f16': use f32 or bf16",
                assertThrows(EngineException.class, () -> Precision.parse("f16")).getMessage());
    }

    @Test
    void roundingToBf16IsToNearestEven() {
        assertEquals(0x3F80, PackedMatrix.bf16(1.0f));
        assertEquals(0x3F80, PackedMatrix.bf16(Float.intBitsToFloat(0x3F808000))); // tie, even stays
        assertEquals(0x3F82, PackedMatrix.bf16(Float.intBitsToFloat(0x3F818000))); // tie, odd rounds up
        assertEquals(0x3F81, PackedMatrix.bf16(Float.intBitsToFloat(0x3F808001)));
        assertEquals(0xBF80, PackedMatrix.bf16(-1.0f));
        assertEquals(0x7F80, PackedMatrix.bf16(Float.POSITIVE_INFINITY));
    }

    private static Encoder.Output run(Path dir, Precision precision) {
        return BertModel.load(dir, precision).forward(BATCH, Encoder.Request.lastHiddenState().withPooled());
    }

    /** A copy of the model whose dense-layer matrices are rounded to bf16, stored as F32 or as BF16. */
    private static Path rewrite(Path from, Path to, boolean asBf16) throws IOException {
        Files.createDirectories(to);
        Files.copy(from.resolve("config.json"), to.resolve("config.json"));
        try (SafetensorsFile in = SafetensorsFile.open(from.resolve("model.safetensors"))) {
            Map<String, Tensor> tensors = in.tensors();
            List<SafetensorsWriter.Spec> specs = new ArrayList<>();
            for (Tensor t : tensors.values()) {
                specs.add(new SafetensorsWriter.Spec(t.name(), asBf16 && isMatrix(t) ? DType.BF16 : DType.F32, t.shape()));
            }
            try (SafetensorsWriter out = new SafetensorsWriter(to.resolve("model.safetensors"), specs, Map.of())) {
                for (Tensor t : tensors.values()) {
                    float[] values = t.toFloatArray();
                    if (!isMatrix(t)) {
                        out.write(values);
                    } else if (asBf16) {
                        short[] bits = new short[values.length];
                        for (int i = 0; i < values.length; i++) {
                            bits[i] = (short) PackedMatrix.bf16(values[i]);
                        }
                        out.write(MemorySegment.ofArray(bits));
                    } else {
                        for (int i = 0; i < values.length; i++) {
                            values[i] = Float.intBitsToFloat(PackedMatrix.bf16(values[i]) << 16);
                        }
                        out.write(values);
                    }
                }
                out.finish();
            }
        }
        return to;
    }

    /** The dense layers' weights: what bf16 mode holds in bf16 (embeddings stay float32). */
    private static boolean isMatrix(Tensor t) {
        return t.shape().length == 2 && !t.name().contains("embeddings");
    }

    private static Path resource(String name) {
        try {
            return Path.of(PrecisionTest.class.getResource("/reference/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
