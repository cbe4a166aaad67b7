package org.vectorbert.bench.onnx;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.bench.EncoderBenchmark;
import org.vectorbert.bench.LoadBenchmark;
import org.vectorbert.bench.MatmulBenchmark;
import org.vectorbert.bench.ModelArgs;
import org.vectorbert.bench.Measure;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.BertModel;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.Parallel;
import org.vectorbert.engine.Precision;

/**
 * vectorbert and ONNX Runtime (Java API, CPU, MLAS) side by side on the same bert-base-uncased
 * weights and the same token ids, interleaved in one process: encoder forward 1 x 8, 1 x 128,
 * 8 x 128, fill-mask of a short query from token ids, model load; resident memory after load and
 * after the 8 x 128 pass from one fresh JVM per engine. Before every timed run the same engine
 * runs the same work untimed for {@value #SETTLE_MS} ms: ONNX Runtime's threads keep spinning for
 * about 75 ms after a run, slowing the other engine's next runs, and a sleep instead would time every
 * engine waking from idle. Prints each
 * figure with the ratio
 * vectorbert / ONNX Runtime (below 1 means vectorbert is faster or smaller).
 *
 * <pre>bench/compare-onnx   (exports the ONNX model once, builds with -Ponnx, then runs this)</pre>
 */
public final class CompareOnnx {
    /** Untimed back-to-back running before each timed run: longer than the other engine spins. */
    private static final int SETTLE_MS = 200;
    /** "Paris is the [MASK] of France." as bert-base-uncased's tokenizer gives it; the mask is at 4. */
    private static final long[] QUERY = {101, 3000, 2003, 1996, 103, 1997, 2605, 1012, 102};
    private static final int QUERY_MASK = 4;
    private static final int[][] SHAPES = {{1, 8}, {1, 128}, {8, 128}};

    private final Path model;
    private final Path onnx;
    private final int threads;
    private final List<String> table = new ArrayList<>();
    private final Map<String, long[]> memoryKb = new LinkedHashMap<>();

    private CompareOnnx(Path model, Path onnx, int threads) {
        this.model = model;
        this.onnx = onnx;
        this.threads = threads;
    }

