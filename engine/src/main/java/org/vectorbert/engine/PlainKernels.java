package org.vectorbert.engine;

import static org.vectorbert.engine.PackedMatrix.PANEL;
import static org.vectorbert.engine.Lanes.L;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The vector kernels' arithmetic in plain loops, for the JVM's first forward pass: the same IEEE
 * operations in the same order (FMA chains from the bias, lane sums through L lanes and the same
 * folding tree, the same polynomials), so a pass gives the same bits whichever runs it; the tests hold
 * every one to its vector kernel bit for bit.
 *
 * <p>Why: the Vector API is fast only once C2 has compiled a kernel; before that every vector operation
 * runs the API's Java fallback and allocates. A one-shot command's only pass spent most of its time
 * waiting for C2: bert-base fill-mask of a 9-token text, 1.1 s of forward pass out of 1.6 s (2-core
 * AVX-512, tiered, kernels kept out of C1). Plain loops are small methods that C1 compiles within a
 * few calls and C2 soon after, so the first pass runs at compiled speed from its first layers.
 * Later passes go back to the vector kernels, which the first pass did not run and so did not warm:
 * a long-running program starts warming them one pass later.
 */
final class PlainKernels {
    /**
     * The largest first pass that runs plain, in positions (rows). Plain code is several times slower than
     * the vector kernels once C2 has compiled those, so a big first batch is better off waiting for them.
     */
    static final int MAX_POSITIONS = 64;
    /**
     * {@code -Dvectorbert.plainFirstPass=off} runs every pass on the vector kernels; {@code =every} runs every pass plain,
     * whatever its size, for a JVM without C2 ({@code -XX:TieredStopAtLevel=1}), where the vector kernels would only ever
     * run the Vector API's fallback: the launcher starts a one-shot {@code fill-mask} or {@code embed} that way (see
     * bin/vectorbert).
     */
    static final String SWITCH = "vectorbert.plainFirstPass";
    /** Every pass plain ({@code =every}): the vector kernels never run, nor need their compiler directive. */
    static final boolean EVERY_PASS = "every".equals(System.getProperty(SWITCH));

    private static final AtomicBoolean FIRST_PASS_TAKEN = new AtomicBoolean("off".equals(System.getProperty(SWITCH)));
    /** Set while the first pass runs; read by the kernels' entry points (a racing pass also runs plain: same bits). */
    private static volatile boolean active;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Per thread, a panel's weights copied out of the segment: plain loops read arrays far faster than segments before C2. */
    private static final ThreadLocal<float[]> PANEL_COPY = ThreadLocal.withInitial(() -> new float[0]);
    private static final ThreadLocal<int[]> PAIRS_COPY = ThreadLocal.withInitial(() -> new int[0]);

    private PlainKernels() {}

