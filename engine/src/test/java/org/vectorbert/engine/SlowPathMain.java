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
        Encoder.Request request = Encoder.Request.lastHiddenState();
        // Two passes at least: the JVM's first runs the plain kernels (PlainKernels), the second the vector ones.
        for (int pass = 0; pass < 2 || System.nanoTime() < until; pass++) {
            model.forward(batch, request);
        }
        SlowPathCheck check = new SlowPathCheck(1, 0);
        int headSize = model.config().headSize();
        check.passDone(SlowPathCheck.Probe.of(model.firstLayer()), headSize, batch.rows(), batch.length());
        // A model looks again a warm-up after a slow check; here a second of passes. (LayerNorm at 92-140 M floats/s with
        // plain flags, in one CI run and in 3 of 8 runs of this test, was C2's code calling FloatVector.lanewise virtually
        // on an accumulator: see RowKernels.layerNormRow.)
        long again = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < again) {
            model.forward(batch, request);
        }
        check.passDone(SlowPathCheck.Probe.of(model.firstLayer()), headSize, batch.rows(), batch.length());
        List<SlowPathCheck.Speed> speeds = SlowPathCheck.measure(SlowPathCheck.Probe.of(model.firstLayer()), headSize, batch.rows(), batch.length());
        for (SlowPathCheck.Speed s : speeds) {
            System.out.println(s.kernel() + " " + s.value() + (s.slow() ? " slow" : ""));
        }
        System.out.println("compiled now: RowKernels: " + KernelCompilation.compiledNow("RowKernels").orElse("unknown"));
    }
}
