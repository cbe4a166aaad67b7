package org.vectorbert.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.Parallel;
import org.vectorbert.engine.Precision;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Gemma3Config;
import org.vectorbert.loader.ModelConfig;
import org.vectorbert.loader.Qwen3Config;
import org.vectorbert.loader.SafetensorsWriter;

/**
 * The decoder embedders beside BERT, with random weights in the hub's layout. By default, in one JVM: a
 * Qwen3-Embedding-0.6B-shaped and an EmbeddingGemma-300m-shaped encoder ({@code --layers}, 4 by default) and BERT-base,
 * passes of 8 x 128 and 1 x 512 tokens in alternation, each one's GFLOP/s (its own multiply-adds: the keys a causal query
 * sees, a sliding layer's window) and its ratio to BERT's. {@code --fresh}: the whole Qwen3-Embedding-0.6B shape
 * (28 layers, vocabulary 151,669, as the hub publishes it: bf16 in two shards) embeds a query of about 20 tokens and a
 * document of about 500, each in a fresh library JVM (Embeddings.load, then embed; no flag but --add-modules
 * jdk.incubator.vector), held as bf16 or widened to float32;
 * each JVM's times and peak resident memory. The first JVM of each precision packs the weights and caches them (in a
 * temporary directory), the second maps the cache, as every later start does. Run from the repository's root (the
 * tokenizer is the Qwen3 fixture's).
 *
 * <pre>bench/run decoders [--layers N] [--rounds N] | bench/run decoders --fresh</pre>
 */
public final class DecoderBenchmark {
    private static final Path FIXTURE = Path.of("engine/src/test/resources/architectures/qwen3/qwen3-embedding");

