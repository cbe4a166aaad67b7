package org.vectorbert.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.Parallel;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.DebertaV2Config;
import org.vectorbert.loader.GteConfig;
import org.vectorbert.loader.JinaBertConfig;
import org.vectorbert.loader.ModernBertConfig;
import org.vectorbert.loader.NomicBertConfig;
import org.vectorbert.loader.SafetensorsWriter;

/**
 * Each architecture's encoder beside BERT's, in one JVM: random weights of base width (hidden 768, 12 heads; BERT's and
 * MPNet's intermediate 3072, ModernBERT-base's 1152 GeGLU with a window of 128 and every third layer global;
 * {@code --layers}, 4 by default) written in each architecture's Hugging Face layout, then passes of 8 x 128 and 1 x 512
 * tokens timed in alternation, and each one's GFLOP/s (its own count of multiply-adds) with its ratio to BERT's.
 * {@code --long}: a ModernBERT-base-shaped encoder (22 layers, vocabulary 50368) on one text of 512 and one of 8,192
 * tokens, timed in alternation, the cost per token of each, and the process's peak resident memory against the weights. DeBERTa-v3-base's
 * shape counts its two position terms as the products they are (each token against 512 relative positions).
 *
 * <pre>bench/run architectures [--layers N] [--rounds N] [--long]</pre>
 */
public final class ArchitectureBenchmark {
    private static final int HIDDEN = 768;
    private static final int HEADS = 12;
    private static final int INTERMEDIATE = 3072;
    private static final int VOCAB = 30527;
    /** Passes of 512 tokens per timed round of {@link #longTexts}: a 512-token text is 1/16 of an 8,192-token one's work or less. */
    private static final int SHORT_PASSES = 16;

    private ArchitectureBenchmark() {}

    public static void main(String[] args) throws IOException {
        boolean longTexts = List.of(args).contains("--long");
        String arch = stringArg(args, "--arch", "modernbert");
        int layers = intArg(args, "--layers", longTexts ? (arch.equals("modernbert") ? 22 : 12) : 4);
        int rounds = intArg(args, "--rounds", longTexts ? 3 : 9);
        Path work = Files.createTempDirectory("vectorbert-architectures");
        try {
            if (longTexts) {
                Path dir = work.resolve(arch);
                longTexts(Encoder.load(switch (arch) {
                    case "modernbert" -> writeModernBert(dir, layers, 50368);
                    case "nomicbert", "gte", "jinabert" -> writePostNorm(dir, arch, layers);
                    default -> throw new IllegalArgumentException("--arch: modernbert, nomicbert, gte or jinabert, not " + arch);
                }), arch, rounds);
                return;
            }
            Map<String, Encoder> encoders = new LinkedHashMap<>();
            encoders.put("bert", Encoder.load(write(work.resolve("bert"), "bert", layers)));
            encoders.put("mpnet", Encoder.load(write(work.resolve("mpnet"), "mpnet", layers)));
            encoders.put("modernbert", Encoder.load(writeModernBert(work.resolve("modernbert"), layers, VOCAB)));
            for (String type : List.of("nomicbert", "gte", "jinabert")) {
                encoders.put(type, Encoder.load(writePostNorm(work.resolve(type), type, layers)));
            }
            encoders.put("deberta", Encoder.load(writeDeberta(work.resolve("deberta"), layers)));
            System.out.printf("%d layers of base width, %d threads, %s%n", layers, Parallel.threads(), Runtime.version());
            againstBert(encoders, rounds, 10, ArchitectureBenchmark::flops);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * One text of 512 tokens and one of 8,192 through {@code encoder}: time per token of each, and peak memory. The two
     * alternate, {@link #SHORT_PASSES} passes of 512 to one of 8,192 (about as long), so that a host whose speed drifts
     * over minutes slows both alike rather than whichever ran in the slow minutes.
     */
    private static void longTexts(Encoder encoder, String arch, int rounds) throws IOException {
        System.out.printf("%s base shape, %d layers, %.0f MB of weights, %d threads, %s%n", arch, encoder.config().numHiddenLayers(),
                encoder.weightBytes() / 1e6, Parallel.threads(), Runtime.version());
        Batch short512 = EncoderBenchmark.batch(1, 512, VOCAB);
        Batch long8192 = EncoderBenchmark.batch(1, 8192, VOCAB);
        Measure[] m = Measure.interleaved(1, rounds, () -> {
            for (int i = 0; i < SHORT_PASSES; i++) {
                encoder.forward(short512, Encoder.Request.lastHiddenState());
            }
        }, () -> encoder.forward(long8192, Encoder.Request.lastHiddenState()));
        int[] lengths = {512, 8192};
        int[] passes = {SHORT_PASSES, 1};
        double[] perToken = new double[2];
        for (int i = 0; i < 2; i++) {
            double pass = m[i].medianSeconds() / passes[i];
            perToken[i] = pass / lengths[i];
            System.out.printf("1 x %-5d: median %8.1f ms (best %8.1f), %.3f ms a token, %5.0f GFLOP/s%n", lengths[i],
                    pass * 1e3, m[i].minSeconds() / passes[i] * 1e3, perToken[i] * 1e3, flops(encoder, 1, lengths[i]) / 1e9 / pass);
        }
        long peak = peakResidentBytes();
        System.out.printf("cost per token at 8192 / at 512: %.2fx; peak resident memory %.0f MB = weights + %.0f MB%n",
                perToken[1] / perToken[0], peak / 1e6, (peak - encoder.weightBytes()) / 1e6);
    }

    /** The process's peak resident set (VmHWM), in bytes. */
    static long peakResidentBytes() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
            }
        }
        return -1;
    }

