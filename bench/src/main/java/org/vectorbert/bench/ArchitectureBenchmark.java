package org.vectorbert.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.Parallel;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.SafetensorsWriter;

/**
 * Each architecture's encoder beside BERT's, in one JVM: random weights of base width (hidden 768, 12 heads,
 * intermediate 3072; {@code --layers}, 4 by default) written in each architecture's Hugging Face layout, then passes
 * of 8 x 128 and 1 x 512 tokens timed in alternation, and each one's GFLOP/s with its ratio to BERT's.
 *
 * <pre>bench/run architectures [--layers N] [--rounds N]</pre>
 */
public final class ArchitectureBenchmark {
    private static final int HIDDEN = 768;
    private static final int HEADS = 12;
    private static final int INTERMEDIATE = 3072;
    private static final int VOCAB = 30527;

    private ArchitectureBenchmark() {}

    public static void main(String[] args) throws IOException {
        int layers = intArg(args, "--layers", 4);
        int rounds = intArg(args, "--rounds", 9);
        Path work = Files.createTempDirectory("vectorbert-architectures");
        try {
            Map<String, Encoder> encoders = new LinkedHashMap<>();
            encoders.put("bert", Encoder.load(write(work.resolve("bert"), "bert", layers)));
            encoders.put("mpnet", Encoder.load(write(work.resolve("mpnet"), "mpnet", layers)));
            System.out.printf("%d layers of base width, %d threads, %s%n", layers, Parallel.threads(), Runtime.version());
            for (int[] shape : new int[][] {{8, 128}, {1, 512}}) {
                Batch batch = EncoderBenchmark.batch(shape[0], shape[1], VOCAB);
                List<Runnable> tasks = new ArrayList<>();
                encoders.values().forEach(e -> tasks.add(() -> e.forward(batch, Encoder.Request.lastHiddenState())));
                Measure[] m = Measure.interleaved(3, rounds, tasks.toArray(Runnable[]::new));
                int i = 0;
                double bert = 0;
                for (Map.Entry<String, Encoder> e : encoders.entrySet()) {
                    double gflops = EncoderBenchmark.flops((BertConfig) e.getValue().config(), shape[0], shape[1]) / 1e9 / m[i].medianSeconds();
                    bert = i == 0 ? gflops : bert;
                    System.out.printf("%-6s %d x %-3d: median %7.1f ms (best %7.1f), %5.0f GFLOP/s, %.2fx BERT's%n", e.getKey(),
                            shape[0], shape[1], m[i].medianSeconds() * 1e3, m[i].minSeconds() * 1e3, gflops, gflops / bert);
                    i++;
                }
            }
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** A model directory of {@code type} with random weights in its Hugging Face layout. */
    private static Path write(Path dir, String type, int layers) throws IOException {
        Files.createDirectories(dir);
        boolean mpnet = type.equals("mpnet");
        String prefix = mpnet ? "mpnet." : "bert.";
        int positions = mpnet ? 514 : 512;
        Files.writeString(dir.resolve("config.json"), """
                {"model_type": "%s", "architectures": ["%s"], "vocab_size": %d, "hidden_size": %d, "num_hidden_layers": %d,
                 "num_attention_heads": %d, "intermediate_size": %d, "hidden_act": "gelu", "max_position_embeddings": %d,
                 "type_vocab_size": %d, "pad_token_id": %d, "layer_norm_eps": 1e-12, "relative_attention_num_buckets": 32}
                """.formatted(type, mpnet ? "MPNetModel" : "BertModel", VOCAB, HIDDEN, layers, HEADS, INTERMEDIATE, positions,
                mpnet ? 0 : 2, mpnet ? 1 : 0));
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        String e = prefix + "embeddings.";
        spec(specs, e + "word_embeddings.weight", VOCAB, HIDDEN);
        spec(specs, e + "position_embeddings.weight", positions, HIDDEN);
        if (!mpnet) {
            spec(specs, e + "token_type_embeddings.weight", 2, HIDDEN);
        }
        norm(specs, e + "LayerNorm");
        if (mpnet) {
            spec(specs, prefix + "encoder.relative_attention_bias.weight", 32, HEADS);
        }
        for (int l = 0; l < layers; l++) {
            String p = prefix + "encoder.layer." + l + ".";
            String attention = p + (mpnet ? "attention.attn." : "attention.self.");
            for (String n : List.of("q", "k", "v")) {
                linear(specs, attention + (mpnet ? n : Map.of("q", "query", "k", "key", "v", "value").get(n)), HIDDEN, HIDDEN);
            }
            linear(specs, p + (mpnet ? "attention.attn.o" : "attention.output.dense"), HIDDEN, HIDDEN);
            norm(specs, p + (mpnet ? "attention.LayerNorm" : "attention.output.LayerNorm"));
            linear(specs, p + "intermediate.dense", HIDDEN, INTERMEDIATE);
            linear(specs, p + "output.dense", INTERMEDIATE, HIDDEN);
            norm(specs, p + "output.LayerNorm");
        }
        Random random = new Random(42);
        try (SafetensorsWriter w = new SafetensorsWriter(dir.resolve("model.safetensors"), specs, Map.of("format", "pt"))) {
            for (SafetensorsWriter.Spec s : specs) {
                int n = Math.toIntExact(s.shape()[0] * (s.shape().length > 1 ? s.shape()[1] : 1));
                float[] values = new float[n];
                boolean layerNormWeight = s.name().endsWith("LayerNorm.weight");
                for (int i = 0; i < n; i++) {
                    values[i] = layerNormWeight ? 1f : (float) (random.nextGaussian() * 0.02);
                }
                w.write(values);
            }
            w.finish();
        }
        return dir;
    }

    private static void spec(List<SafetensorsWriter.Spec> specs, String name, long... shape) {
        specs.add(new SafetensorsWriter.Spec(name, DType.F32, shape));
    }

    private static void linear(List<SafetensorsWriter.Spec> specs, String name, int in, int out) {
        spec(specs, name + ".weight", out, in);
        spec(specs, name + ".bias", out);
    }

    private static void norm(List<SafetensorsWriter.Spec> specs, String name) {
        spec(specs, name + ".weight", HIDDEN);
        spec(specs, name + ".bias", HIDDEN);
    }

    private static int intArg(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }
}
