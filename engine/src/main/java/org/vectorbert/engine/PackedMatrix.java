package org.vectorbert.engine;

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
        int count = (out + PANEL - 1) / PANEL;
        float[] panels = new float[count * PANEL * in];
        for (int o = 0; o < out; o++) {
            int base = (o / PANEL) * PANEL * in + (o % PANEL);
            int row = o * in;
            for (int k = 0; k < in; k++) {
                panels[base + k * PANEL] = w[row + k];
            }
        }
        return new PackedMatrix(out, in, panels);
    }

    /** Packs a weight tensor read from a checkpoint (any float dtype). */
    static PackedMatrix pack(Tensor t) {
        return pack(t.toFloatArray(), (int) t.shape()[0], (int) t.shape()[1]);
    }
}