    /** A pass's multiply-adds, counted twice, by an encoder's own count. */
    interface Flops {
        double of(Encoder encoder, int size, int length);
    }

    /**
     * Passes of 8 x 128 and 1 x 512 tokens over each of {@code encoders} (BERT's first) in alternation: each one's median
     * and best time, its GFLOP/s by {@code flops} and their ratio to BERT's, names in columns of {@code width}.
     */
    static void againstBert(Map<String, Encoder> encoders, int rounds, int width, Flops flops) {
        for (int[] shape : new int[][] {{8, 128}, {1, 512}}) {
            Batch batch = EncoderBenchmark.batch(shape[0], shape[1], VOCAB);
            List<Runnable> tasks = new ArrayList<>();
            encoders.values().forEach(e -> tasks.add(() -> e.forward(batch, Encoder.Request.lastHiddenState())));
            Measure[] m = Measure.interleaved(3, rounds, tasks.toArray(Runnable[]::new));
            int i = 0;
            double bert = 0;
            for (Map.Entry<String, Encoder> e : encoders.entrySet()) {
                double gflops = flops.of(e.getValue(), shape[0], shape[1]) / 1e9 / m[i].medianSeconds();
                bert = i == 0 ? gflops : bert;
                System.out.printf("%-" + width + "s %d x %-3d: median %7.1f ms (best %7.1f), %5.0f GFLOP/s, %.2fx BERT's%n", e.getKey(),
                        shape[0], shape[1], m[i].medianSeconds() * 1e3, m[i].minSeconds() * 1e3, gflops, gflops / bert);
                i++;
            }
        }
    }

