package org.vectorbert.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.vectorbert.common.AtomicFiles;
import org.vectorbert.common.Json;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.loader.SafetensorsWriter;

/**
 * Converts a BERT-family ONNX export (a torch.onnx or optimum export of a Hugging Face model, as
 * Xenova publishes and langchain4j ships in jars) into a Hugging Face model directory. Weights are
 * named by the graph, not guessed from shapes: embeddings, biases and LayerNorm weights keep their
 * Hugging Face names in such exports, and each Linear weight, an unnamed {@code onnx::MatMul_N}
 * initializer of shape [in, out], feeds a MatMul whose output goes into the Add that consumes the
 * named bias. The config is read off the graph: sizes from the weights, the head count from the
 * Reshape that splits the query projection into heads, layer_norm_eps from the LayerNorm's Add,
 * the activation from its operators.
 *
 * <p>Sources: an {@code .onnx} file with its {@code tokenizer.json} (beside it, as
 * {@code NAME-tokenizer.json}, or one folder up as in optimum's {@code onnx/model.onnx}), a
 * directory holding {@code onnx/model.onnx} or {@code model.onnx}, or a langchain4j model jar as it
 * is. sentence-transformers files found beside the tokenizer come along; a langchain4j jar has
 * none, so its model class's settings are written in their place.
 */
public final class OnnxImport {
    /** Operators of int8-quantised exports. */
    private static final Set<String> QUANTISED = Set.of("DynamicQuantizeLinear", "MatMulInteger", "QLinearMatMul",
            "QuantizeLinear", "DequantizeLinear", "ConvInteger", "QAttention", "QEmbedLayerNormalization");
    /** Operators of onnxruntime's transformer optimiser, which fuses whole blocks. */
    private static final Set<String> FUSED = Set.of("Attention", "MultiHeadAttention", "EmbedLayerNormalization",
            "SkipLayerNormalization", "FastGelu", "BiasGelu", "SkipSimplifiedLayerNormalization");
    private static final Pattern LAYER = Pattern.compile("encoder\\.layer\\.(\\d+)\\.");
    /** sentence-transformers files that come along from beside the tokenizer. */
    private static final List<String> SENTENCE_TRANSFORMERS = List.of("modules.json", "sentence_bert_config.json",
            "config_sentence_transformers.json", "1_Pooling/config.json");

    private OnnxImport() {}

    /**
     * How langchain4j's in-process model classes embed, by their package in the jar: mean pooling
     * (all-MiniLM, e5) or [CLS] (bge), always normalised, truncated as the jar's tokenizer file says.
     */
    private static final Map<String, String> LANGCHAIN4J_POOLING = Map.of(
            "allminilml6v2", "mean", "allminilml6v2q", "mean", "e5smallv2", "mean", "e5smallv2q", "mean",
            "bgesmallenv15", "cls", "bgesmallenv15q", "cls", "bgesmallen", "cls", "bgesmallenq", "cls");

    /** Where an export's pieces are. */
    private record Source(String description, Path onnxFile, String onnxEntry, Path zip, byte[] tokenizer,
                          Map<String, byte[]> sentenceTransformers, String langchain4jModel) {}

    /** Whether {@code path} is something {@link #convert} reads: an .onnx file, a directory holding one, or a jar with one. */
    public static boolean isOnnx(Path path) {
        if (Files.isDirectory(path)) {
            return Files.isRegularFile(path.resolve("onnx/model.onnx")) || Files.isRegularFile(path.resolve("model.onnx"));
        }
        String name = path.getFileName() == null ? "" : path.getFileName().toString();
        if (name.endsWith(".onnx")) {
            return Files.isRegularFile(path);
        }
        if ((name.endsWith(".jar") || name.endsWith(".zip")) && Files.isRegularFile(path)) {
            try (ZipFile zip = new ZipFile(path.toFile())) {
                return zip.stream().anyMatch(e -> e.getName().endsWith(".onnx"));
            } catch (IOException e) {
                return true;   // a damaged jar: converting it says what is wrong with it
            }
        }
        return false;
    }

