package org.vectorbert.engine;

import java.lang.foreign.MemorySegment;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Tensor;

/**
 * A weight matrix W ([out, in] as Hugging Face stores it) re-laid for {@code x · Wᵀ}: cut into
 * panels of {@link #PANEL} output columns, each panel stored transposed ([in][PANEL], the last
 * panel padded with zeros). The kernel then streams one panel contiguously and updates
 * PANEL outputs per input element with broadcast FMAs: no horizontal sums, and four times the
 * arithmetic per load of the dot-product form.
 */
final class PackedMatrix {
    /** Four vectors of output columns (64 with 512-bit vectors). */
    static final int PANEL = 4 * Kernels.L;

    final int out;
    final int in;
    final float[] panels;

    private PackedMatrix(int out, int in, float[] panels) {
        this.out = out;
        this.in = in;
        this.panels = panels;
    }

    int panelCount() {
        return (out + PANEL - 1) / PANEL;
    }

    /** Packs a row-major [out, in] matrix. */
    static PackedMatrix pack(float[] w, int out, int in) {
        float[] panels = new float[(out + PANEL - 1) / PANEL * PANEL * in];
        for (int o = 0; o < out; o++) {
            packRow(w, o * in, panels, o, in);
        }
        return new PackedMatrix(out, in, panels);
    }

    /**
     * Packs a weight tensor read from a checkpoint. Float32 rows are read straight from the mapped
     * file one at a time, so loading allocates the packed matrix and nothing as large beside it.
     */
    static PackedMatrix pack(Tensor t) {
        int out = (int) t.shape()[0];
        int in = (int) t.shape()[1];
        if (t.dtype() != DType.F32) {
            return pack(t.toFloatArray(), out, in);
        }
        float[] panels = new float[(out + PANEL - 1) / PANEL * PANEL * in];
        float[] row = new float[in];
        for (int o = 0; o < out; o++) {
            MemorySegment.copy(t.data(), Tensor.F32, (long) o * in * Float.BYTES, row, 0, in);
            packRow(row, 0, panels, o, in);
        }
        return new PackedMatrix(out, in, panels);
    }

    /** Puts row {@code o} of W (read from {@code src} at {@code off}) into its panel's column. */
    private static void packRow(float[] src, int off, float[] panels, int o, int in) {
        int base = (o / PANEL) * PANEL * in + (o % PANEL);
        for (int k = 0; k < in; k++) {
            panels[base + k * PANEL] = src[off + k];
        }
    }
}