    private DecoderBenchmark() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--child")) {
            child(Path.of(args[1]), Precision.valueOf(args[2]), args[3]);
            return;
        }
        Path work = Files.createTempDirectory("vectorbert-decoders");
        try {
            if (List.of(args).contains("--fresh")) {
                fresh(work);
            } else {
                shapes(work, ArchitectureBenchmark.intArg(args, "--layers", 4), ArchitectureBenchmark.intArg(args, "--rounds", 9));
            }
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void shapes(Path work, int layers, int rounds) throws IOException {
        Map<String, Encoder> encoders = new LinkedHashMap<>();
        encoders.put("bert", Encoder.load(ArchitectureBenchmark.write(work.resolve("bert"), "bert", layers)));
        encoders.put("qwen3-0.6b", Encoder.load(writeQwen3(work.resolve("qwen3"), layers, 30527, DType.F32)));
        encoders.put("gemma3-300m", Encoder.load(writeGemma3(work.resolve("gemma3"), layers)));
        System.out.printf("%d layers each, %d threads, %s%n", layers, Parallel.threads(), Runtime.version());
        ArchitectureBenchmark.againstBert(encoders, rounds, 12, DecoderBenchmark::flops);
    }

    /** Multiply-adds, counted twice: every projection as the product it is, and both attention products over the keys each query sees. */
    static double flops(Encoder encoder, int size, int length) {
        ModelConfig config = encoder.config();
        if (!(config instanceof Qwen3Config) && !(config instanceof Gemma3Config)) {
            return ArchitectureBenchmark.flops(encoder, size, length);
        }
        double tokens = (double) size * length;
        double h = config.hiddenSize();
        double total = 0;
        for (int l = 0; l < config.numHiddenLayers(); l++) {
            double q;
            double kv;
            double inner;
            double keys;
            if (config instanceof Qwen3Config c) {
                q = c.numAttentionHeads() * c.headDim();
                kv = c.keyValueWidth();
                inner = c.intermediateSize();
                keys = (length + 1) / 2.0;
            } else {
                Gemma3Config c = (Gemma3Config) config;
                q = c.numAttentionHeads() * c.headDim();
                kv = c.numKeyValueHeads() * c.headDim();
                inner = c.intermediateSize();
                keys = c.sliding().get(l) ? Math.min(length, 2 * c.halfWindow() + 1) : length;
            }
            total += 2 * tokens * (2 * h * q + 2 * h * kv + 3 * h * inner) + 2 * 2 * tokens * keys * q;
        }
        return total;
    }

    /** Qwen3-Embedding-0.6B's shape (hidden 1024, 16 query and 8 key/value heads of 128, SwiGLU 3072) with random weights, no prefix. */
    static Path writeQwen3(Path dir, int layers, int vocab, DType dtype) throws IOException {
        Files.createDirectories(dir);
        int h = 1024;
        Files.writeString(dir.resolve("config.json"), """
                {"model_type": "qwen3", "architectures": ["Qwen3ForCausalLM"], "vocab_size": %d, "hidden_size": %d,
                 "num_hidden_layers": %d, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128,
                 "intermediate_size": 3072, "hidden_act": "silu", "max_position_embeddings": 32768, "rms_norm_eps": 1e-06,
                 "rope_theta": 1000000, "tie_word_embeddings": true, "attention_bias": false, "torch_dtype": "%s"}
                """.formatted(vocab, h, layers, dtype == DType.BF16 ? "bfloat16" : "float32"));
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        specs.add(new SafetensorsWriter.Spec("embed_tokens.weight", dtype, new long[] {vocab, h}));
        for (int l = 0; l < layers; l++) {
            String p = "layers." + l + ".";
            for (String[] t : new String[][] {{"input_layernorm.weight", "1024"}, {"post_attention_layernorm.weight", "1024"},
                {"self_attn.q_norm.weight", "128"}, {"self_attn.k_norm.weight", "128"}, {"self_attn.q_proj.weight", "2048", "1024"},
                {"self_attn.k_proj.weight", "1024", "1024"}, {"self_attn.v_proj.weight", "1024", "1024"},
                {"self_attn.o_proj.weight", "1024", "2048"}, {"mlp.gate_proj.weight", "3072", "1024"}, {"mlp.up_proj.weight", "3072", "1024"},
                {"mlp.down_proj.weight", "1024", "3072"}}) {
                long[] shape = Stream.of(t).skip(1).mapToLong(Long::parseLong).toArray();
                specs.add(new SafetensorsWriter.Spec(p + t[0], dtype, shape));
            }
        }
        specs.add(new SafetensorsWriter.Spec("norm.weight", dtype, new long[] {h}));
        ArchitectureBenchmark.writeRandom(dir, specs);
        return dir;
    }

    /** EmbeddingGemma-300m's shape (hidden 768, 3 query heads and 1 key/value head of 256, GeGLU 1152, window 512) with random weights. */
    private static Path writeGemma3(Path dir, int layers) throws IOException {
        Files.createDirectories(dir);
        int h = 768;
        int vocab = 30527;
        StringBuilder types = new StringBuilder();
        for (int l = 0; l < layers; l++) {
            types.append(l > 0 ? ", " : "").append((l + 1) % 6 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
        }
        Files.writeString(dir.resolve("config.json"), """
                {"model_type": "gemma3_text", "architectures": ["Gemma3TextModel"], "vocab_size": %d, "hidden_size": %d,
                 "num_hidden_layers": %d, "num_attention_heads": 3, "num_key_value_heads": 1, "head_dim": 256,
                 "intermediate_size": 1152, "hidden_activation": "gelu_pytorch_tanh", "max_position_embeddings": 2048,
                 "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "sliding_window": 512,
                 "layer_types": [%s], "query_pre_attn_scalar": 256, "use_bidirectional_attention": true}
                """.formatted(vocab, h, layers, types));
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        specs.add(new SafetensorsWriter.Spec("embed_tokens.weight", DType.F32, new long[] {vocab, h}));
        for (int l = 0; l < layers; l++) {
            String p = "layers." + l + ".";
            for (String[] t : new String[][] {{"input_layernorm.weight", "768"}, {"post_attention_layernorm.weight", "768"},
                {"pre_feedforward_layernorm.weight", "768"}, {"post_feedforward_layernorm.weight", "768"},
                {"self_attn.q_norm.weight", "256"}, {"self_attn.k_norm.weight", "256"}, {"self_attn.q_proj.weight", "768", "768"},
                {"self_attn.k_proj.weight", "256", "768"}, {"self_attn.v_proj.weight", "256", "768"},
                {"self_attn.o_proj.weight", "768", "768"}, {"mlp.gate_proj.weight", "1152", "768"}, {"mlp.up_proj.weight", "1152", "768"},
                {"mlp.down_proj.weight", "768", "1152"}}) {
                specs.add(new SafetensorsWriter.Spec(p + t[0], DType.F32, Stream.of(t).skip(1).mapToLong(Long::parseLong).toArray()));
            }
        }
        specs.add(new SafetensorsWriter.Spec("norm.weight", DType.F32, new long[] {h}));
        ArchitectureBenchmark.writeRandom(dir, specs);
        return dir;
    }

    /** The whole 0.6B shape in bf16 with the fixture's tokenizer and sentence-transformers files, then fresh JVMs over it. */
    private static void fresh(Path work) throws IOException, InterruptedException {
        Path dir = writeQwen3(work.resolve("qwen3-embedding-0.6b"), 28, 151669, DType.BF16);
        for (String f : List.of("tokenizer.json", "tokenizer_config.json", "modules.json", "config_sentence_transformers.json",
                "sentence_bert_config.json", "1_Pooling/config.json")) {
            Files.createDirectories(dir.resolve(f).getParent());
            Files.copy(FIXTURE.resolve(f), dir.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        // About 20 and 500 tokens through the fixture's small byte-level BPE (the count each JVM prints is exact).
        String query = "What is the capital of China? Explain gravity.";
        String document = ("The capital of China is Beijing. Gravity is a force that attracts two bodies towards each other, "
                + "and it gives weight to physical objects. ").repeat(8) + "The capital of China is Beijing.";
        System.out.printf("Qwen3-Embedding-0.6B shape, bf16 weights in the file (%.0f MB), %d threads, %s%n",
                Files.size(dir.resolve("model.safetensors")) / 1e6, Parallel.threads(), Runtime.version());
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        for (Precision precision : List.of(Precision.BF16, Precision.F32)) {
            Path cache = Files.createDirectories(work.resolve("packed-" + precision));
            for (String[] text : new String[][] {{"query, packing the weights", query}, {"query", query}, {"document", document}}) {
                // Both bare: the query's length is its own (Qwen3's instruction would add about 30 tokens of this BPE).
                // Only the flag a library user has: none of bench/run's tuning.
                List<String> command = new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector"));
                command.addAll(List.of("-Dvectorbert.packed=" + cache, "-cp", cp, DecoderBenchmark.class.getName(), "--child",
                        dir.toString(), precision.name(), text[1]));
                long start = System.nanoTime();
                Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes()).strip();
                int exit = p.waitFor();
                System.out.printf("%-4s %-26s: %s; process wall %.0f ms%s%n", precision, text[0], out.lines().reduce((a, b) -> b).orElse(""),
                        (System.nanoTime() - start) / 1e6, exit == 0 ? "" : " (exit " + exit + ": " + out + ")");
            }
        }
    }

    /** One fresh library JVM: load, embed one text, and say how long it took and how much memory it held. */
    private static void child(Path dir, Precision precision, String text) throws IOException {
        long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
        long t0 = System.nanoTime();
        Embeddings embeddings = Embeddings.load(dir.toString(), EmbeddingOptions.defaults().withPrecision(precision));
        long t1 = System.nanoTime();
        float[] v = embeddings.embed(text);
        long t2 = System.nanoTime();
        int tokens = embeddings.tokenizer().encode(embeddings.modelInput(text)).length();
        System.out.printf("%d tokens, load %.0f ms, embed %.0f ms, JVM start to vector %d ms, %d dims, peak resident %.0f MB (weights %.0f MB)%n",
                tokens, (t1 - t0) / 1e6, (t2 - t1) / 1e6, System.currentTimeMillis() - jvmStart, v.length,
                ArchitectureBenchmark.peakResidentBytes() / 1e6, embeddings.model().weightBytes() / 1e6);
    }
}
