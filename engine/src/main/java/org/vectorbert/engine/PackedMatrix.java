package org.vectorbert.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
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
 *
 * <p>The panels live in a {@link MemorySegment}, always native and 64-byte aligned, little-endian:
 * packed in memory off the heap (an {@link Arena}), or a slice of the read-only mapping of
 * a packed file ({@link PackedWeights}). The kernels are fastest when one JVM's forward passes see one
 * kind of segment: C2 compiles the Vector API's loads for the segment classes it has seen, and two of
 * them made a pass half again as slow. So a model
 * is either all mapped (its packed file) or all in memory (a cache that cannot be written); only
 * {@link DenseLayer} and tests pack in memory beside mapped models.
 */
final class PackedMatrix {
    /**
     * Vectors of output columns per panel: four with 512-bit vectors, whose 32 registers hold a 4-row
     * tile's 16 accumulators, its 4 weight vectors and a broadcast; two with narrower vectors, whose
     * 16 registers would otherwise spill (AVX2 with four reached less than half its FMA peak).
     */
    static final int VECTORS = Lanes.L >= 16 ? 4 : 2;
    /** Output columns per panel (64 with 512-bit vectors, 16 with 256-bit ones). */
    static final int PANEL = VECTORS * Lanes.L;
    /**
     * Alignment of every panel segment: a cache line, the widest vector. A float[]'s data starts 16
     * bytes into a line, so every 512-bit weight load from an array panel would split two lines (about
     * a fifth slower on AVX-512).
     */
    static final long ALIGNMENT = 64;
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort BF16_BITS = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /*
     * A heap segment's class, loaded before C2 compiles any code that reads the panels. While only native
     * segments exist, C2 compiles the tiles assuming AbstractMemorySegmentImpl has one concrete subclass, and
     * the first heap segment (the Vector API's interpreted reinterpretAsInts, in VectorMath.exp, makes one)
     * would throw every tile away to be compiled again.
     */
    static {
        MemorySegment.ofArray(new byte[0]);
    }

    final int out;
    final int in;
    /** The panels: float32 values, or bfloat16 values two to an int when {@link #bf16}; native, 64-byte aligned. */
    final MemorySegment weights;
    /** Whether {@link #weights} holds bfloat16 pairs. */
    final boolean bf16;
    /** The bias, zero-padded to whole panels (zeros when the layer has none). */
    final float[] bias;

    PackedMatrix(int out, int in, MemorySegment weights, boolean bf16, float[] bias) {
        if (weights.byteSize() != weightBytes(out, in, bf16) || weights.address() % ALIGNMENT != 0 || bias.length != panelCount(out) * PANEL) {
            throw new IllegalArgumentException("panels of " + weights.byteSize() + " bytes at " + weights.address() + " for " + out + " x " + in);
        }
        this.out = out;
        this.in = in;
        this.weights = weights;
        this.bf16 = bf16;
        this.bias = bias;
    }

    int panelCount() {
        return panelCount(out);
    }

    /** Whether panel p has PANEL real columns (only the last one can be short). */
    boolean fullPanel(int p) {
        return (p + 1) * PANEL <= out;
    }

    /** Bytes the matrix holds. */
    long bytes() {
        return weights.byteSize() + 4L * bias.length;
    }

    /** Bytes of the panels of an [out, in] matrix. */
    static long weightBytes(int out, int in, boolean bf16) {
        return (long) panelCount(out) * PANEL * in * (bf16 ? 2 : 4);
    }

    /** {@code out = x · Wᵀ + b} for {@code rows} rows of x ([rows, in]) into out ([rows, out]). */
    void apply(float[] x, int rows, float[] result) {
        MatMul.linear(x, rows, this, result);
    }

    /** The same weights with another bias (null for none): the tied MLM decoder shares the word embeddings' panels. */
    PackedMatrix withBias(float[] otherBias) {
        return new PackedMatrix(out, in, weights, bf16, paddedBias(otherBias, out));
    }

    /** Row {@code o} of W ([in] floats) into {@code dst} from {@code off}: an embedding lookup in a float32 matrix. */
    void copyRow(int o, float[] dst, int off) {
        long base = (long) (o / PANEL) * PANEL * in + (o % PANEL);
        for (int k = 0; k < in; k++) {
            dst[off + k] = weights.getAtIndex(F32, base + (long) k * PANEL);
        }
    }

