package org.vectorbert.engine;

import static org.vectorbert.engine.Lanes.L;

/**
 * Where the blocks call the row and attention kernels: the vector kernels ({@link RowKernels},
 * {@link AttentionKernel}), or their plain twins while {@link PlainKernels} is active. The matrix product
 * chooses in {@link MatMul} the same way.
 *
 * <p>This class names no Vector API type, nor do the blocks, {@link MatMul} and {@link PlainKernels}: a JVM
 * whose every pass runs plain (a one-shot command, {@code -Dvectorbert.plainFirstPass=every}) then never
 * loads the vector kernels, and runs without {@code --add-modules jdk.incubator.vector}. Their classes cannot
 * even be verified without that module, so the choice cannot be made inside them. Without the module
 * the JVM's start-up cache keeps its linked classes and module graph, which makes a one-shot command start
 * faster (see bin/vectorbert).
 */
final class Kernels {
    private Kernels() {}

    /** LayerNorm of {@code rows} rows of width {@code dim}: {@link RowKernels#layerNorm}. */
    static void layerNorm(float[] x, int rows, int dim, float[] gamma, float[] beta, float eps, float[] out) {
        if (PlainKernels.active()) {
            PlainRows.layerNorm(x, rows, dim, gamma, beta, eps, out);
        } else {
            RowKernels.layerNorm(x, rows, dim, gamma, beta, eps, out);
        }
    }

    /** RMSNorm of {@code rows} rows of width {@code dim}: {@link RowKernels#rmsNorm}. */
    static void rmsNorm(float[] x, int rows, int dim, float[] weight, float eps, float[] out) {
        if (PlainKernels.active()) {
            PlainRows.rmsNorm(x, rows, dim, weight, eps, out);
        } else {
            RowKernels.rmsNorm(x, rows, dim, weight, eps, out);
        }
    }

    /** a[off + i] += b[i] for i in [0, n). */
    static void addInPlace(float[] a, int off, float[] b, int n) {
        if (PlainKernels.active()) {
            PlainRows.addInPlace(a, off, b, n);
        } else {
            RowKernels.addInPlace(a, off, b, n);
        }
    }

    /** a[i] *= b[bOff + i] for i in [0, n): {@link RowKernels#multiplyInPlace}. */
    static void multiplyInPlace(float[] a, float[] b, int bOff, int n) {
        if (PlainKernels.active()) {
            PlainRows.multiplyInPlace(a, b, bOff, n);
        } else {
            RowKernels.multiplyInPlace(a, b, bOff, n);
        }
    }

    /** Rotary positions on rows [row0, row0 + count) of x, row row0 + p at position p: {@link RowKernels#rotary}. */
    static void rotary(float[] x, int row0, int count, int hidden, int headSize, float[] cos, float[] sin) {
        if (PlainKernels.active()) {
            PlainRows.rotary(x, row0, count, hidden, headSize, cos, sin);
        } else {
            RowKernels.rotary(x, row0, count, hidden, headSize, cos, sin);
        }
    }

    /** The activation named by hidden_act, in place over [0, n). */
    static void activate(Activation act, float[] a, int n) {
        if (PlainKernels.active()) {
            PlainRows.activate(act, a, n);
        } else {
            RowKernels.activate(act, a, n);
        }
    }

    /** tanh in place over [from, to). */
    static void tanh(float[] a, int from, int to) {
        if (PlainKernels.active()) {
            PlainRows.tanh(a, from, to);
        } else {
            RowKernels.tanh(a, from, to);
        }
    }

    /**
     * Attention of one sequence and one head: {@link AttentionKernel#head}, whose arguments these are ({@code scores} null
     * when the probabilities are not wanted).
     */
    static void attention(float[] q, int qRow0, int queries, float[] k, float[] v, int hidden, int row0, int seq, int col,
                          int headSize, float[] mask, int maskOff, float[] bias, int[] biasRows, int[] positions, int window,
                          float[] scores, int scoresOff, float[] ctx, float[] work, int workOff) {
        if (PlainKernels.active()) {
            PlainAttention.head(q, qRow0, queries, k, v, hidden, row0, seq, col, headSize, mask, maskOff, bias, biasRows,
                    positions, window, scores, scoresOff, ctx, work, workOff, new float[L]);
        } else {
            AttentionKernel.head(q, qRow0, queries, k, v, hidden, row0, seq, col, headSize, mask, maskOff, bias, biasRows,
                    positions, window, scores, scoresOff, ctx, work, workOff);
        }
    }

    /**
     * Floats of scratch {@link #attention} needs for a sequence of {@code seq} tokens (and at most as many queries):
     * transposed keys, the mask, the scores and the values, in rows of {@link #keyStride}; then a chunk's 1/Σ.
     */
    static int attentionScratch(int seq, int headSize) {
        return (2 * headSize + 1 + Math.min(seq, AttentionKernel.QUERY_CHUNK)) * keyStride(seq) + AttentionKernel.QUERY_CHUNK;
    }

    /** A thread's scratch for attention: the transposed keys, mask and scores of the head it computes. Grows, never shrinks. */
    private static final ThreadLocal<float[]> SCRATCH = ThreadLocal.withInitial(() -> new float[0]);

    /** The calling thread's attention scratch, at least {@code floats} long. */
    static float[] attentionScratch(int floats) {
        float[] s = SCRATCH.get();
        if (s.length < floats) {
            s = new float[floats];
            SCRATCH.set(s);
        }
        return s;
    }

    /**
     * Floats per row of {@link AttentionKernel}'s transposed keys, mask and scores: the sequence rounded up to whole pairs
     * of vectors, which the score kernel takes at a time.
     */
    static int keyStride(int seq) {
        return (seq + 2 * L - 1) / (2 * L) * (2 * L);
    }
}
