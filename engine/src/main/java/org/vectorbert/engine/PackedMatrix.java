package org.vectorbert.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Tensor;

/**
 * A dense layer's weight W ([out, in] as Hugging Face stores it) and bias, re-laid for
 * {@code x · Wᵀ + b}: cut into panels of {@link #PANEL} output columns, each panel stored
 * transposed ([in][PANEL], the last panel padded with zeros). The kernel then streams one panel
 * contiguously and updates PANEL outputs per input element with broadcast FMAs: no horizontal
 * sums, and four times the arithmetic per load of the dot-product form. The bias is padded the
 * same way, so the kernel starts its accumulators from it.
 *
 * <p>In {@link Precision#BF16} the panel holds bfloat16 values two to an int: for input k, int j
 * of group g carries column g·2L + j in its low 16 bits and column g·2L + L + j in its high 16,
 * so one int vector widens to two float vectors with a shift and a mask.
 */
final class PackedMatrix {
    /**
     * Vectors of output columns per panel: four with 512-bit vectors, whose 32 registers hold a 4-row
     * tile's 16 accumulators, its 4 weight vectors and a broadcast; two with narrower vectors, whose
     * 16 registers would otherwise spill (AVX2 with four: 45% of its FMA peak; with two: see the README).
     */
    static final int VECTORS = VectorMath.L >= 16 ? 4 : 2;
    /** Output columns per panel (64 with 512-bit vectors, 16 with 256-bit ones). */
    static final int PANEL = VECTORS * VectorMath.L;
    private static final ValueLayout.OfShort BF16_BITS = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    final int out;
    final int in;
    /** float32 panels, or null in bf16. */
    final float[] panels;
    /** bfloat16 panels, two values per int, or null in float32. */
    final int[] pairs;
    /** The bias, zero-padded to whole panels (zeros when the layer has none). */
    final float[] bias;

    private PackedMatrix(int out, int in, float[] panels, int[] pairs, float[] bias) {
        this.out = out;
        this.in = in;
        this.panels = panels;
        this.pairs = pairs;
        this.bias = bias;
    }

    int panelCount() {
        return (out + PANEL - 1) / PANEL;
    }

    /** Whether panel p has PANEL real columns (only the last one can be short). */
    boolean fullPanel(int p) {
        return (p + 1) * PANEL <= out;
    }

    /** Bytes the matrix holds. */
    long bytes() {
        return (panels != null ? 4L * panels.length : 4L * pairs.length) + 4L * bias.length;
    }

    /** {@code out = x · Wᵀ + b} for {@code rows} rows of x ([rows, in]) into out ([rows, out]). */
    void apply(float[] x, int rows, float[] result) {
        MatMul.linear(x, rows, this, result);
    }

    /** The same weights with another bias (null for none): the tied MLM decoder shares the word embeddings' panels. */
    PackedMatrix withBias(float[] otherBias) {
        return new PackedMatrix(out, in, panels, pairs, paddedBias(otherBias, out));
    }

    /** Row {@code o} of W ([in] floats) into {@code dst} from {@code off}: an embedding lookup in a float32 matrix. */
    void copyRow(int o, float[] dst, int off) {
        int base = (o / PANEL) * PANEL * in + (o % PANEL);
        for (int k = 0; k < in; k++) {
            dst[off + k] = panels[base + k * PANEL];
        }
    }

    /** Packs a row-major [out, in] float32 matrix and its bias (null for none). */
    static PackedMatrix pack(float[] w, int out, int in, float[] bias) {
        float[] panels = new float[panelCount(out) * PANEL * in];
        for (int o = 0; o < out; o++) {
            packRow(w, o * in, panels, o, in);
        }
        return new PackedMatrix(out, in, panels, null, paddedBias(bias, out));
    }

    /**
     * Packs a weight tensor read from a checkpoint, with its bias (null for none), at the given
     * precision. Rows are read straight from the mapped file one at a time, so loading allocates
     * the packed matrix and nothing as large beside it. Panels are packed in parallel when the
     * kernel threads are free (the word embeddings, 94 MB in bert-base, took 60 ms more alone).
     */
    static PackedMatrix pack(Tensor t, Tensor bias, Precision precision) {
        int out = (int) t.shape()[0];
        int in = (int) t.shape()[1];
        float[] b = paddedBias(bias == null ? null : bias.toFloatArray(), out);
        if (precision == Precision.BF16) {
            return new PackedMatrix(out, in, null, packBf16(t, out, in), b);
        }
        float[] panels = new float[panelCount(out) * PANEL * in];
        Parallel.forRange(panelCount(out), 1, (from, to) -> {
            float[] row = new float[in];
            for (int o = from * PANEL; o < Math.min(out, to * PANEL); o++) {
                if (t.dtype() == DType.F32) {
                    MemorySegment.copy(t.data(), Tensor.F32, (long) o * in * Float.BYTES, row, 0, in);
                } else {
                    for (int k = 0; k < in; k++) {
                        row[k] = t.getFloat((long) o * in + k);
                    }
                }
                packRow(row, 0, panels, o, in);
            }
        });
        return new PackedMatrix(out, in, panels, null, b);
    }

    private static int panelCount(int out) {
        return (out + PANEL - 1) / PANEL;
    }

    private static float[] paddedBias(float[] bias, int out) {
        float[] padded = new float[panelCount(out) * PANEL];
        if (bias != null) {
            System.arraycopy(bias, 0, padded, 0, out);
        }
        return padded;
    }

    /** Puts row {@code o} of W (read from {@code src} at {@code off}) into its panel's column. */
    private static void packRow(float[] src, int off, float[] panels, int o, int in) {
        int base = (o / PANEL) * PANEL * in + (o % PANEL);
        for (int k = 0; k < in; k++) {
            panels[base + k * PANEL] = src[off + k];
        }
    }

    private static int[] packBf16(Tensor t, int out, int in) {
        int[] pairs = new int[panelCount(out) * (PANEL / 2) * in];
        Parallel.forRange(panelCount(out), 1, (from, to) -> packBf16Rows(t, in, pairs, from * PANEL, Math.min(out, to * PANEL)));
        return pairs;
    }

    /** Rows [from, to) of t into their bf16 panels (each panel's ints are written by one thread only). */
    private static void packBf16Rows(Tensor t, int in, int[] pairs, int from, int to) {
        int L = VectorMath.L;
        int intsPerInput = PANEL / 2;
        for (int o = from; o < to; o++) {
            int c = o % PANEL;
            int group = c / (2 * L);
            int base = (o / PANEL) * intsPerInput * in + group * L + c % L;
            int shift = c % (2 * L) < L ? 0 : 16;
            for (int k = 0; k < in; k++) {
                long i = (long) o * in + k;
                int bits = t.dtype() == DType.BF16 ? t.data().getAtIndex(BF16_BITS, i) & 0xFFFF : bf16(t.getFloat(i));
                pairs[base + k * intsPerInput] |= bits << shift;
            }
        }
    }

    /** float32 to bfloat16 bits, rounding to nearest even (as torch's .to(torch.bfloat16) does). */
    static int bf16(float f) {
        if (Float.isNaN(f)) {
            return 0x7FC0;
        }
        int bits = Float.floatToRawIntBits(f);
        return ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16) & 0xFFFF;
    }
}