    /**
     * Converts the export at {@code source} into {@code outDir} (created): config.json,
     * model.safetensors, tokenizer.json, tokenizer_config.json and sentence-transformers files.
     * Files appear whole or not at all; anything the importer cannot name is refused in one line.
     */
    public static BertConfig convert(Path source, Path outDir, ModelResolver.Listener listener) {
        Source src = locate(source);
        try (Arena arena = Arena.ofConfined()) {
            Files.createDirectories(outDir);
            Path extracted = null;
            Path onnxFile = src.onnxFile();
            if (onnxFile == null) {
                extracted = outDir.resolve(".source.onnx");
                try (ZipFile zip = new ZipFile(src.zip().toFile()); InputStream in = zip.getInputStream(zip.getEntry(src.onnxEntry()))) {
                    Files.copy(in, extracted, StandardCopyOption.REPLACE_EXISTING);
                }
                onnxFile = extracted;
            }
            try {
                MemorySegment bytes;
                try (FileChannel channel = FileChannel.open(onnxFile, StandardOpenOption.READ)) {
                    bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                }
                OnnxGraph graph = OnnxGraph.parse(bytes, src.description());
                Imported imported = importGraph(graph, src.description());
                writeModel(imported, outDir, listener);
            } finally {
                if (extracted != null) {
                    Files.deleteIfExists(extracted);
                }
            }
            writeTokenizer(src, outDir);
            writeSentenceTransformers(src, outDir, listener);
            BertConfig config = BertConfig.load(outDir.resolve("config.json"));
            listener.log("imported " + src.description() + ": " + config.numHiddenLayers() + " layers, hidden " + config.hiddenSize()
                    + ", " + config.numAttentionHeads() + " heads, intermediate " + config.intermediateSize() + ", " + config.hiddenAct());
            return config;
        } catch (IOException e) {
            throw new LoaderException("cannot convert " + source + ": " + e.getMessage(), e);
        }
    }

    // ---- finding the pieces ----

    private static Source locate(Path path) {
        if (Files.isDirectory(path)) {
            Path onnx = Files.isRegularFile(path.resolve("onnx/model.onnx")) ? path.resolve("onnx/model.onnx") : path.resolve("model.onnx");
            if (!Files.isRegularFile(onnx)) {
                throw new LoaderException(path + " holds no onnx/model.onnx or model.onnx");
            }
            return fromFile(onnx);
        }
        String name = path.getFileName().toString();
        if (name.endsWith(".onnx")) {
            return fromFile(path);
        }
        return fromZip(path);
    }

    private static Source fromFile(Path onnx) {
        Path dir = onnx.toAbsolutePath().getParent();
        String stem = onnx.getFileName().toString().replaceFirst("\\.onnx$", "");
        List<Path> candidates = new ArrayList<>(List.of(dir.resolve("tokenizer.json"), dir.resolve(stem + "-tokenizer.json")));
        if (dir.getParent() != null) {
            candidates.add(dir.getParent().resolve("tokenizer.json"));
        }
        Path tokenizer = candidates.stream().filter(Files::isRegularFile).findFirst().orElseThrow(() -> new LoaderException(
                onnx + " has no tokenizer.json beside it (looked for " + candidates.stream().map(Path::toString)
                        .reduce((a, b) -> a + ", " + b).orElse("") + ")"));
        Map<String, byte[]> st = new LinkedHashMap<>();
        for (String file : SENTENCE_TRANSFORMERS) {
            Path p = tokenizer.getParent().resolve(file);
            if (Files.isRegularFile(p)) {
                st.put(file, read(p));
            }
        }
        if (Files.isDirectory(tokenizer.getParent().resolve("2_Normalize"))) {
            st.put("2_Normalize/", new byte[0]);
        }
        return new Source(onnx.toString(), onnx, null, null, read(tokenizer), st, null);
    }

