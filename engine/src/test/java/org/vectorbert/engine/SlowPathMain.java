package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.List;

/**
 * A JVM of its own for {@link SlowPathCheckTest}: loads the model in {@code args[0]}, runs passes of 16
 * positions for {@code args[1]} seconds (two at least), then runs the slow-path check as a model does after warm-up
 * (twice, a second of passes apart, as a kernel must be slow twice to be reported) and prints each kernel's speed,
 * one per line.
 */
public final class SlowPathMain {
    private SlowPathMain() {}

    public static void main(String[] args) {
        BertModel model = BertModel.load(Path.of(args[0]));
        long until = System.nanoTime() + (long) (Double.parseDouble(args[1]) * 1e9);
        int[] ids = new int[16];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1000 + 37 * i;
        }
        Batch batch = Batch.of(ids, new int[ids.length]);
        BertModel.Request request = BertModel.Request.lastHiddenState();
        // Two passes at least: the JVM's first runs the plain kernels (PlainKernels), the second the vector ones.
        for (int pass = 0; pass < 2 || System.nanoTime() < until; pass++) {
            model.forward(batch, request);
        }
        SlowPathCheck check = new SlowPathCheck(1, 0);
        int headSize = model.config().headSize();
        check.passDone(model.firstLayer(), headSize, batch.rows(), batch.length());
        // A model looks again a warm-up after a slow check; here a second of passes. With the checks back to back, one
        // full CI run (2-core AVX2 machine) measured LayerNorm at 102 M floats/s with plain flags, where C2's code runs at
        // thousands (the cause not found: a kernel still being recompiled, or the machine); the test alone passed twice.
        long again = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < again) {
            model.forward(batch, request);
        }
        check.passDone(model.firstLayer(), headSize, batch.rows(), batch.length());
        List<SlowPathCheck.Speed> speeds = SlowPathCheck.measure(model.firstLayer(), headSize, batch.rows(), batch.length());
        for (SlowPathCheck.Speed s : speeds) {
            System.out.println(s.kernel() + " " + s.value() + (s.slow() ? " slow" : ""));
        }
    }
}