    /**
     * Multiply-adds, counted twice, of a pass: the linear layers (ModernBERT's fused Wqkv and GeGLU counted as the products
     * they are) and both attention products, over the keys each query sees.
     */
    static double flops(Encoder encoder, int size, int length) {
        if (encoder.config() instanceof BertConfig c) {
            return EncoderBenchmark.flops(c, size, length);
        }
        if (encoder.config() instanceof DebertaV2Config c) {
            // BERT's products, plus each of c2p and p2c: every token's query (key) against the 2·span position keys (queries)
            double tokens = (double) size * length;
            double h = c.hiddenSize();
            int terms = c.scaleFactor() - 1;
            return c.numHiddenLayers() * (2 * tokens * (4 * h * h + 2 * h * c.intermediateSize()) + 2 * 2 * tokens * length * h
                    + terms * 2 * tokens * 2.0 * c.relativeSpan() * h);
        }
        int gated = switch (encoder.config()) {
            case NomicBertConfig c -> c.innerSize();
            case GteConfig c -> c.intermediateSize();
            case JinaBertConfig c -> c.intermediateSize();
            default -> 0;
        };
        if (gated > 0) {
            double tokens = (double) size * length;
            double h = encoder.config().hiddenSize();
            return encoder.config().numHiddenLayers() * (2 * tokens * (4 * h * h + 3 * h * gated) + 2 * 2 * tokens * length * h);
        }
        ModernBertConfig c = (ModernBertConfig) encoder.config();
        double tokens = (double) size * length;
        double h = c.hiddenSize();
        double total = 0;
        for (int l = 0; l < c.numHiddenLayers(); l++) {
            double keys = c.isGlobal(l) ? length : Math.min(length, 2 * c.halfWindow() + 1);
            total += 2 * tokens * (4 * h * h + 3 * h * c.intermediateSize()) + 2 * 2 * tokens * keys * h;
        }
        return total;
    }

    /** A ModernBertModel directory of base width with random weights: no prefix, no biases, as the hub's base model. */
    private static Path writeModernBert(Path dir, int layers, int vocab) throws IOException {
        Files.createDirectories(dir);
        int intermediate = 1152;
        Files.writeString(dir.resolve("config.json"), """
                {"model_type": "modernbert", "architectures": ["ModernBertModel"], "vocab_size": %d, "hidden_size": %d,
                 "num_hidden_layers": %d, "num_attention_heads": %d, "intermediate_size": %d, "hidden_activation": "gelu",
                 "max_position_embeddings": 8192, "global_attn_every_n_layers": 3, "local_attention": 128,
                 "global_rope_theta": 160000.0, "local_rope_theta": 10000.0, "norm_eps": 1e-05, "norm_bias": false,
                 "attention_bias": false, "mlp_bias": false, "pad_token_id": 50283}
                """.formatted(vocab, HIDDEN, layers, HEADS, intermediate));
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        spec(specs, "embeddings.tok_embeddings.weight", vocab, HIDDEN);
        spec(specs, "embeddings.norm.weight", HIDDEN);
        for (int l = 0; l < layers; l++) {
            String p = "layers." + l + ".";
            if (l > 0) {
                spec(specs, p + "attn_norm.weight", HIDDEN);
            }
            spec(specs, p + "attn.Wqkv.weight", 3 * HIDDEN, HIDDEN);
            spec(specs, p + "attn.Wo.weight", HIDDEN, HIDDEN);
            spec(specs, p + "mlp_norm.weight", HIDDEN);
            spec(specs, p + "mlp.Wi.weight", 2 * intermediate, HIDDEN);
            spec(specs, p + "mlp.Wo.weight", HIDDEN, intermediate);
        }
        spec(specs, "final_norm.weight", HIDDEN);
        writeRandom(dir, specs);
        return dir;
    }