    private static Source fromZip(Path jar) {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            List<ZipEntry> onnx = zip.stream().filter(e -> e.getName().endsWith(".onnx")).map(e -> (ZipEntry) e).toList();
            if (onnx.size() != 1) {
                throw new LoaderException(jar + " holds " + (onnx.isEmpty() ? "no .onnx file" : onnx.size() + " .onnx files ("
                        + String.join(", ", onnx.stream().map(ZipEntry::getName).toList()) + ")") + "; vectorbert reads jars with one");
            }
            ZipEntry tokenizer = zip.stream().filter(e -> e.getName().endsWith("tokenizer.json")).findFirst()
                    .orElseThrow(() -> new LoaderException(jar + " holds no tokenizer.json beside " + onnx.getFirst().getName()));
            String langchain4j = zip.stream().map(ZipEntry::getName)
                    .map(n -> {
                        Matcher m = Pattern.compile("dev/langchain4j/model/embedding/(?:onnx/)?([a-z0-9]+)/").matcher(n);
                        return m.lookingAt() ? m.group(1) : null;
                    })
                    .filter(n -> n != null && !n.equals("onnx")).findFirst().orElse(null);
            byte[] tokenizerBytes;
            try (InputStream in = zip.getInputStream(tokenizer)) {
                tokenizerBytes = in.readAllBytes();
            }
            return new Source(jar + "!" + onnx.getFirst().getName(), null, onnx.getFirst().getName(), jar, tokenizerBytes,
                    Map.of(), langchain4j);
        } catch (IOException e) {
            throw new LoaderException(jar + " is not a readable jar or zip (" + e.getMessage() + ")");
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new LoaderException("cannot read " + file + ": " + e.getMessage());
        }
    }

    // ---- naming the weights and reading the config off the graph ----

    /** A weight under its Hugging Face name, in Hugging Face's layout once {@code transpose} is applied. */
    record Weight(String name, OnnxGraph.Tensor tensor, boolean transpose) {
        long[] shape() {
            long[] d = tensor.dims();
            return transpose ? new long[] {d[1], d[0]} : d;
        }
    }

    record Imported(List<Weight> weights, ObjectNode config) {}

    static Imported importGraph(OnnxGraph graph, String source) {
        Set<String> ops = new TreeSet<>();
        graph.nodes().forEach(n -> ops.add(n.op()));
        Set<String> quantised = new TreeSet<>(ops);
        quantised.retainAll(QUANTISED);
        if (!quantised.isEmpty()) {
            throw new LoaderException(source + " is a quantised export (" + String.join(", ", quantised)
                    + " nodes): vectorbert reads float32 exports; use the model's float32 file (langchain4j: the artifact without -q)");
        }
        Set<String> fused = new TreeSet<>(ops);
        fused.retainAll(FUSED);
        if (!fused.isEmpty()) {
            throw new LoaderException(source + " is an optimised export with fused operators (" + String.join(", ", fused)
                    + "): vectorbert reads plain exports (torch.onnx or optimum without optimisation)");
        }
        Map<String, OnnxGraph.Tensor> init = graph.initializers();
        String prefix = init.containsKey("embeddings.word_embeddings.weight") ? ""
                : init.containsKey("bert.embeddings.word_embeddings.weight") ? "bert." : null;
        if (prefix == null) {
            throw new LoaderException(source + " is not a BERT encoder vectorbert understands: no embeddings.word_embeddings.weight"
                    + " initializer (" + init.size() + " initializers; operators: " + String.join(", ", ops) + ")");
        }
        for (OnnxGraph.Tensor t : init.values()) {
            if (t.external()) {
                throw new LoaderException(source + ": initializer " + t.name() + " keeps its data in an external file;"
                        + " vectorbert reads exports with the weights inside the .onnx file");
            }
        }
        Map<String, List<OnnxGraph.Node>> consumers = new HashMap<>();
        Map<String, OnnxGraph.Node> producers = new HashMap<>();
        for (OnnxGraph.Node n : graph.nodes()) {
            n.inputs().forEach(i -> consumers.computeIfAbsent(i, k -> new ArrayList<>()).add(n));
            n.outputs().forEach(o -> producers.put(o, n));
        }

        Map<String, Weight> weights = new LinkedHashMap<>();
        Set<String> placed = new LinkedHashSet<>();
        for (OnnxGraph.Node n : graph.nodes()) {
            if ((n.op().equals("MatMul") || n.op().equals("Gemm")) && n.inputs().size() > 1 && init.containsKey(n.inputs().get(1))) {
                OnnxGraph.Tensor w = init.get(n.inputs().get(1));
                // MatMul multiplies by [in, out]; Gemm too unless transB, which takes [out, in] as PyTorch stores it.
                boolean transposed = n.op().equals("MatMul")
                        || !n.attributes().containsKey("transB") || n.attributes().get("transB").i() == 0;
                String name = isHuggingFaceName(w.name()) ? w.name() : linearName(n, init, consumers, source);
                weights.put(name, new Weight(name, w, transposed));
                placed.add(w.name());
            }
        }
        for (OnnxGraph.Tensor t : init.values()) {
            if (placed.contains(t.name()) || t.name().endsWith("position_ids")) {
                continue;
            }
            if (!isHuggingFaceName(t.name())) {
                throw new LoaderException(source + ": cannot tell which weight initializer " + t.name() + " is (used by "
                        + String.join(", ", consumers.getOrDefault(t.name(), List.of()).stream().map(OnnxGraph.Node::op).toList())
                        + "); vectorbert reads exports whose weights the graph names");
            }
            weights.putIfAbsent(t.name(), new Weight(t.name(), t, false));
        }
        for (Weight w : weights.values()) {
            if (w.tensor().dataType() != OnnxGraph.FLOAT) {
                throw new LoaderException(source + ": weight " + w.name() + " has ONNX data type " + w.tensor().dataType()
                        + "; vectorbert reads float32 exports");
            }
            if (w.transpose() && w.tensor().dims().length != 2) {
                throw new LoaderException(source + ": weight " + w.name() + " is not a matrix");
            }
        }
        return new Imported(List.copyOf(weights.values()), config(graph, weights, prefix, producers, consumers, source));
    }

    private static boolean isHuggingFaceName(String name) {
        return !name.startsWith("onnx::") && (name.endsWith(".weight") || name.endsWith(".bias"));
    }

    /** A Linear weight's name: its MatMul's output feeds an Add with a named bias, X.bias, so it is X.weight. */
    private static String linearName(OnnxGraph.Node matmul, Map<String, OnnxGraph.Tensor> init,
                                     Map<String, List<OnnxGraph.Node>> consumers, String source) {
        if (matmul.op().equals("Gemm") && matmul.inputs().size() > 2 && matmul.inputs().get(2).endsWith(".bias")) {
            return matmul.inputs().get(2).replaceFirst("\\.bias$", ".weight");
        }
        for (OnnxGraph.Node add : consumers.getOrDefault(matmul.outputs().getFirst(), List.of())) {
            if (!add.op().equals("Add")) {
                continue;
            }
            for (String in : add.inputs()) {
                if (init.containsKey(in) && in.endsWith(".bias")) {
                    return in.replaceFirst("\\.bias$", ".weight");
                }
            }
        }
        throw new LoaderException(source + ": cannot name the weight " + matmul.inputs().get(1) + " of " + matmul.op() + " node "
                + matmul.name() + ": its output feeds no Add with a named bias");
    }

    private static ObjectNode config(OnnxGraph graph, Map<String, Weight> weights, String prefix,
                                     Map<String, OnnxGraph.Node> producers, Map<String, List<OnnxGraph.Node>> consumers, String source) {
        long[] words = require(weights, prefix + "embeddings.word_embeddings.weight", source).shape();
        long[] positions = require(weights, prefix + "embeddings.position_embeddings.weight", source).shape();
        long[] types = require(weights, prefix + "embeddings.token_type_embeddings.weight", source).shape();
        long[] intermediate = require(weights, prefix + "encoder.layer.0.intermediate.dense.weight", source).shape();
        TreeSet<Integer> layers = new TreeSet<>();
        for (String name : weights.keySet()) {
            Matcher m = LAYER.matcher(name);
            if (m.find()) {
                layers.add(Integer.parseInt(m.group(1)));
            }
        }
        int hidden = (int) words[1];
        int heads = heads(prefix + "encoder.layer.0.attention.self.query.bias", hidden, producers, consumers, graph, source);
        ObjectNode c = Json.object();
        c.putArray("architectures").add("BertModel");
        c.put("model_type", "bert");
        c.put("vocab_size", words[0]);
        c.put("hidden_size", hidden);
        c.put("num_hidden_layers", layers.last() + 1);
        c.put("num_attention_heads", heads);
        c.put("intermediate_size", intermediate[0]);
        c.put("hidden_act", activation(graph, weights.containsKey(prefix + "pooler.dense.weight"), source));
        c.put("max_position_embeddings", positions[0]);
        c.put("type_vocab_size", types[0]);
        c.put("layer_norm_eps", layerNormEps(prefix + "embeddings.LayerNorm.weight", producers, consumers, graph, source));
        c.put("pad_token_id", 0);
        c.put("position_embedding_type", "absolute");
        c.put("converted_from", "onnx");
        return c;
    }

    private static Weight require(Map<String, Weight> weights, String name, String source) {
        Weight w = weights.get(name);
        if (w == null) {
            throw new LoaderException(source + " is not a BERT encoder vectorbert understands: no " + name);
        }
        return w;
    }

    /**
     * The head count: the query projection's Add feeds a Reshape to [batch, seq, heads, head size],
     * whose shape is a Concat of constants (or a constant); its last two values are heads and head size.
     */
    private static int heads(String queryBias, int hidden, Map<String, OnnxGraph.Node> producers,
                             Map<String, List<OnnxGraph.Node>> consumers, OnnxGraph graph, String source) {
        for (OnnxGraph.Node add : consumers.getOrDefault(queryBias, List.of())) {
            for (OnnxGraph.Node reshape : consumers.getOrDefault(add.outputs().getFirst(), List.of())) {
                if (!reshape.op().equals("Reshape") || reshape.inputs().size() < 2) {
                    continue;
                }
                List<Long> shape = constantValues(reshape.inputs().get(1), producers, graph);
                if (shape.size() >= 2) {
                    long h = shape.get(shape.size() - 2);
                    long d = shape.get(shape.size() - 1);
                    if (h > 0 && d > 0 && h * d == hidden) {
                        return (int) h;
                    }
                }
            }
        }
        throw new LoaderException(source + ": cannot find the number of attention heads (no Reshape of the query projection"
                + " into heads of a constant size)");
    }

    /** The integer values behind {@code name}: an initializer, a Constant node, or a Concat of those (unknown parts skipped). */
    private static List<Long> constantValues(String name, Map<String, OnnxGraph.Node> producers, OnnxGraph graph) {
        OnnxGraph.Tensor t = graph.initializers().get(name);
        OnnxGraph.Node node = producers.get(name);
        if (t == null && node != null && node.op().equals("Constant") && node.attributes().containsKey("value")) {
            t = node.attributes().get("value").t();
        }
        if (t != null) {
            return t.dataType() == OnnxGraph.INT64 ? java.util.Arrays.stream(t.longs()).boxed().toList() : List.of();
        }
        List<Long> values = new ArrayList<>();
        if (node != null && node.op().equals("Concat")) {
            for (String in : node.inputs()) {
                values.addAll(constantValues(in, producers, graph));
            }
        }
        return values;
    }

    /** The LayerNorm epsilon: weight·((x - mean)/sqrt(var + eps)), so Mul ← Div ← Sqrt ← Add(var, eps). */
    private static double layerNormEps(String normWeight, Map<String, OnnxGraph.Node> producers,
                                       Map<String, List<OnnxGraph.Node>> consumers, OnnxGraph graph, String source) {
        for (OnnxGraph.Node n : graph.nodes()) {
            if (n.op().equals("LayerNormalization")) {
                OnnxGraph.Attribute eps = n.attributes().get("epsilon");
                return eps == null ? 1e-5 : Double.parseDouble(Float.toString(eps.f()));
            }
        }
        for (OnnxGraph.Node mul : consumers.getOrDefault(normWeight, List.of())) {
            for (String in : mul.inputs()) {
                OnnxGraph.Node div = producers.get(in);
                if (div == null || !div.op().equals("Div") || div.inputs().size() < 2) {
                    continue;
                }
                OnnxGraph.Node sqrt = producers.get(div.inputs().get(1));
                OnnxGraph.Node add = sqrt != null && sqrt.op().equals("Sqrt") ? producers.get(sqrt.inputs().getFirst()) : null;
                if (add == null || !add.op().equals("Add")) {
                    continue;
                }
                for (String operand : add.inputs()) {
                    OnnxGraph.Node constant = producers.get(operand);
                    OnnxGraph.Tensor t = constant != null && constant.op().equals("Constant") ? constant.attributes().get("value").t()
                            : graph.initializers().get(operand);
                    if (t != null && t.dataType() == OnnxGraph.FLOAT && t.elements() == 1) {
                        return Double.parseDouble(Float.toString(t.floats()[0]));
                    }
                }
            }
        }
        throw new LoaderException(source + ": cannot find the LayerNorm epsilon (no LayerNormalization node, and no"
                + " Div by Sqrt(Add(variance, epsilon)) before the embeddings' LayerNorm weight)");
    }

    /** gelu when the graph computes erf, gelu_new when tanh beyond the pooler's, relu when Relu. */
    private static String activation(OnnxGraph graph, boolean pooler, String source) {
        long erf = graph.nodes().stream().filter(n -> n.op().equals("Erf")).count();
        long tanh = graph.nodes().stream().filter(n -> n.op().equals("Tanh")).count();
        long relu = graph.nodes().stream().filter(n -> n.op().equals("Relu")).count();
        if (erf > 0) {
            return "gelu";
        }
        if (tanh > (pooler ? 1 : 0)) {
            return "gelu_new";
        }
        if (relu > 0) {
            return "relu";
        }
        throw new LoaderException(source + ": cannot tell the feed-forward activation (no Erf, Tanh or Relu nodes)");
    }

    // ---- writing the model directory ----

    private static void writeModel(Imported imported, Path outDir, ModelResolver.Listener listener) throws IOException {
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        for (Weight w : imported.weights()) {
            specs.add(new SafetensorsWriter.Spec(w.name(), DType.F32, w.shape()));
        }
        long total = imported.weights().stream().mapToLong(w -> w.tensor().data().byteSize()).sum();
        long done = 0;
        try (SafetensorsWriter writer = new SafetensorsWriter(outDir.resolve("model.safetensors"), specs,
                Map.of("format", "pt", "converted_from", "onnx"))) {
            for (Weight w : imported.weights()) {
                if (w.transpose()) {
                    long[] d = w.tensor().dims();
                    writer.write(TfImport.transpose(w.tensor().floats(), (int) d[0], (int) d[1]));
                } else {
                    writer.write(w.tensor().data());
                }
                done += w.tensor().data().byteSize();
                listener.progress("converting", done, total);
            }
            writer.finish();
        }
        AtomicFiles.write(outDir.resolve("config.json"),
                Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsBytes(imported.config()));
    }

    private static void writeTokenizer(Source src, Path outDir) throws IOException {
        JsonNode tokenizer = Json.parse(src.tokenizer(), "the tokenizer.json of " + src.description(), LoaderException::new);
        AtomicFiles.write(outDir.resolve("tokenizer.json"), src.tokenizer());
        boolean lower = tokenizer.path("normalizer").path("lowercase").asBoolean(true);
        AtomicFiles.write(outDir.resolve("tokenizer_config.json"),
                ("{\"do_lower_case\": " + lower + "}\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The sentence-transformers files found beside the source; for a langchain4j jar, which has none,
     * the settings its model class embeds with.
     */
    private static void writeSentenceTransformers(Source src, Path outDir, ModelResolver.Listener listener) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>(src.sentenceTransformers());
        if (src.langchain4jModel() != null) {
            String pooling = LANGCHAIN4J_POOLING.getOrDefault(src.langchain4jModel(), "mean");
            JsonNode truncation = Json.parse(src.tokenizer(), "tokenizer.json", LoaderException::new).path("truncation");
            int maxLength = truncation.path("max_length").asInt(512);
            files.put("modules.json", """
                    [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                     {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                     {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
                    """.getBytes(StandardCharsets.UTF_8));
            files.put("1_Pooling/config.json", ("{\"pooling_mode_cls_token\": " + pooling.equals("cls")
                    + ", \"pooling_mode_mean_tokens\": " + pooling.equals("mean") + "}\n").getBytes(StandardCharsets.UTF_8));
            files.put("2_Normalize/", new byte[0]);
            files.put("sentence_bert_config.json", ("{\"max_seq_length\": " + maxLength + ", \"do_lower_case\": false}\n")
                    .getBytes(StandardCharsets.UTF_8));
            listener.log(src.description() + " carries no sentence-transformers settings: using what langchain4j's class for it does ("
                    + pooling + " pooling, normalised, texts cut at " + maxLength + " tokens as its tokenizer file says)");
        }
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            Path target = outDir.resolve(f.getKey());
            if (f.getKey().endsWith("/")) {
                Files.createDirectories(target);
            } else {
                Files.createDirectories(target.getParent());
                AtomicFiles.write(target, f.getValue());
            }
        }
    }
}
