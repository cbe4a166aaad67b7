package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Tensor;

/**
 * The plain kernels of the JVM's first pass against the vector kernels, bit for bit: a pass must give the
 * same floats whichever kind ran it. Run at both vector widths (the engine's surefire executions).
 */
class PlainKernelsTest {
    private final Random random = new Random(7);

    @TempDir
    Path dir;

    private float[] random(int n, float scale) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) {
            a[i] = (float) (random.nextGaussian() * scale);
        }
        return a;
    }

    /** Values that reach every branch of exp, tanh and the GELUs: tiny, around the polynomial cut, huge, zeros, infinities. */
    private float[] edgyValues() {
        float[] a = random(3000, 6);
        float[] edges = {0f, -0f, 1e-30f, -1e-30f, 0.624f, 0.625f, -0.625f, 9f, -9f, 45f, -45f, 88.8f, -88f, -87.3f, 100f, -100f,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE};
        System.arraycopy(edges, 0, a, 0, edges.length);
        return a;
    }

    @Test
    void theMatrixProductGivesTheVectorBitsInFloat32AndBf16() {
        for (Precision precision : Precision.values()) {
            for (int rows : new int[] {1, 2, 4, 5, 6, 9, 13}) {
                for (int in : new int[] {1, 7, 64, 100}) {
                    for (int out : new int[] {3, 64, 70, 200}) {
                        float[] w = random(out * in, 0.5f);
                        Tensor t = new Tensor("w", DType.F32, new long[] {out, in}, MemorySegment.ofArray(w));
                        Tensor b = new Tensor("b", DType.F32, new long[] {out}, MemorySegment.ofArray(random(out, 1)));
                        PackedMatrix m = PackedMatrix.pack(t, b, precision);
                        float[] x = random(rows * in, 1);
                        float[] vector = new float[rows * out];
                        float[] plain = new float[rows * out];
                        MatMul.linear(x, rows, m, vector);
                        PlainKernels.runPlain(() -> {
                            MatMul.linear(x, rows, m, plain);
                            return null;
                        });
                        assertArrayEquals(vector, plain, precision + " " + rows + "x" + in + " -> " + out);
                    }
                }
            }
        }
    }

    @Test
    void eightColumnsAtATimeGiveTheBitsOfSixteen() {
        // row8 serves the eight-wide panels of forced 128-bit vectors, which neither test execution's width uses.
        int in = 37;
        float[] x = random(in, 1);
        float[] panel = random(in * PackedMatrix.PANEL, 1);
        float[] bias = random(PackedMatrix.PANEL, 1);
        float[] sixteen = new float[16];
        float[] eight = new float[16];
        PlainMatMul.row16(x, 0, in, panel, 0, bias, 0, sixteen, 0);
        PlainMatMul.row8(x, 0, in, panel, 0, bias, 0, eight, 0);
        PlainMatMul.row8(x, 0, in, panel, 8, bias, 8, eight, 8);
        assertArrayEquals(sixteen, eight);
    }

    @Test
    void layerNormRmsNormSoftmaxWeightsAndTheResidualGiveTheVectorBits() {
        for (int dim : new int[] {1, 5, 16, 37, 384, 768}) {
            float[] x = random(3 * dim, 3);
            float[] gamma = random(dim, 1);
            float[] beta = random(dim, 1);
            float[] vector = new float[x.length];
            float[] plain = new float[x.length];
            RowKernels.layerNorm(x, 3, dim, gamma, beta, 1e-12f, vector);
            PlainRows.layerNorm(x, 3, dim, gamma, beta, 1e-12f, plain);
            assertArrayEquals(vector, plain, "LayerNorm of " + dim);
            RowKernels.rmsNorm(x, 3, dim, gamma, 1e-6f, vector);
            PlainRows.rmsNorm(x, 3, dim, gamma, 1e-6f, plain);
            assertArrayEquals(vector, plain, "RMSNorm of " + dim);

            float[] s2 = random(dim, 8);
            s2[0] = -Float.MAX_VALUE;
            if (dim > 2) {
                float max = Float.NEGATIVE_INFINITY;
                for (int i = 0; i < dim - 1; i++) {
                    max = Math.max(max, s2[i]);
                }
                s2[dim - 1] = max - 87.1f;   // near the weights' edge
            }
            float[] s1 = KernelsTest.paddedToVectors(s2);
            float inv1 = RowKernels.softmaxWeights(s1, 0, s1.length, null, 0);
            float inv2 = PlainRows.softmaxWeights(s2, 0, dim, new float[VectorMath.L]);
            assertArrayEquals(Arrays.copyOf(s1, dim), s2, "softmax weights of " + dim);
            assertEquals(inv1, inv2, "softmax's 1/sum of " + dim);

            float[] a1 = random(dim + 3, 1);
            float[] a2 = a1.clone();
            float[] b = random(dim, 1);
            RowKernels.addInPlace(a1, 3, b, dim);
            PlainRows.addInPlace(a2, 3, b, dim);
            assertArrayEquals(a1, a2, "residual of " + dim);
        }
    }

    @Test
    void everyActivationAndTanhGiveTheVectorBits() {
        for (Activation act : Activation.values()) {
            float[] vector = edgyValues();
            float[] plain = vector.clone();
            RowKernels.activate(act, vector, vector.length);
            PlainRows.activate(act, plain, plain.length);
            assertArrayEquals(vector, plain, act.toString());
        }
        float[] vector = edgyValues();
        float[] plain = vector.clone();
        RowKernels.tanh(vector, 2, vector.length);
        PlainRows.tanh(plain, 2, plain.length);
        assertArrayEquals(vector, plain, "tanh");
    }

    @Test
    void attentionGivesTheVectorBits() {
        for (int seq : new int[] {1, 2, 5, 9, 17, 40, 70, 200}) {
            // Head sizes 4 to 128: with 16-float vectors every column path of the value pass (four vectors, two, one,
            // a masked rest) and their mixes; with 8-float ones as many.
            for (int[] shape : new int[][] {{8, 2}, {64, 4}, {60, 3}, {768, 12}, {384, 12}, {96, 2}, {192, 2}, {256, 2}, {56, 1}}) {
                // Every key, sliding windows within one block of keys and across blocks and query chunks, and causal.
                for (int window : new int[] {0, 4, 33, AttentionKernel.CAUSAL}) {
                    assertAttentionGivesTheVectorBits(seq, shape[0], shape[1], window);
                }
            }
        }
        // Past a block of keys (sums carried from block to block) and a chunk of queries, with each column path.
        for (int[] shape : new int[][] {{64, 4}, {768, 12}, {96, 2}, {60, 3}, {160, 2}}) {
            for (int window : new int[] {0, 150, AttentionKernel.CAUSAL}) {
                assertAttentionGivesTheVectorBits(600, shape[0], shape[1], window);
            }
        }
    }

    private void assertAttentionGivesTheVectorBits(int seq, int hidden, int heads, int window) {
        int d = hidden / heads;
        float[] q = random(seq * hidden, 1);
        float[] k = random(seq * hidden, 1);
        float[] v = random(seq * hidden, 1);
        float[] mask = new float[seq];
        if (seq > 2) {
            mask[seq - 1] = -Float.MAX_VALUE;
        }
        float[] ctxVector = new float[seq * hidden];
        float[] ctxPlain = new float[seq * hidden];
        float[] scoresVector = new float[heads * seq * seq];
        float[] scoresPlain = new float[heads * seq * seq];
        // The odd heads with a relative bias (MPNet's): query i's row of it begins at seq - 1 - i.
        float[] bias = random(2 * seq + 64, 2);
        int[] biasRows = IntStream.range(0, seq).map(i -> seq - 1 - i).toArray();
        // Every third query alone, gathered, at its own position: the floats the whole pass gives it.
        int[] positions = IntStream.range(0, seq).filter(i -> i % 3 == 1).toArray();
        float[] selected = new float[positions.length * hidden];
        for (int i = 0; i < positions.length; i++) {
            System.arraycopy(q, positions[i] * hidden, selected, i * hidden, hidden);
        }
        int[] selectedBias = Arrays.stream(positions).map(p -> seq - 1 - p).toArray();
        float[] ctxSelected = new float[positions.length * hidden];
        float[] ctxSelectedPlain = new float[positions.length * hidden];
        for (int h = 0; h < heads; h++) {
            int head = h;
            float[] b = h % 2 == 1 ? bias : null;
            int[] rows = h % 2 == 1 ? biasRows : null;
            int[] rowsSelected = h % 2 == 1 ? selectedBias : null;
            AttentionKernel.head(q, 0, seq, k, v, hidden, 0, seq, h * d, d, mask, 0, b, rows, null, window, scoresVector,
                    h * seq * seq, ctxVector, new float[Kernels.attentionScratch(seq, d)], 0);
            AttentionKernel.head(selected, 0, positions.length, k, v, hidden, 0, seq, h * d, d, mask, 0, b, rowsSelected, positions,
                    window, null, 0, ctxSelected, new float[Kernels.attentionScratch(seq, d)], 0);
            PlainKernels.runPlain(() -> {
                Kernels.attention(q, 0, seq, k, v, hidden, 0, seq, head * d, d, mask, 0, b, rows, null, window, scoresPlain,
                        head * seq * seq, ctxPlain, new float[Kernels.attentionScratch(seq, d)], 0);
                Kernels.attention(selected, 0, positions.length, k, v, hidden, 0, seq, head * d, d, mask, 0, b, rowsSelected, positions,
                        window, null, 0, ctxSelectedPlain, new float[Kernels.attentionScratch(seq, d)], 0);
                return null;
            });
        }
        String at = "seq " + seq + " hidden " + hidden + " window " + window;
        assertArrayEquals(scoresVector, scoresPlain, "probabilities, " + at);
        assertArrayEquals(ctxVector, ctxPlain, "context, " + at);
        assertArrayEquals(ctxSelected, ctxSelectedPlain, "selected queries' context, " + at);
        for (int i = 0; i < positions.length; i++) {
            assertArrayEquals(Arrays.copyOfRange(ctxVector, positions[i] * hidden, (positions[i] + 1) * hidden),
                    Arrays.copyOfRange(ctxSelected, i * hidden, (i + 1) * hidden), "query " + positions[i] + " alone, " + at);
        }
    }

    @Tag("heavy")
    @Test
    void aWholeBertBasePassGivesTheVectorBitsInEveryOutput() {
        BertModel model = RealModel.model();
        int[] ids = RealModel.tokenizer().encode("Paris is the [MASK] of France.", "It is [MASK] in spring.").ids();
        int[] types = RealModel.tokenizer().encode("Paris is the [MASK] of France.", "It is [MASK] in spring.").typeIds();
        Batch batch = Batch.of(ids, types);
        Encoder.Request request = Encoder.Request.lastHiddenState().withAllHiddenStates().withAttentions().withPooled()
                .withMlmLogitsAt(4, 11);
        Encoder.Output vector = model.forward(batch, request);
        Encoder.Output plain = PlainKernels.runPlain(() -> model.forward(batch, request));
        assertArrayEquals(vector.lastHiddenState(), plain.lastHiddenState());
        for (int l = 0; l < vector.hiddenStates().size(); l++) {
            assertArrayEquals(vector.hiddenStates().get(l), plain.hiddenStates().get(l), "hidden state " + l);
        }
        for (int l = 0; l < vector.attentions().size(); l++) {
            assertArrayEquals(vector.attentions().get(l), plain.attentions().get(l), "attentions of layer " + l);
        }
        assertArrayEquals(vector.pooled(), plain.pooled(), "pooler");
        assertArrayEquals(vector.mlmLogits(), plain.mlmLogits(), "MLM logits");
    }

    @Tag("heavy")
    @Test
    void onlyTheJvmsFirstPassRunsPlainAndItGivesTheBitsOfTheNext() throws Exception {
        ChildJvm run = ChildJvm.run(dir, List.of(), PlainFirstPassMain.class, RealModels.allMiniLm().toString(), "9");
        assertEquals(0, run.exit(), run.err());
        assertEquals(List.of("pass 1 plain, pass 2 vector, pass 3 vector", "pass 1 = pass 2 = pass 3"), run.out().lines().limit(2).toList());

        ChildJvm big = ChildJvm.run(dir, List.of(), PlainFirstPassMain.class, RealModels.allMiniLm().toString(), "65");
        assertEquals(0, big.exit(), big.err());
        assertEquals("pass 1 vector, pass 2 vector, pass 3 vector", big.out().lines().findFirst().orElseThrow(),
                "a first pass over 64 positions leaves the rest to the vector kernels");

        ChildJvm off = ChildJvm.run(dir, List.of("-D" + PlainKernels.SWITCH + "=off"), PlainFirstPassMain.class,
                RealModels.allMiniLm().toString(), "9");
        assertEquals("pass 1 vector, pass 2 vector, pass 3 vector", off.out().lines().findFirst().orElseThrow());

        // A JVM without C2, as the launcher starts a one-shot fill-mask: every pass plain, however big, with the bits
        // the vector kernels give.
        ChildJvm every = ChildJvm.run(dir, List.of("-XX:TieredStopAtLevel=1", "-D" + PlainKernels.SWITCH + "=every"),
                PlainFirstPassMain.class, RealModels.allMiniLm().toString(), "65");
        assertEquals(0, every.exit(), every.err());
        assertEquals(List.of("pass 1 plain, pass 2 plain, pass 3 plain", "pass 1 = pass 2 = pass 3", big.out().lines().toList().get(2)),
                every.out().lines().toList());
    }

    /**
     * A JVM without {@code --add-modules jdk.incubator.vector}, as bin/vectorbert starts a one-shot command: with every
     * pass plain and the vector width given, every family and head gives the bits this JVM's kernels give, in float32 and
     * bf16; without those, one line naming the flag, never a NoClassDefFoundError.
     */
    @Tag("heavy")
    @Test
    void aJvmWithoutTheVectorModuleRunsEveryFamilyPlainWithTheVectorBits() throws Exception {
        List<String> fixtures = List.of("bert-seqcls-multilabel", "bert-tokcls", "bert-qa", "distilbert-mlm",
                "distilbert-sinusoidal-seqcls", "roberta-mlm", "roberta-qa", "xlm-roberta-seqcls-regression", "camembert-mlm",
                "electra-generator-mlm", "electra-discriminator", "electra-tokcls").stream()
                .map(name -> FamilyReferenceTest.resource(name).toString()).toList();
        List<String> args = new ArrayList<>(fixtures);
        args.add(fixtures.get(3) + "@bf16");
        List<String> expected = new ArrayList<>();
        for (String arg : args) {
            expected.add(OutputBitsMain.outputBits(arg));
        }
        List<String> plain = List.of("-XX:TieredStopAtLevel=1", "-D" + PlainKernels.SWITCH + "=every",
                "-Dvectorbert.vector.bits=" + Lanes.BITS);
        ChildJvm every = ChildJvm.runWithoutVectorModule(dir, plain, OutputBitsMain.class, args.toArray(String[]::new));
        assertEquals(0, every.exit(), every.err());
        assertEquals(expected, every.out().lines().toList());

        String refusal = "this JVM was started without the Vector API: add --add-modules jdk.incubator.vector";
        for (List<String> flags : List.of(List.<String>of(), plain.subList(0, 2))) {
            ChildJvm refused = ChildJvm.runWithoutVectorModule(dir, flags, OutputBitsMain.class, fixtures.get(0));
            assertNotEquals(0, refused.exit());
            assertTrue(refused.err().contains(refusal) && !refused.err().contains("NoClassDefFoundError"),
                    flags + ": " + refused.err());
        }
    }
}