    /** Packs a row-major [out, in] float32 matrix and its bias (null for none). */
    static PackedMatrix pack(float[] w, int out, int in, float[] bias) {
        MemorySegment panels = allocate(weightBytes(out, in, false), Arena.ofAuto());
        float[] panel = new float[PANEL * in];
        for (int p = 0; p < panelCount(out); p++) {
            Arrays.fill(panel, 0);
            for (int o = p * PANEL; o < Math.min(out, (p + 1) * PANEL); o++) {
                packRow(w, o * in, panel, o % PANEL, in);
            }
            MemorySegment.copy(panel, 0, panels, F32, (long) p * panel.length * Float.BYTES, panel.length);
        }
        return new PackedMatrix(out, in, panels, false, paddedBias(bias, out));
    }

    /**
     * Packs a weight tensor read from a checkpoint, with its bias (null for none), at the given
     * precision, off the heap. Rows are read straight from the mapped file one at a time, so loading
     * allocates the packed matrix and nothing as large beside it. Panels are packed in parallel when
     * the kernel threads are free: the word embeddings are most of a small model's load.
     */
    static PackedMatrix pack(Tensor t, Tensor bias, Precision precision) {
        return pack(t, bias, precision, Arena.ofAuto());
    }

    /** {@link #pack(Tensor, Tensor, Precision)} into memory of {@code arena}. */
    static PackedMatrix pack(Tensor t, Tensor bias, Precision precision, Arena arena) {
        int out = (int) t.shape()[0];
        int in = (int) t.shape()[1];
        boolean bf16 = precision == Precision.BF16;
        MemorySegment panels = allocate(weightBytes(out, in, bf16), arena);
        packInto(t, bf16, panels);
        return new PackedMatrix(out, in, panels, bf16, paddedBias(bias == null ? null : bias.toFloatArray(), out));
    }

    /** Packs t's panels into {@code panels} ({@link #weightBytes} long), whole panels at a time, each written once. */
    private static void packInto(Tensor t, boolean bf16, MemorySegment panels) {
        int out = (int) t.shape()[0];
        int in = (int) t.shape()[1];
        Parallel.forRange(panelCount(out), 1, (from, to) -> {
            float[] row = new float[in];
            float[] panel = bf16 ? null : new float[PANEL * in];
            int[] pairs = bf16 ? new int[PANEL / 2 * in] : null;
            for (int p = from; p < to; p++) {
                if (bf16) {
                    Arrays.fill(pairs, 0);
                    packBf16Panel(t, in, pairs, p * PANEL, Math.min(out, (p + 1) * PANEL));
                    MemorySegment.copy(pairs, 0, panels, ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN),
                            (long) p * pairs.length * Integer.BYTES, pairs.length);
                    continue;
                }
                Arrays.fill(panel, 0);
                for (int o = p * PANEL; o < Math.min(out, (p + 1) * PANEL); o++) {
                    if (t.dtype() == DType.F32) {
                        MemorySegment.copy(t.data(), Tensor.F32, (long) o * in * Float.BYTES, row, 0, in);
                    } else {
                        for (int k = 0; k < in; k++) {
                            row[k] = t.getFloat((long) o * in + k);
                        }
                    }
                    packRow(row, 0, panel, o % PANEL, in);
                }
                MemorySegment.copy(panel, 0, panels, F32, (long) p * panel.length * Float.BYTES, panel.length);
            }
        });
    }

    /** Native memory for panels, 64-byte aligned. */
    private static MemorySegment allocate(long bytes, Arena arena) {
        return arena.allocate(Math.max(bytes, 1), ALIGNMENT).asSlice(0, bytes);
    }

    static int panelCount(int out) {
        return (out + PANEL - 1) / PANEL;
    }

    static float[] paddedBias(float[] bias, int out) {
        float[] padded = new float[panelCount(out) * PANEL];
        if (bias != null) {
            System.arraycopy(bias, 0, padded, 0, out);
        }
        return padded;
    }

    /** Puts a row of W (read from {@code src} at {@code off}) into column {@code c} of a panel ([in][PANEL]). */
    private static void packRow(float[] src, int off, float[] panel, int c, int in) {
        for (int k = 0; k < in; k++) {
            panel[c + k * PANEL] = src[off + k];
        }
    }

    /** Rows [from, to) of t, one panel's, into its bf16 pairs ([in][PANEL / 2] ints). */
    private static void packBf16Panel(Tensor t, int in, int[] pairs, int from, int to) {
        int L = Lanes.L;
        int intsPerInput = PANEL / 2;
        for (int o = from; o < to; o++) {
            int c = o % PANEL;
            int base = c / (2 * L) * L + c % L;
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
