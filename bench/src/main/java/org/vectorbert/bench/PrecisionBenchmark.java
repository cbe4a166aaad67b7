package org.vectorbert.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.FillMask;
import org.vectorbert.engine.FillMaskOptions;
import org.vectorbert.engine.Parallel;
import org.vectorbert.engine.Precision;

/**
 * bf16 against f32 on the real weights: fill-mask agreement over the queries in
 * fill-mask-queries.txt (top 1 and top 5), the largest difference in hidden states and in
 * scores, memory held, and speed side by side (interleaved).
 *
 * <pre>bench/run bf16 [--model DIR] [--threads N]</pre>
 */
public final class PrecisionBenchmark {
    private PrecisionBenchmark() {}

    public static void main(String[] args) throws IOException {
        Path dir = ModelArgs.modelDirectory(args, "bench/run bf16 [--model DIR] [--threads N]");
        List<String> queries;
        try (InputStream in = PrecisionBenchmark.class.getResourceAsStream("/fill-mask-queries.txt")) {
            queries = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
        }
        FillMask f32 = FillMask.load(dir.toString(), FillMaskOptions.defaults());
        FillMask bf16 = FillMask.load(dir.toString(), FillMaskOptions.defaults().withPrecision(Precision.BF16));
        System.out.printf("model %s, %d threads, %s%n", dir, Parallel.threads(), Runtime.version());
        System.out.printf("weights held: f32 %.1f MB, bf16 %.1f MB (%.2f x)%n", f32.model().weightBytes() / 1e6,
                bf16.model().weightBytes() / 1e6, (double) bf16.model().weightBytes() / f32.model().weightBytes());
        accuracy(queries, f32, bf16);
        speed(f32, bf16);
    }

    private static void accuracy(List<String> queries, FillMask f32, FillMask bf16) {
        int top1 = 0;
        int top5Same = 0;
        int top5Overlap = 0;
        double worstScore = 0;
        double worstHidden = 0;
        double sumHidden = 0;
        long values = 0;
        for (String q : queries) {
            List<FillMask.Candidate> a = f32.predict(q).candidates();
            List<FillMask.Candidate> b = bf16.predict(q).candidates();
            if (a.getFirst().token() == b.getFirst().token()) {
                top1++;
            }
            HashSet<Integer> sa = new HashSet<>();
            a.forEach(c -> sa.add(c.token()));
            HashSet<Integer> sb = new HashSet<>();
            b.forEach(c -> sb.add(c.token()));
            if (sa.equals(sb)) {
                top5Same++;
            }
            sb.retainAll(sa);
            top5Overlap += sb.size();
            for (int i = 0; i < 5; i++) {
                if (a.get(i).token() == b.get(i).token()) {
                    worstScore = Math.max(worstScore, Math.abs(a.get(i).score() - b.get(i).score()));
                }
            }
            int[] ids = f32.tokenizer().encode(q).ids();
            Batch batch = Batch.of(ids, new int[ids.length]);
            float[] ha = f32.model().forward(batch, Encoder.Request.lastHiddenState()).lastHiddenState();
            float[] hb = bf16.model().forward(batch, Encoder.Request.lastHiddenState()).lastHiddenState();
            for (int i = 0; i < ha.length; i++) {
                double d = Math.abs(ha[i] - hb[i]);
                worstHidden = Math.max(worstHidden, d);
                sumHidden += d;
            }
            values += ha.length;
        }
        int n = queries.size();
        System.out.printf("fill-mask over %d queries: top 1 same %d/%d (%.0f%%); same top-5 set %d/%d; top-5 overlap %.1f%%;"
                        + " largest score difference %.4f%n", n, top1, n, 100.0 * top1 / n, top5Same, n,
                100.0 * top5Overlap / (5 * n), worstScore);
        System.out.printf("last hidden state, bf16 vs f32 over those queries: max |diff| %.4f, mean |diff| %.5f%n",
                worstHidden, sumHidden / values);
    }

    private static void speed(FillMask f32, FillMask bf16) {
        int vocab = f32.model().config().vocabSize();
        for (int[] shape : new int[][] {{1, 8}, {1, 128}, {8, 128}}) {
            Batch batch = EncoderBenchmark.batch(shape[0], shape[1], vocab);
            boolean large = shape[0] * shape[1] >= 1024;
            Measure[] m = Measure.interleaved(large ? 3 : 30, large ? 7 : 31,
                    () -> f32.model().forward(batch, Encoder.Request.lastHiddenState()),
                    () -> bf16.model().forward(batch, Encoder.Request.lastHiddenState()));
            System.out.printf("encoder %d x %-3d: f32 %7.1f ms, bf16 %7.1f ms (median; best %.1f / %.1f): bf16/f32 %.2f%n",
                    shape[0], shape[1], m[0].medianMs(), m[1].medianMs(), m[0].minMs(), m[1].minMs(),
                    m[1].medianSeconds() / m[0].medianSeconds());
        }
        String query = "Paris is the [MASK] of France.";
        Measure[] m = Measure.interleaved(30, 31, () -> f32.predict(query), () -> bf16.predict(query));
        System.out.printf("fill-mask \"%s\": f32 %.1f ms, bf16 %.1f ms (median): bf16/f32 %.2f%n", query, m[0].medianMs(),
                m[1].medianMs(), m[1].medianSeconds() / m[0].medianSeconds());
    }
}
