package org.vectorbert.engine;

import java.lang.foreign.MemorySegment;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Tensor;

/**
 * A dense layer's weight W ([out, in] as Hugging Face stores it) and bias, re-laid for
 * {@code x · Wᵀ + b}: cut into panels of {@link #PANEL} output columns, each panel stored
 * transposed ([in][PANEL], the last panel padded with zeros). The kernel then streams one panel
 * contiguously and updates PANEL outputs per input element with broadcast FMAs: no horizontal
 * sums, and four times the arithmetic per load of the dot-product form. The bias is padded the
 * same way, so the kernel starts its accumulators from it.
 */
final class PackedMatrix {
    /** Four vectors of output columns (64 with 512-bit vectors). */
    static final int PANEL = 4 * Kernels.L;

    final int out;
    final int in;
    final float[] panels;
    /** The bias, zero-padded to whole panels (zeros when the layer has none). */
    final float[] bias;

    private PackedMatrix(int out, int in, float[] panels, float[] bias) {
        this.out = out;
        this.in = in;
        this.panels = panels;
        this.bias = bias;
    }

    int panelCount() {
        return (out + PANEL - 1) / PANEL;
    }

    /** Whether panel p has PANEL real columns (only the last one can be short). */
    boolean fullPanel(int p) {
        return (p + 1) * PANEL <= out;
    }

    /** Packs a row-major [out, in] matrix and its bias (null for none). */
    static PackedMatrix pack(float[] w, int out, int in, float[] bias) {
        float[] panels = new float[(out + PANEL - 1) / PANEL * PANEL * in];
        for (int o = 0; o < out; o++) {
            packRow(w, o * in, panels, o, in);
        }
        return new PackedMatrix(out, in, panels, paddedBias(bias, out));
    }

    /**
     * Packs a weight tensor read from a checkpoint, with its bias (null for none). Float32 rows
     * are read straight from the mapped file one at a time, so loading allocates the packed
     * matrix and nothing as large beside it.
     */
    static PackedMatrix pack(Tensor t, Tensor bias) {
        int out = (int) t.shape()[0];
        int in = (int) t.shape()[1];
        float[] b = bias == null ? null : bias.toFloatArray();
        if (t.dtype() != DType.F32) {
            return pack(t.toFloatArray(), out, in, b);
        }
        float[] panels = new float[(out + PANEL - 1) / PANEL * PANEL * in];
        float[] row = new float[in];
        for (int o = 0; o < out; o++) {
            MemorySegment.copy(t.data(), Tensor.F32, (long) o * in * Float.BYTES, row, 0, in);
            packRow(row, 0, panels, o, in);
        }
        return new PackedMatrix(out, in, panels, paddedBias(b, out));
    }

    private static float[] paddedBias(float[] bias, int out) {
        float[] padded = new float[(out + PANEL - 1) / PANEL * PANEL];
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
}