    public static void main(String[] args) throws Exception {
        Path model = null;
        Path onnx = null;
        String memoryChild = null;
        int threads = Runtime.getRuntime().availableProcessors();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--model" -> model = Path.of(args[++i]);
                case "--onnx" -> onnx = Path.of(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--memory-child" -> memoryChild = args[++i];
                case "--print-model" -> {
                    System.out.println(ModelArgs.defaultModel());
                    return;
                }
                default -> {
                    System.err.println("usage: CompareOnnx --onnx DIR [--model DIR] [--threads N]");
                    System.exit(2);
                }
            }
        }
        if (onnx == null) {
            System.err.println("usage: CompareOnnx --onnx DIR [--model DIR] [--threads N]   (bench/compare-onnx passes --onnx)");
            System.exit(2);
        }
        if (model == null) {
            model = ModelArgs.defaultModel();
        }
        Parallel.setThreads(threads);
        CompareOnnx compare = new CompareOnnx(model, onnx, threads);
        if (memoryChild != null) {
            compare.memoryChild(memoryChild);
        } else {
            compare.run();
        }
    }

    private void run() throws Exception {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        System.out.printf("vectorbert vs ONNX Runtime %s, %s, %d threads each, JDK %s, %s%n", env.getVersion(), LocalDate.now(),
                threads, Runtime.version(), cpu());
        System.out.printf("weights: %s (%.1f MB); ONNX: %s%n%n", model, weightBytes() / 1e6, onnx);

        memory("vectorbert");
        memory("vectorbert-bf16");
        memory("onnxruntime");

        try (OrtSession.SessionOptions options = sessionOptions()) {
            // Each load starts from a collected heap, so no round pays for collecting the one before.
            Measure[] load = Measure.settled(1, 5, Measure.pause(50, true), () -> BertModel.load(model),
                    () -> BertModel.load(model, Precision.BF16), () -> {
                try {
                    env.createSession(onnx.resolve("encoder.onnx").toString(), options).close();
                } catch (OrtException e) {
                    throw new IllegalStateException(e);
                }
            });
            row("model load (warm page cache)", load);

            BertModel bert = BertModel.load(model);
            BertModel bf16 = BertModel.load(model, Precision.BF16);
            try (OrtSession encoder = env.createSession(onnx.resolve("encoder.onnx").toString(), options);
                 OrtSession mlm = env.createSession(onnx.resolve("mlm.onnx").toString(), options)) {
                agreement(bert, env, encoder, mlm);
                for (int[] shape : SHAPES) {
                    encoderRow(bert, bf16, env, encoder, shape[0], shape[1]);
                }
                fillMaskRow(bert, bf16, env, mlm);
            }
        }
        System.out.println();
        System.out.println("| workload | vectorbert f32 | vectorbert bf16 | ONNX Runtime | f32 / ORT | bf16 / ORT |");
        System.out.println("|---|---|---|---|---|---|");
        table.forEach(System.out::println);

        // The kernels alone, last: their matrices are packed in memory, and a JVM whose tiles have run on such
        // segments runs them on a model's mapped ones 1.5 x slower (see PackedMatrix). A user's JVM sees one kind,
        // so the comparison above runs before this.
        System.out.println();
        double ceiling = MatmulBenchmark.fmaCeiling(threads);
        System.out.printf("fp32 FMA ceiling measured now: %.0f GFLOP/s on %d threads%n", ceiling, threads);
        for (MatmulBenchmark.Result r : MatmulBenchmark.run()) {
            System.out.println(MatmulBenchmark.describe(r, ceiling));
        }
    }

    private OrtSession.SessionOptions sessionOptions() throws OrtException {
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(threads);
        options.setInterOpNumThreads(1);
        options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        return options;
    }

    private void encoderRow(BertModel bert, BertModel bf16, OrtEnvironment env, OrtSession encoder, int size, int length)
            throws OrtException {
        Batch batch = EncoderBenchmark.batch(size, length, bert.config().vocabSize());
        try (Inputs in = Inputs.of(env, batch)) {
            boolean large = size * length >= 1024;
            Measure[] m = Measure.settled(large ? 3 : 30, large ? 7 : 31, Measure.runFor(SETTLE_MS),
                    () -> bert.forward(batch, Encoder.Request.lastHiddenState()),
                    () -> bf16.forward(batch, Encoder.Request.lastHiddenState()),
                    () -> in.run(encoder).close());
            double gflop = EncoderBenchmark.flops(bert.config(), size, length) / 1e9;
            row(String.format("encoder %d x %d (GFLOP/s: f32 %.0f, ORT %.0f)", size, length, gflop / m[0].medianSeconds(),
                    gflop / m[2].medianSeconds()), m);
        }
    }

    /** What the fill-mask pipeline asks of a pass: the logits at the mask, and the last layer at the mask's row alone. */
    private static final Encoder.Request FILL_MASK = Encoder.Request.lastHiddenState().withMlmLogitsAt(QUERY_MASK)
            .lastHiddenStateOnlyAt();

    private void fillMaskRow(BertModel bert, BertModel bf16, OrtEnvironment env, OrtSession mlm) throws OrtException {
        Batch batch = Batch.of(Arrays.stream(QUERY).mapToInt(v -> (int) v).toArray(), new int[QUERY.length]);
        try (Inputs in = Inputs.of(env, batch)) {
            int vocab = bert.config().vocabSize();
            Measure[] m = Measure.settled(30, 31, Measure.runFor(SETTLE_MS),
                    () -> top5(bert.forward(batch, FILL_MASK).mlmLogits(), 0, vocab),
                    () -> top5(bf16.forward(batch, FILL_MASK).mlmLogits(), 0, vocab),
                    () -> {
                        try (OrtSession.Result r = in.run(mlm)) {
                            top5(floats(r), QUERY_MASK * vocab, vocab);
                        }
                    });
            row("fill-mask, short query from ids (top 5)", m);
        }
    }

    /** The two engines must compute the same thing before their times mean anything. */
    private void agreement(BertModel bert, OrtEnvironment env, OrtSession encoder, OrtSession mlm) throws OrtException {
        Batch batch = EncoderBenchmark.batch(1, 128, bert.config().vocabSize());
        float[] ours = bert.forward(batch, Encoder.Request.lastHiddenState()).lastHiddenState();
        float[] theirs;
        try (Inputs in = Inputs.of(env, batch); OrtSession.Result r = in.run(encoder)) {
            theirs = floats(r);
        }
        double maxDiff = 0;
        for (int i = 0; i < ours.length; i++) {
            maxDiff = Math.max(maxDiff, Math.abs(ours[i] - theirs[i]));
        }
        Batch query = Batch.of(Arrays.stream(QUERY).mapToInt(v -> (int) v).toArray(), new int[QUERY.length]);
        int[] ourTop = top5(bert.forward(query, FILL_MASK).mlmLogits(), 0,
                bert.config().vocabSize());
        int[] theirTop;
        try (Inputs in = Inputs.of(env, query); OrtSession.Result r = in.run(mlm)) {
            theirTop = top5(floats(r), QUERY_MASK * bert.config().vocabSize(), bert.config().vocabSize());
        }
        System.out.printf("agreement: 1 x 128 hidden states max |diff| %.2e; fill-mask top 5 ids %s vs %s%s%n%n", maxDiff,
                Arrays.toString(ourTop), Arrays.toString(theirTop), Arrays.equals(ourTop, theirTop) ? " (same)" : " (DIFFERENT)");
        if (maxDiff > 1e-3 || !Arrays.equals(ourTop, theirTop)) {
            throw new IllegalStateException("the engines disagree: the ONNX export is not of these weights");
        }
    }

    private static float[] floats(OrtSession.Result r) {
        FloatBuffer b = ((OnnxTensor) r.get(0)).getFloatBuffer();
        float[] a = new float[b.remaining()];
        b.get(a);
        return a;
    }

    /** Softmax over one vocabulary row and its five most likely ids, as fill-mask reports them. */
    static int[] top5(float[] logits, int off, int vocab) {
        float max = Float.NEGATIVE_INFINITY;
        for (int i = 0; i < vocab; i++) {
            max = Math.max(max, logits[off + i]);
        }
        double sum = 0;
        float[] p = new float[vocab];
        for (int i = 0; i < vocab; i++) {
            p[i] = (float) Math.exp(logits[off + i] - max);
            sum += p[i];
        }
        int[] best = new int[5];
        Arrays.fill(best, -1);
        for (int i = 0; i < vocab; i++) {
            p[i] /= (float) sum;
            for (int j = 0; j < 5; j++) {
                if (best[j] < 0 || p[i] > p[best[j]]) {
                    System.arraycopy(best, j, best, j + 1, 4 - j);
                    best[j] = i;
                    break;
                }
            }
        }
        return best;
    }

    /** m: vectorbert f32, vectorbert bf16, ONNX Runtime. */
    private void row(String workload, Measure[] m) {
        String line = String.format("| %s | %.1f ms (best %.1f) | %.1f ms (best %.1f) | %.1f ms (best %.1f) | %.2f | %.2f |",
                workload, m[0].medianMs(), m[0].minMs(), m[1].medianMs(), m[1].minMs(), m[2].medianMs(), m[2].minMs(),
                m[0].medianSeconds() / m[2].medianSeconds(), m[1].medianSeconds() / m[2].medianSeconds());
        System.out.println(line);
        table.add(line);
    }

    // ---- resident memory, one fresh JVM per engine ----

    private void memory(String engine) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        // This JVM's flags: bench/compare-onnx starts it with bin/vectorbert's.
        command.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), CompareOnnx.class.getName(), "--model", model.toString(), "--onnx",
                onnx.toString(), "--threads", Integer.toString(threads), "--memory-child", engine));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        if (p.waitFor() != 0 || !out.startsWith("rss ")) {
            throw new IllegalStateException("memory run of " + engine + " failed: " + out);
        }
        long[] kb = Arrays.stream(out.substring(4).split(" ")).mapToLong(Long::parseLong).toArray();
        double weights = weightBytes();
        String line = String.format("resident memory, %s: %.0f MB at start, %.0f MB after load (+%.0f MB = %.2f x weights;"
                        + " whole process %.2f x), %.0f MB after 8 x 128 (+%.0f MB = %.2f x weights)", engine, mb(kb[0]), mb(kb[1]),
                mb(kb[1] - kb[0]), mb(kb[1] - kb[0]) * 1e6 / weights, mb(kb[1]) * 1e6 / weights, mb(kb[2]), mb(kb[2] - kb[0]),
                mb(kb[2] - kb[0]) * 1e6 / weights);
        System.out.println(line);
        memoryKb.put(engine, kb);
        if (memoryKb.size() == 3) {
            long[] ours = memoryKb.get("vectorbert");
            long[] bf16 = memoryKb.get("vectorbert-bf16");
            long[] theirs = memoryKb.get("onnxruntime");
            for (int at = 1; at <= 2; at++) {
                table.add(String.format("| resident memory after %s (whole process) | %.0f MB | %.0f MB | %.0f MB | %.2f | %.2f |",
                        at == 1 ? "load" : "8 x 128", mb(ours[at]), mb(bf16[at]), mb(theirs[at]),
                        (double) ours[at] / theirs[at], (double) bf16[at] / theirs[at]));
            }
            System.out.println();
        }
    }

    /** kB (as /proc reports them) in MB of 10^6 bytes, the unit the weights are counted in. */
    private static double mb(long kb) {
        return kb * 1024 / 1e6;
    }

    /** In a fresh JVM: RSS at start, after loading, after one 8 x 128 pass; printed as "rss a b c" (kB). */
    private void memoryChild(String engine) throws Exception {
        long start = LoadBenchmark.residentKb();
        Batch batch = EncoderBenchmark.batch(8, 128, 30522);
        long loaded;
        long ran;
        if (engine.startsWith("vectorbert")) {
            BertModel bert = BertModel.load(model, engine.endsWith("bf16") ? Precision.BF16 : Precision.F32);
            loaded = LoadBenchmark.residentKb();
            bert.forward(batch, Encoder.Request.lastHiddenState());
            ran = LoadBenchmark.residentKb();
        } else {
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            try (OrtSession.SessionOptions options = sessionOptions();
                 OrtSession encoder = env.createSession(onnx.resolve("encoder.onnx").toString(), options)) {
                loaded = LoadBenchmark.residentKb();
                try (Inputs in = Inputs.of(env, batch)) {
                    in.run(encoder).close();
                }
                ran = LoadBenchmark.residentKb();
            }
        }
        System.out.println("rss " + start + " " + loaded + " " + ran);
    }

    private double weightBytes() {
        try {
            return Files.size(model.resolve("model.safetensors"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String cpu() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    /** A batch as ONNX Runtime's three int64 inputs, made once outside the timed loop. */
    private record Inputs(OnnxTensor ids, OnnxTensor mask, OnnxTensor types) implements AutoCloseable {
        static Inputs of(OrtEnvironment env, Batch batch) throws OrtException {
            long[] shape = {batch.size(), batch.length()};
            long[] ids = new long[batch.ids().length];
            long[] mask = new long[ids.length];
            long[] types = new long[ids.length];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = batch.ids()[i];
                types[i] = batch.typeIds()[i];
                mask[i] = i % batch.length() < batch.lengths()[i / batch.length()] ? 1 : 0;
            }
            return new Inputs(OnnxTensor.createTensor(env, LongBuffer.wrap(ids), shape),
                    OnnxTensor.createTensor(env, LongBuffer.wrap(mask), shape),
                    OnnxTensor.createTensor(env, LongBuffer.wrap(types), shape));
        }

        OrtSession.Result run(OrtSession session) {
            try {
                return session.run(Map.of("input_ids", ids, "attention_mask", mask, "token_type_ids", types));
            } catch (OrtException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public void close() {
            ids.close();
            mask.close();
            types.close();
        }
    }
}