    /**
     * A base-width model directory of a post-LN gated architecture with random weights in its hub layout:
     * nomic-embed-text-v1.5's (SwiGLU, no biases), gte-base-en-v1.5's (gated GELU, NTK ×2) or jina-embeddings-v2-base-en's
     * (GeGLU, ALiBi).
     */
    private static Path writePostNorm(Path dir, String type, int layers) throws IOException {
        Files.createDirectories(dir);
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        spec(specs, "embeddings.word_embeddings.weight", VOCAB + 1, HIDDEN);
        switch (type) {
            case "nomicbert" -> {
                Files.writeString(dir.resolve("config.json"), """
                        {"model_type": "nomic_bert", "architectures": ["NomicBertModel"], "vocab_size": %d, "n_embd": %d, "n_layer": %d,
                         "n_head": %d, "n_inner": %d, "n_positions": 8192, "max_trained_positions": 2048, "layer_norm_epsilon": 1e-12,
                         "rotary_emb_fraction": 1.0, "rotary_emb_base": 1000, "rotary_emb_interleaved": false, "rotary_scaling_factor": 2,
                         "qkv_proj_bias": false, "mlp_fc1_bias": false, "mlp_fc2_bias": false, "activation_function": "swiglu",
                         "prenorm": false, "type_vocab_size": 2}
                        """.formatted(VOCAB + 1, HIDDEN, layers, HEADS, INTERMEDIATE));
                spec(specs, "embeddings.token_type_embeddings.weight", 2, HIDDEN);
                norm(specs, "emb_ln");
                for (int l = 0; l < layers; l++) {
                    String p = "encoder.layers." + l + ".";
                    spec(specs, p + "attn.Wqkv.weight", 3 * HIDDEN, HIDDEN);
                    spec(specs, p + "attn.out_proj.weight", HIDDEN, HIDDEN);
                    spec(specs, p + "mlp.fc11.weight", INTERMEDIATE, HIDDEN);
                    spec(specs, p + "mlp.fc12.weight", INTERMEDIATE, HIDDEN);
                    spec(specs, p + "mlp.fc2.weight", HIDDEN, INTERMEDIATE);
                    norm(specs, p + "norm1");
                    norm(specs, p + "norm2");
                }
            }
            case "gte" -> {
                Files.writeString(dir.resolve("config.json"), """
                        {"model_type": "new", "architectures": ["NewModel"], "vocab_size": %d, "hidden_size": %d, "num_hidden_layers": %d,
                         "num_attention_heads": %d, "intermediate_size": %d, "max_position_embeddings": 8192, "layer_norm_eps": 1e-12,
                         "hidden_act": "gelu", "type_vocab_size": 0, "rope_theta": 500000, "rope_scaling": {"type": "ntk", "factor": 2.0},
                         "pack_qkv": true, "position_embedding_type": "rope", "layer_norm_type": "layer_norm"}
                        """.formatted(VOCAB + 1, HIDDEN, layers, HEADS, INTERMEDIATE));
                norm(specs, "embeddings.LayerNorm");
                for (int l = 0; l < layers; l++) {
                    String p = "encoder.layer." + l + ".";
                    spec(specs, p + "attention.qkv_proj.weight", 3 * HIDDEN, HIDDEN);
                    spec(specs, p + "attention.qkv_proj.bias", 3 * HIDDEN);
                    linear(specs, p + "attention.o_proj", HIDDEN, HIDDEN);
                    spec(specs, p + "mlp.up_gate_proj.weight", 2 * INTERMEDIATE, HIDDEN);
                    linear(specs, p + "mlp.down_proj", INTERMEDIATE, HIDDEN);
                    norm(specs, p + "attn_ln");
                    norm(specs, p + "mlp_ln");
                }
            }
            default -> {
                Files.writeString(dir.resolve("config.json"), """
                        {"model_type": "bert", "architectures": ["JinaBertForMaskedLM"], "auto_map": {"AutoModel":
                         "jinaai/jina-bert-implementation--modeling_bert.JinaBertModel"}, "vocab_size": %d, "hidden_size": %d,
                         "num_hidden_layers": %d, "num_attention_heads": %d, "intermediate_size": %d, "max_position_embeddings": 8192,
                         "layer_norm_eps": 1e-12, "hidden_act": "gelu", "type_vocab_size": 2, "position_embedding_type": "alibi",
                         "feed_forward_type": "geglu"}
                        """.formatted(VOCAB + 1, HIDDEN, layers, HEADS, INTERMEDIATE));
                spec(specs, "embeddings.token_type_embeddings.weight", 2, HIDDEN);
                norm(specs, "embeddings.LayerNorm");
                for (int l = 0; l < layers; l++) {
                    String p = "encoder.layer." + l + ".";
                    for (String n : List.of("query", "key", "value")) {
                        linear(specs, p + "attention.self." + n, HIDDEN, HIDDEN);
                    }
                    linear(specs, p + "attention.output.dense", HIDDEN, HIDDEN);
                    norm(specs, p + "attention.output.LayerNorm");
                    spec(specs, p + "mlp.gated_layers.weight", 2 * INTERMEDIATE, HIDDEN);
                    linear(specs, p + "mlp.wo", INTERMEDIATE, HIDDEN);
                    norm(specs, p + "mlp.layernorm");
                }
            }
        }
        writeRandom(dir, specs);
        return dir;
    }

