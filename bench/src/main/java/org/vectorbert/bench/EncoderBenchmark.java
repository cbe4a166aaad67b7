package org.vectorbert.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.BertModel;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.FillMask;
import org.vectorbert.engine.FillMaskOptions;
import org.vectorbert.engine.Parallel;
import org.vectorbert.loader.BertConfig;

/**
 * Encoder forward time and achieved GFLOP/s for batch 1 x 8, 1 x 128 and 8 x 128 tokens (hidden
 * states only), and fill-mask latency for a short query.
 *
 * <pre>bench/run encoder [--model DIR] [--threads N]</pre>
 */
public final class EncoderBenchmark {
    private EncoderBenchmark() {}

    public static void main(String[] args) {
        Path dir = ModelArgs.modelDirectory(args, "bench/run encoder [--model DIR] [--threads N]");
        BertModel bert = BertModel.load(dir);
        System.out.printf("model %s, %d threads, %s%n", dir, Parallel.threads(), Runtime.version());
        for (int[] shape : new int[][] {{1, 8}, {1, 128}, {8, 128}}) {
            Batch batch = batch(shape[0], shape[1], bert.config().vocabSize());
            boolean large = shape[0] * shape[1] >= 1024;
            // Short passes get more warm-up: the JIT must have compiled every kernel before timing starts.
            Measure m = Measure.of(large ? 3 : 30, large ? 5 : 21, () -> bert.forward(batch, Encoder.Request.lastHiddenState()));
            double gflop = flops(bert.config(), shape[0], shape[1]) / 1e9;
            long allocated = allocatedBy(() -> bert.forward(batch, Encoder.Request.lastHiddenState()));
            System.out.printf("encoder %d x %-3d: median %7.1f ms (best %7.1f), %.1f GFLOP, %.0f GFLOP/s;"
                            + " allocated per pass %.2f MB (the hidden-state output is %.2f MB)%n",
                    shape[0], shape[1], m.medianSeconds() * 1e3, m.minSeconds() * 1e3, gflop, gflop / m.medianSeconds(),
                    allocated / 1e6, 4.0 * shape[0] * shape[1] * bert.config().hiddenSize() / 1e6);
        }
        if (!bert.hasMlmHead()) {
            return;
        }
        FillMask fill = FillMask.of(bert, org.vectorbert.tokenizer.Tokenizer.fromDirectory(dir), FillMaskOptions.defaults());
        String query = "Paris is the [MASK] of France.";
        Measure m = Measure.of(30, 21, () -> fill.predict(query));
        System.out.printf("fill-mask \"%s\" (tokenize, encode, MLM row, top-5): median %.1f ms (best %.1f)%n", query,
                m.medianSeconds() * 1e3, m.minSeconds() * 1e3);
    }

    /** Bytes the JVM's threads allocated while {@code task} ran (the kernel threads included). */
    public static long allocatedBy(Runnable task) {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getTotalThreadAllocatedBytes();
        task.run();
        return threads.getTotalThreadAllocatedBytes() - before;
    }

    /** Deterministic pseudo-random ids, [CLS] first and [SEP] last. */
    public static Batch batch(int size, int length, int vocab) {
        List<int[]> ids = new ArrayList<>();
        long seed = 12345;
        for (int b = 0; b < size; b++) {
            int[] seq = new int[length];
            for (int i = 0; i < length; i++) {
                seed = seed * 6364136223846793005L + 1442695040888963407L;
                seq[i] = 1000 + (int) ((seed >>> 33) % (vocab - 1000));
            }
            seq[0] = 101;
            seq[length - 1] = 102;
            ids.add(seq);
        }
        return Batch.of(ids, null, 0);
    }

    /** Multiply-adds count twice: the linear layers plus the two attention products. */
    public static double flops(BertConfig c, int size, int length) {
        double tokens = (double) size * length;
        double h = c.hiddenSize();
        double perLayer = 2 * tokens * (4 * h * h + 2 * h * c.intermediateSize()) + 2 * 2 * size * (double) length * length * h;
        return perLayer * c.numHiddenLayers();
    }
}