    /**
     * Refuses a JVM that could not run the model: one without the {@code jdk.incubator.vector} module, unless every pass
     * runs plain ({@link #EVERY_PASS}) and {@code -Dvectorbert.vector.bits} gives the width the vector kernels would have
     * had, on which the packed weights' layout and the plain lane sums depend (bin/vectorbert runs a one-shot command so).
     */
    static void checkVectorModule() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
            return;
        }
        String bits = System.getProperty("vectorbert.vector.bits");
        if (!EVERY_PASS || bits == null || bits.isBlank()) {
            throw new EngineException("this JVM was started without the Vector API: add --add-modules jdk.incubator.vector"
                    + " to its command line (or to JDK_JAVA_OPTIONS, or spark.executor.extraJavaOptions for Spark)");
        }
    }

    /** Whether the JVM's first pass is still to come (and so may run plain), or every pass runs plain. */
    static boolean firstPassAhead() {
        return EVERY_PASS || !FIRST_PASS_TAKEN.get();
    }

    /** Whether the kernels run plain now. */
    static boolean active() {
        return EVERY_PASS || active;
    }

    /**
     * Whether a pass over {@code positions} rows is the JVM's first and small enough to run plain; if so, it does
     * until {@link #end}. A first pass too big to run plain leaves every later pass to the vector kernels. With
     * {@link #EVERY_PASS}, every pass runs plain.
     */
    static boolean begin(int positions) {
        if (EVERY_PASS) {
            return true;
        }
        if (FIRST_PASS_TAKEN.get() || !FIRST_PASS_TAKEN.compareAndSet(false, true) || positions > MAX_POSITIONS) {
            return false;
        }
        active = true;
        return true;
    }

    /** Runs {@code pass} with the kernels plain, whichever pass it is: for tests that hold both kinds to the same bits. */
    static <T> T runPlain(Supplier<T> pass) {
        active = true;
        try {
            return pass.get();
        } finally {
            active = false;
        }
    }

    /** Ends the plain first pass. */
    static void end() {
        active = false;
    }

    // ---- the matrix product ({@link PanelTiles}) ----

    /** {@link MatMul}'s panel: {@code count} rows of x (from row r0) through panel p of w, plus its bias, into out. */
    static void panel(float[] x, int r0, int count, PackedMatrix w, int p, float[] out, int outOff, int stride) {
        int in = w.in;
        float[] panel = PANEL_COPY.get();
        if (panel.length < PANEL * in) {
            panel = new float[PANEL * in];
            PANEL_COPY.set(panel);
        }
        if (w.bf16) {
            widenBf16(w, p, panel);
        } else {
            MemorySegment.copy(w.weights, PackedMatrix.F32, (long) p * PANEL * in * Float.BYTES, panel, 0, PANEL * in);
        }
        int end = r0 + count;
        int r = r0;
        for (; r + 3 <= end; r += 3) {
            for (int c = 0; c < PANEL; c += 4) {
                rows3x4(x, r * in, in, panel, c, w.bias, p * PANEL + c, out, outOff + r * stride + c, stride);
            }
        }
        for (; r < end; r++) {
            if (PANEL % 16 == 0) {
                for (int c = 0; c < PANEL; c += 16) {
                    row16(x, r * in, in, panel, c, w.bias, p * PANEL + c, out, outOff + r * stride + c);
                }
            } else {
                for (int c = 0; c < PANEL; c += 8) {
                    row8(x, r * in, in, panel, c, w.bias, p * PANEL + c, out, outOff + r * stride + c);
                }
            }
        }
    }

    private static void store8(float[] out, int o, float a0, float a1, float a2, float a3, float a4, float a5, float a6, float a7) {
        out[o] = a0;
        out[o + 1] = a1;
        out[o + 2] = a2;
        out[o + 3] = a3;
        out[o + 4] = a4;
        out[o + 5] = a5;
        out[o + 6] = a6;
        out[o + 7] = a7;
    }

    /**
     * Sixteen columns of one row: sixteen FMA chains over k, each started from its bias, as a tile's lanes run.
     * Locals, not an array, so the chains stay in registers and overlap. Measured in the one-shot fill-mask's first
     * pass (bert-base, 9 tokens, 2-core AVX-512; the matrix products of the 12 layers, 5 runs each): 173-231 ms
     * with sixteen, 214-280 ms with eight, 184-255 ms with eight columns of two rows at once.
     */
    static void row16(float[] x, int x0, int in, float[] panel, int c, float[] bias, int b, float[] out, int o) {
        float a0 = bias[b], a1 = bias[b + 1], a2 = bias[b + 2], a3 = bias[b + 3];
        float a4 = bias[b + 4], a5 = bias[b + 5], a6 = bias[b + 6], a7 = bias[b + 7];
        float a8 = bias[b + 8], a9 = bias[b + 9], a10 = bias[b + 10], a11 = bias[b + 11];
        float a12 = bias[b + 12], a13 = bias[b + 13], a14 = bias[b + 14], a15 = bias[b + 15];
        for (int k = 0, w = c; k < in; k++, w += PANEL) {
            float u = x[x0 + k];
            a0 = Math.fma(panel[w], u, a0);
            a1 = Math.fma(panel[w + 1], u, a1);
            a2 = Math.fma(panel[w + 2], u, a2);
            a3 = Math.fma(panel[w + 3], u, a3);
            a4 = Math.fma(panel[w + 4], u, a4);
            a5 = Math.fma(panel[w + 5], u, a5);
            a6 = Math.fma(panel[w + 6], u, a6);
            a7 = Math.fma(panel[w + 7], u, a7);
            a8 = Math.fma(panel[w + 8], u, a8);
            a9 = Math.fma(panel[w + 9], u, a9);
            a10 = Math.fma(panel[w + 10], u, a10);
            a11 = Math.fma(panel[w + 11], u, a11);
            a12 = Math.fma(panel[w + 12], u, a12);
            a13 = Math.fma(panel[w + 13], u, a13);
            a14 = Math.fma(panel[w + 14], u, a14);
            a15 = Math.fma(panel[w + 15], u, a15);
        }
        store8(out, o, a0, a1, a2, a3, a4, a5, a6, a7);
        store8(out, o + 8, a8, a9, a10, a11, a12, a13, a14, a15);
    }

    /**
     * Four columns of three rows (x from x0, x0 + in and x0 + 2·in; out from o, o + stride and o + 2·stride): twelve FMA
     * chains over k, each started from its bias, each weight loaded once for three rows. Rows go three at a time through
     * this, the rest one at a time through {@link #row16}. C1 spends four instructions on each array load (the index
     * moved, offset, sign-extended; read from its code), which this spreads over three FMAs, and its twelve chains, a
     * weight and three inputs fit AVX2's sixteen registers, where row16 spills two chains. On the 2-core AMD EPYC with
     * AVX2, C1 alone: 9 rows of 768 through 3072 columns took 8-9 ms against 11-16 ms for rows of sixteen, and 29 ms
     * against 40 ms in the first, partly interpreted, call (two rows of eight: 9-13 ms, and 62-69 ms in the first);
     * the one-shot fill-mask, 14 alternating runs, median 0.73 s against 0.82 s.
     */
    static void rows3x4(float[] x, int x0, int in, float[] panel, int c, float[] bias, int b, float[] out, int o, int stride) {
        float a0 = bias[b], a1 = bias[b + 1], a2 = bias[b + 2], a3 = bias[b + 3];
        float b0 = a0, b1 = a1, b2 = a2, b3 = a3;
        float c0 = a0, c1 = a1, c2 = a2, c3 = a3;
        int x1 = x0 + in;
        int x2 = x1 + in;
        for (int k = 0, w = c; k < in; k++, w += PANEL) {
            float u = x[x0 + k];
            float v = x[x1 + k];
            float t = x[x2 + k];
            float q = panel[w];
            a0 = Math.fma(q, u, a0);
            b0 = Math.fma(q, v, b0);
            c0 = Math.fma(q, t, c0);
            q = panel[w + 1];
            a1 = Math.fma(q, u, a1);
            b1 = Math.fma(q, v, b1);
            c1 = Math.fma(q, t, c1);
            q = panel[w + 2];
            a2 = Math.fma(q, u, a2);
            b2 = Math.fma(q, v, b2);
            c2 = Math.fma(q, t, c2);
            q = panel[w + 3];
            a3 = Math.fma(q, u, a3);
            b3 = Math.fma(q, v, b3);
            c3 = Math.fma(q, t, c3);
        }
        store4(out, o, a0, a1, a2, a3);
        store4(out, o + stride, b0, b1, b2, b3);
        store4(out, o + 2 * stride, c0, c1, c2, c3);
    }

    private static void store4(float[] out, int o, float a0, float a1, float a2, float a3) {
        out[o] = a0;
        out[o + 1] = a1;
        out[o + 2] = a2;
        out[o + 3] = a3;
    }

    /** {@link #row16} for eight columns: the panel of 128-bit vectors is eight wide. */
    static void row8(float[] x, int x0, int in, float[] panel, int c, float[] bias, int b, float[] out, int o) {
        float a0 = bias[b], a1 = bias[b + 1], a2 = bias[b + 2], a3 = bias[b + 3];
        float a4 = bias[b + 4], a5 = bias[b + 5], a6 = bias[b + 6], a7 = bias[b + 7];
        for (int k = 0, w = c; k < in; k++, w += PANEL) {
            float u = x[x0 + k];
            a0 = Math.fma(panel[w], u, a0);
            a1 = Math.fma(panel[w + 1], u, a1);
            a2 = Math.fma(panel[w + 2], u, a2);
            a3 = Math.fma(panel[w + 3], u, a3);
            a4 = Math.fma(panel[w + 4], u, a4);
            a5 = Math.fma(panel[w + 5], u, a5);
            a6 = Math.fma(panel[w + 6], u, a6);
            a7 = Math.fma(panel[w + 7], u, a7);
        }
        store8(out, o, a0, a1, a2, a3, a4, a5, a6, a7);
    }

    /** Panel p of a bfloat16 matrix as floats ([in][PANEL]), widened as the tiles widen them (see {@link PackedMatrix}). */
    private static void widenBf16(PackedMatrix w, int p, float[] panel) {
        int in = w.in;
        int ints = PANEL / 2;
        int[] pairs = PAIRS_COPY.get();
        if (pairs.length < ints * in) {
            pairs = new int[ints * in];
            PAIRS_COPY.set(pairs);
        }
        MemorySegment.copy(w.weights, I32, (long) p * PANEL * in * 2, pairs, 0, ints * in);
        for (int k = 0; k < in; k++) {
            for (int i = 0; i < ints; i++) {
                int bits = pairs[k * ints + i];
                int col = i / L * 2 * L + i % L;
                panel[k * PANEL + col] = Float.intBitsToFloat(bits << 16);
                panel[k * PANEL + col + L] = Float.intBitsToFloat(bits & VectorMath.HIGH_HALF);
            }
        }
    }

    // ---- lane sums ({@link VectorMath#sum}) ----

    /** Σ a[off .. off+n) through L lane sums and the same folding tree as {@link VectorMath#sum(jdk.incubator.vector.FloatVector)}; {@code lanes} is L floats. */
    static float sum(float[] a, int off, int n, float[] lanes) {
        Arrays.fill(lanes, 0, L, 0f);
        for (int i = 0; i < n; i++) {
            lanes[i % L] += a[off + i];
        }
        return fold(lanes);
    }

    private static float fold(float[] lanes) {
        for (int half = L / 2; half > 0; half /= 2) {
            for (int i = 0; i < half; i++) {
                lanes[i] += lanes[i + half];
            }
        }
        return lanes[0];
    }

    // ---- row kernels ({@link RowKernels}) ----

    /** {@link RowKernels#layerNorm}: the mean and the biased variance as lane sums, then (x - mean)·inv·γ + β fused. */
    static void layerNorm(float[] x, int rows, int dim, float[] gamma, float[] beta, float eps, float[] out) {
        float[] lanes = new float[L];
        for (int r = 0; r < rows; r++) {
            int off = r * dim;
            float mean = sum(x, off, dim, lanes) / dim;
            Arrays.fill(lanes, 0f);
            for (int i = 0; i < dim; i++) {
                float d = x[off + i] - mean;
                lanes[i % L] += d * d;
            }
            float variance = fold(lanes) / dim;
            float inv = (float) (1.0 / Math.sqrt(variance + eps));
            for (int i = 0; i < dim; i++) {
                out[off + i] = Math.fma((x[off + i] - mean) * inv, gamma[i], beta[i]);
            }
        }
    }

    /** {@link RowKernels#softmax} over a[off .. off+n), any n: the same bits as the vector kernel over the row padded with -∞. */
    static void softmax(float[] a, int off, int n, float[] lanes) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, a[off + i]);
        }
        for (int i = 0; i < n; i++) {
            a[off + i] = exp(a[off + i] - max);
        }
        float inv = 1f / sum(a, off, n, lanes);
        for (int i = 0; i < n; i++) {
            a[off + i] *= inv;
        }
    }

    /** {@link RowKernels#addInPlace}. */
    static void addInPlace(float[] a, int off, float[] b, int n) {
        for (int i = 0; i < n; i++) {
            a[off + i] += b[i];
        }
    }

    /** {@link RowKernels#activate}, on this thread. */
    static void activate(Activation act, float[] a, int n) {
        for (int i = 0; i < n; i++) {
            a[i] = switch (act) {
                case GELU -> gelu(a[i]);
                case GELU_TANH -> geluTanh(a[i]);
                case RELU -> Math.max(a[i], 0f);
            };
        }
    }

    /** {@link RowKernels#tanh} over [from, to). */
    static void tanh(float[] a, int from, int to) {
        for (int i = from; i < to; i++) {
            a[i] = tanh(a[i]);
        }
    }

    // ---- the element-wise functions, as {@link VectorMath} and {@link RowKernels} build them ----

    private static final float SQRT_HALF = (float) Math.sqrt(0.5);
    private static final float SQRT_2_OVER_PI = (float) Math.sqrt(2 / Math.PI);

    static float exp(float x) {
        float c = Math.min(Math.max(x, -87.33654f), 88.72283f);
        float k = Math.fma(c, 1.44269504088896341f, 12582912f) - 12582912f;
        float r = Math.fma(k, -0.693359375f, c);
        r = Math.fma(k, 2.12194440e-4f, r);
        float p = Math.fma(r, 1.9875691500E-4f, 1.3981999507E-3f);
        p = Math.fma(p, r, 8.3334519073E-3f);
        p = Math.fma(p, r, 4.1665795894E-2f);
        p = Math.fma(p, r, 1.6666665459E-1f);
        p = Math.fma(p, r, 5.0000001201E-1f);
        float y = p * (r * r) + r + 1f;
        float scale = Float.intBitsToFloat(((int) k + 127) << 23);
        if (x < -87.33654f) {
            return 0f;
        }
        return x > 88.72283f ? Float.POSITIVE_INFINITY : y * scale;
    }

    static float tanh(float x) {
        float ax = Math.abs(x);
        float e = exp(ax + ax);
        float z = x * x;
        float small = Math.fma(z, -5.70498872745E-3f, 2.06390887954E-2f);
        small = Math.fma(small, z, -5.37397155531E-2f);
        small = Math.fma(small, z, 1.33314422036E-1f);
        small = Math.fma(small, z, -3.33332819422E-1f);
        small = Math.fma(small * z, x, x);
        float large = 1f - 2f / (e + 1f);
        if (x < 0f) {
            large = -large;
        }
        return Math.abs(x) < 0.625f ? small : large;
    }

    static float gelu(float x) {
        float au = Math.abs(x * SQRT_HALF);
        float e = exp(-(au * au));
        float u = x * SQRT_HALF;
        float t = 1f / Math.fma(Math.abs(u), 0.3275911f, 1f);
        float poly = Math.fma(t, 1.061405429f, -1.453152027f);
        poly = Math.fma(poly, t, 1.421413741f);
        poly = Math.fma(poly, t, -0.284496736f);
        poly = Math.fma(poly, t, 0.254829592f);
        poly = poly * t;
        float erf = -(poly * e) + 1f;
        if (u < 0f) {
            erf = -erf;
        }
        return x * 0.5f * (erf + 1f);
    }

    static float geluTanh(float x) {
        float s = tanh((x * x * x * 0.044715f + x) * SQRT_2_OVER_PI);
        return x * 0.5f * (s + 1f);
    }

    // ---- attention ({@link AttentionKernel#head}) ----

    /** {@link AttentionKernel#head}: scores as FMA chains over the head's columns, scaled, masked, softmax, then the values. */
    static void head(float[] q, int qRow0, int queries, float[] k, float[] v, int hidden, int row0, int seq, int col,
                     int headSize, float[] mask, int maskOff, float[] scores, int scoresOff, float[] ctx, float[] lanes) {
        float scale = (float) (1.0 / Math.sqrt(headSize));
        for (int i = 0; i < queries; i++) {
            int qi = (qRow0 + i) * hidden + col;
            int si = scoresOff + i * seq;
            for (int j = 0; j < seq; j++) {
                int kj = (row0 + j) * hidden + col;
                float acc = 0f;
                for (int d = 0; d < headSize; d++) {
                    acc = Math.fma(k[kj + d], q[qi + d], acc);
                }
                scores[si + j] = acc * scale + mask[maskOff + j];
            }
            softmax(scores, si, seq, lanes);
        }
        for (int i = 0; i < queries; i++) {
            int si = scoresOff + i * seq;
            int out = (qRow0 + i) * hidden + col;
            for (int c = 0; c < headSize; c++) {
                float acc = 0f;
                for (int j = 0; j < seq; j++) {
                    acc = Math.fma(v[(row0 + j) * hidden + col + c], scores[si + j], acc);
                }
                ctx[out + c] = acc;
            }
        }
    }
}
