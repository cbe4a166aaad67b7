package org.vectorbert.engine;

/**
 * A dense layer {@code y = x·Wᵀ + b} on the encoder's own matrix kernel: W ([out, in], as Hugging
 * Face stores it) is packed once, then {@link #apply} runs on the shared pool. For heads built
 * on top of the encoder's outputs, and for measuring the kernel on its own.
 */
public final class DenseLayer {
    private final PackedMatrix weight;

    private DenseLayer(PackedMatrix weight) {
        this.weight = weight;
    }

    /**
     * Packs a row-major [out, in] weight; {@code bias} has {@code out} values, or is null for none.
     *
     * @param weight [out, in], row-major
     * @param out    output width
     * @param in     input width
     * @param bias   {@code out} values, or null for none
     * @return the packed layer
     */
    public static DenseLayer of(float[] weight, int out, int in, float[] bias) {
        if (out <= 0 || in <= 0 || weight.length != (long) out * in) {
            throw new IllegalArgumentException("weight has " + weight.length + " values, not " + out + " x " + in);
        }
        if (bias != null && bias.length != out) {
            throw new IllegalArgumentException("bias has " + bias.length + " values, not " + out);
        }
        return new DenseLayer(PackedMatrix.pack(weight, out, in, bias));
    }

    /** {@return the input width} */
    public int in() {
        return weight.in;
    }

    /** {@return the output width} */
    public int out() {
        return weight.out;
    }

    /**
     * {@code y[r] = x[r]·Wᵀ + b} for {@code rows} rows: x is [rows, in], y is [rows, out].
     *
     * @param x    [rows, in] inputs
     * @param rows how many rows
     * @param y    [rows, out] outputs
     */
    public void apply(float[] x, int rows, float[] y) {
        if (rows < 0 || x.length < (long) rows * weight.in || y.length < (long) rows * weight.out) {
            throw new IllegalArgumentException("x needs " + rows + " x " + weight.in + " values and y " + rows + " x "
                    + weight.out);
        }
        weight.apply(x, rows, y);
    }
}