    /**
     * A DebertaV2Model directory shaped as microsoft/deberta-v3-base (256 log buckets, p2c and c2p through the shared
     * projections, normalised relative embeddings, no absolute positions) with BERT's vocabulary and random weights.
     */
    private static Path writeDeberta(Path dir, int layers) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("config.json"), """
                {"model_type": "deberta-v2", "architectures": ["DebertaV2Model"], "vocab_size": %d, "hidden_size": %d,
                 "num_hidden_layers": %d, "num_attention_heads": %d, "intermediate_size": %d, "hidden_act": "gelu",
                 "max_position_embeddings": 512, "type_vocab_size": 0, "layer_norm_eps": 1e-7, "relative_attention": true,
                 "position_buckets": 256, "max_relative_positions": -1, "pos_att_type": ["p2c", "c2p"], "share_att_key": true,
                 "norm_rel_ebd": "layer_norm", "position_biased_input": false}
                """.formatted(VOCAB, HIDDEN, layers, HEADS, INTERMEDIATE));
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        spec(specs, "embeddings.word_embeddings.weight", VOCAB, HIDDEN);
        norm(specs, "embeddings.LayerNorm");
        spec(specs, "encoder.rel_embeddings.weight", 512, HIDDEN);
        norm(specs, "encoder.LayerNorm");
        for (int l = 0; l < layers; l++) {
            String p = "encoder.layer." + l + ".";
            for (String n : List.of("query_proj", "key_proj", "value_proj")) {
                linear(specs, p + "attention.self." + n, HIDDEN, HIDDEN);
            }
            linear(specs, p + "attention.output.dense", HIDDEN, HIDDEN);
            norm(specs, p + "attention.output.LayerNorm");
            linear(specs, p + "intermediate.dense", HIDDEN, INTERMEDIATE);
            linear(specs, p + "output.dense", INTERMEDIATE, HIDDEN);
            norm(specs, p + "output.LayerNorm");
        }
        writeRandom(dir, specs);
        return dir;
    }

    /** A model directory of {@code type} with random weights in its Hugging Face layout. */
    static Path write(Path dir, String type, int layers) throws IOException {
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
        writeRandom(dir, specs);
        return dir;
    }

    /** model.safetensors of {@code specs}, normal with std 0.02 but norm weights, which are 1; BF16 specs rounded down to it. */
    static void writeRandom(Path dir, List<SafetensorsWriter.Spec> specs) {
        Random random = new Random(42);
        try (SafetensorsWriter w = new SafetensorsWriter(dir.resolve("model.safetensors"), specs, Map.of("format", "pt"))) {
            for (SafetensorsWriter.Spec s : specs) {
                int n = Math.toIntExact(s.shape()[0] * (s.shape().length > 1 ? s.shape()[1] : 1));
                float[] values = new float[n];
                boolean layerNormWeight = s.name().toLowerCase(Locale.ROOT).matches(".*(norm\\d?|_ln)\\.weight");
                for (int i = 0; i < n; i++) {
                    values[i] = layerNormWeight ? 1f : (float) (random.nextGaussian() * 0.02);
                }
                if (s.dtype() == DType.BF16) {
                    short[] bits = new short[n];
                    for (int i = 0; i < n; i++) {
                        bits[i] = (short) (Float.floatToRawIntBits(values[i]) >>> 16);
                    }
                    w.write(java.lang.foreign.MemorySegment.ofArray(bits));
                } else {
                    w.write(values);
                }
            }
            w.finish();
        }
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

    private static String stringArg(String[] args, String name, String fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }

    static int intArg(String[] args, String name, int fallback) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals(name)) {
                return Integer.parseInt(args[i + 1]);
            }
        }
        return fallback;
    }
}
