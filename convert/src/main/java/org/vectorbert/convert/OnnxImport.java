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
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.vectorbert.common.AtomicFiles;
import org.vectorbert.common.Json;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Family;
import org.vectorbert.loader.Langchain4jSettings;
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
 * <p>Families: BERT, DistilBERT, RoBERTa (XLM-R and CamemBERT are the same graph) and ELECTRA, told
 * apart by the names, never by shapes (see {@link #family}); each family's names come from the
 * loader's {@link Family} tables, so what is written is what the loader reads. The encoder (a
 * {@code *Model}, what feature-extraction exports hold, with BERT's and RoBERTa's pooler when it is
 * there) is imported; a task head in the export ({@code classifier}, {@code qa_outputs}, ...) is left
 * out and named in the log, since the graph carries neither its labels nor its class. A weight
 * under the encoder's names that the family does not have is refused, naming it and its shape.
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
    /** sentence-transformers files that come along from beside the tokenizer. */
    private static final List<String> SENTENCE_TRANSFORMERS = List.of("modules.json", "sentence_bert_config.json",
            "config_sentence_transformers.json", "1_Pooling/config.json");

    private OnnxImport() {}

    /** Where an export's pieces are. */
    private record Source(String description, Path onnxFile, String onnxEntry, Path zip, byte[] tokenizer,
                          Map<String, byte[]> sentenceTransformers, Langchain4jJar langchain4j, byte[] config) {}

    /**
     * Whether {@code path} is something {@link #convert} reads: an .onnx file, a directory holding one, or a jar with one.
     *
     * @param path a file or directory
     * @return whether {@link #convert} takes it
     */
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
     *
     * @param source   what {@link #isOnnx} accepts
     * @param outDir   the model directory to create
     * @param listener hears how the conversion goes
     * @return the converted model's configuration
     */
    public static BertConfig convert(Path source, Path outDir, ModelResolver.Listener listener) {
        Source src = locate(source);
        JsonNode tokenizer = Json.parse(src.tokenizer(), "the tokenizer.json of " + src.description(), LoaderException::new);
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
                JsonNode exportConfig = src.config() == null ? null
                        : Json.parse(src.config(), "the config.json beside " + src.description(), LoaderException::new);
                Imported imported = importGraph(graph, src.description(), tokenizer, exportConfig);
                if (imported.head() != null) {
                    listener.log(src.description() + ": imported the export's " + imported.head());
                }
                if (!imported.leftOut().isEmpty()) {
                    listener.log(src.description() + ": left out " + String.join(", ", imported.leftOut()) + ": vectorbert imports"
                            + " the encoder and a sequence-classification, token-classification or question-answering head from ONNX");
                }
                writeModel(imported, outDir, listener);
            } finally {
                if (extracted != null) {
                    Files.deleteIfExists(extracted);
                }
            }
            writeTokenizer(src, tokenizer, outDir);
            writeSentenceTransformers(src, outDir, listener);
            BertConfig config = BertConfig.load(outDir.resolve("config.json"));
            listener.log("imported " + src.description() + " as " + config.modelType() + ": " + config.numHiddenLayers()
                    + " layers, hidden " + config.hiddenSize() + ", " + config.numAttentionHeads() + " heads, intermediate "
                    + config.intermediateSize() + ", " + config.hiddenAct());
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
        // optimum writes the model's config.json beside model.onnx (or one folder up, beside the tokenizer): its labels.
        Path config = Stream.of(dir.resolve("config.json"), tokenizer.getParent().resolve("config.json"))
                .filter(Files::isRegularFile).findFirst().orElse(null);
        return new Source(onnx.toString(), onnx, null, null, read(tokenizer), st, null, config == null ? null : read(config));
    }

    private static Source fromZip(Path jar) {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            Langchain4jJar langchain4j = Langchain4jJar.isLangchain4j(zip) ? Langchain4jJar.read(jar, zip) : null;
            if (langchain4j != null && langchain4j.quantised()) {
                throw new LoaderException(jar + " is langchain4j's quantised (int8) " + langchain4j.simpleName() + ": vectorbert reads"
                        + " float32 exports; use the artifact without -q, which vectorbert runs at float32's accuracy");
            }
            List<ZipEntry> onnx = langchain4j != null && langchain4j.onnxEntry() != null ? List.of(zip.getEntry(langchain4j.onnxEntry()))
                    : zip.stream().filter(e -> e.getName().endsWith(".onnx")).map(e -> (ZipEntry) e).toList();
            if (onnx.size() != 1) {
                throw new LoaderException(jar + " holds " + (onnx.isEmpty() ? "no .onnx file" : onnx.size() + " .onnx files ("
                        + String.join(", ", onnx.stream().map(ZipEntry::getName).toList()) + ")") + "; vectorbert reads jars with one");
            }
            ZipEntry tokenizer = langchain4j != null && langchain4j.tokenizerEntry() != null ? zip.getEntry(langchain4j.tokenizerEntry())
                    : zip.stream().filter(e -> e.getName().endsWith("tokenizer.json")).findFirst()
                    .orElseThrow(() -> new LoaderException(jar + " holds no tokenizer.json beside " + onnx.getFirst().getName()));
            byte[] tokenizerBytes;
            try (InputStream in = zip.getInputStream(tokenizer)) {
                tokenizerBytes = in.readAllBytes();
            }
            return new Source(jar + "!" + onnx.getFirst().getName(), null, onnx.getFirst().getName(), jar, tokenizerBytes,
                    Map.of(), langchain4j, null);
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

        /** Its name and shape as Hugging Face holds it, for messages: "classifier.weight [2, 32]". */
        String describe() {
            return name + " " + java.util.Arrays.toString(shape());
        }
    }

    /**
     * What an export imports as: the encoder's weights with its task head's, config.json, the weights
     * left out (part of a head, a masked-LM head: named with their shapes for the log), and the task
     * head imported, described for the log (null when there is none).
     */
    record Imported(List<Weight> weights, ObjectNode config, List<String> leftOut, String head) {}

    /**
     * A {@code *ForXxx} head whose weights the export keeps under its Hugging Face names.
     *
     * @param suffix  the class's name after the family's ({@code ForSequenceClassification})
     * @param names   the head's own weights, in the export's names
     * @param outputs its last layer's output width (the labels; 2 for question answering)
     */
    record TaskHead(String suffix, List<String> names, int outputs) {}

    /** BERT's names of an encoder layer's Linear and LayerNorm modules, after {@code bert.encoder.layer.N.}. */
    private static final List<String> LAYER_MODULES = List.of("attention.self.query", "attention.self.key", "attention.self.value",
            "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm");
    private static final String WORDS = "bert.embeddings.word_embeddings.weight";
    private static final String POSITIONS = "bert.embeddings.position_embeddings.weight";
    private static final String TOKEN_TYPES = "bert.embeddings.token_type_embeddings.weight";
    private static final String EMBEDDINGS_NORM = "bert.embeddings.LayerNorm.weight";
    private static final String PROJECTION = "bert.embeddings_project.weight";
    private static final String POOLER = "bert.pooler.dense.weight";

    /**
     * The encoder an export holds: its family (whose {@link Family#spellings} give its names for
     * BERT's, as the loader looks them up), whether its names carry the family's prefix
     * ({@code distilbert.embeddings...}, as a {@code *ForXxx} class saves them) or none (a
     * {@code *Model}), and the {@code model_type} to write.
     */
    record Encoder(Family family, boolean prefixed, String modelType) {
        /** This export's name for BERT's {@code canonical} ({@code bert.encoder.layer.0.attention.self.query.weight}). */
        String name(String canonical) {
            String full = family.spellings(canonical).getFirst();
            return prefixed ? full : full.substring(family.prefix().length() + 1);
        }

        /** What its names start with: {@code roberta.}, or nothing. */
        String root() {
            return prefixed ? family.prefix() + "." : "";
        }

        boolean is(String type) {
            return family.modelTypes().contains(type);
        }

        /** Whether {@code name} is among the base model's names (so a weight there that the family lacks is refused, not dropped). */
        boolean inEncoder(String name) {
            if (prefixed) {
                return name.startsWith(root());
            }
            return name.startsWith("embeddings.") || name.startsWith("embeddings_project.") || name.startsWith("pooler.")
                    || name.startsWith("encoder.") || name.startsWith("transformer.");
        }
    }

    /** {@link #importGraph(OnnxGraph, String, JsonNode, JsonNode)} without a tokenizer (the padding id then comes from the graph or the family). */
    static Imported importGraph(OnnxGraph graph, String source) {
        return importGraph(graph, source, null, null);
    }

    static Imported importGraph(OnnxGraph graph, String source, JsonNode tokenizer) {
        return importGraph(graph, source, tokenizer, null);
    }

    /**
     * The encoder (and task head) of {@code graph}. {@code exportConfig}, the config.json optimum writes beside
     * the export, or null, gives the head's labels; without it they are transformers' LABEL_0, LABEL_1, ...
     */
    static Imported importGraph(OnnxGraph graph, String source, JsonNode tokenizer, JsonNode exportConfig) {
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
        Encoder encoder = family(init, ops, tokenizer, source);
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
                if (w.dims().length != 2) {
                    throw new LoaderException(source + ": weight " + w.name() + " " + java.util.Arrays.toString(w.dims()) + " of "
                            + n.op() + " node " + n.name() + " is not a matrix");
                }
                // MatMul multiplies by [in, out]; Gemm too unless transB, which takes [out, in] as PyTorch stores it.
                boolean transposed = n.op().equals("MatMul")
                        || !n.attributes().containsKey("transB") || n.attributes().get("transB").i() == 0;
                String name = isHuggingFaceName(w.name()) ? w.name() : linearName(n, init, consumers, source);
                Weight previous = weights.put(name, new Weight(name, w, transposed));
                if (previous != null && previous.tensor() != w) {
                    throw new LoaderException(source + ": two initializers would both be " + name + " (" + previous.tensor().name()
                            + " " + java.util.Arrays.toString(previous.tensor().dims()) + " and " + w.name() + " "
                            + java.util.Arrays.toString(w.dims()) + "): the graph does not say which is the weight");
                }
                placed.add(w.name());
            }
        }
        for (OnnxGraph.Tensor t : init.values()) {
            // position_ids and token_type_ids are transformers' int64 buffers (positions 0..n, type 0), not weights.
            if (placed.contains(t.name()) || t.name().endsWith("position_ids") || t.name().endsWith("token_type_ids")) {
                continue;
            }
            if (!isHuggingFaceName(t.name())) {
                throw new LoaderException(source + ": cannot tell which weight initializer " + t.name() + " "
                        + java.util.Arrays.toString(t.dims()) + " is (used by "
                        + String.join(", ", consumers.getOrDefault(t.name(), List.of()).stream().map(OnnxGraph.Node::op).toList())
                        + "); vectorbert reads exports whose weights the graph names");
            }
            weights.putIfAbsent(t.name(), new Weight(t.name(), t, false));
        }

        // The encoder's names, and which of them it must have: embeddings, then every layer up to the last one found.
        Pattern layer = Pattern.compile(Pattern.quote(encoder.root() + encoder.family().layers() + ".") + "(\\d{1,6})\\.");
        TreeSet<Integer> layers = new TreeSet<>();
        for (String name : weights.keySet()) {
            Matcher m = layer.matcher(name);
            if (m.lookingAt()) {
                layers.add(Integer.parseInt(m.group(1)));
            }
        }
        if (layers.isEmpty()) {
            throw new LoaderException(source + " is not a " + encoder.family().name() + " encoder vectorbert understands: no "
                    + encoder.name("bert.encoder.layer.0.attention.self.query.weight") + " (no encoder layers named in the graph)");
        }
        Map<String, String> names = new LinkedHashMap<>();   // this export's name -> BERT's
        List<String> embeddings = new ArrayList<>(List.of(WORDS, POSITIONS, EMBEDDINGS_NORM, "bert.embeddings.LayerNorm.bias"));
        if (!encoder.is("distilbert")) {
            embeddings.add(TOKEN_TYPES);
        }
        requireAll(embeddings, encoder, weights, names, source);
        for (int l = 0; l <= layers.last(); l++) {   // a layer at a time, so that a stray "layer.99999" fails at once
            List<String> layerWeights = new ArrayList<>();
            for (String module : LAYER_MODULES) {
                layerWeights.add("bert.encoder.layer." + l + "." + module + ".weight");
                layerWeights.add("bert.encoder.layer." + l + "." + module + ".bias");
            }
            requireAll(layerWeights, encoder, weights, names, source);
        }
        List<String> optional = encoder.is("electra") ? List.of(PROJECTION, "bert.embeddings_project.bias")
                : encoder.is("distilbert") ? List.of() : List.of(POOLER, "bert.pooler.dense.bias");
        optional.forEach(canonical -> names.put(encoder.name(canonical), canonical));
        TaskHead head = taskHead(encoder, weights, source);
        if (head != null) {
            head.names().forEach(n -> names.putIfAbsent(n, n));
        }

        List<Weight> kept = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (Weight w : weights.values()) {
            if (names.containsKey(w.name())) {
                if (w.tensor().dataType() != OnnxGraph.FLOAT) {
                    throw new LoaderException(source + ": weight " + w.name() + " has ONNX data type " + w.tensor().dataType()
                            + "; vectorbert reads float32 exports");
                }
                long elements = 1;
                for (long d : w.tensor().dims()) {
                    elements = d < 0 || d > Integer.MAX_VALUE || elements > Long.MAX_VALUE / 4 / Math.max(d, 1) ? -1 : elements * d;
                    if (elements < 0) {
                        break;
                    }
                }
                if (elements < 0 || w.tensor().data().byteSize() != elements * 4) {
                    throw new LoaderException(source + ": weight " + w.describe() + " holds " + w.tensor().data().byteSize()
                            + " bytes of data, " + (elements < 0 ? "and a shape too large to hold"
                            : "not " + elements * 4 + " (4 a float32 value)"));
                }
                kept.add(w);
            } else if (encoder.inEncoder(w.name())) {
                throw new LoaderException(source + ": cannot map initializer " + w.describe() + ": it is named as part of the "
                        + encoder.family().name() + " encoder, but is no weight of one that vectorbert knows");
            } else {
                leftOut.add(w.describe());
            }
        }
        Map<String, Weight> byCanonical = new HashMap<>();
        kept.forEach(w -> byCanonical.put(names.get(w.name()), w));
        ObjectNode config = config(graph, encoder, byCanonical, layers.last() + 1, producers, consumers, tokenizer, source);
        String headDescription = null;
        if (head != null) {
            String architecture = config.get("architectures").get(0).asText().replaceFirst("Model$", "") + head.suffix();
            config.putArray("architectures").add(architecture);
            headDescription = architecture + " head (" + String.join(", ", head.names().stream()
                    .map(n -> weights.get(n).describe()).toList()) + ")" + labels(config, head, exportConfig, source);
        }
        return new Imported(List.copyOf(kept), config, leftOut.stream().sorted().toList(), headDescription);
    }

    /**
     * The task head an export of a {@code *ForXxx} class keeps, or null: every weight of the family's
     * sequence classifier ({@link Family#classifier()}: BERT's pooler and {@code classifier}, RoBERTa's
     * {@code classifier.dense} and {@code out_proj}, ...), else {@code qa_outputs}, else a lone
     * {@code classifier} (token classification: BERT's has no pooler, the others no second layer).
     * As the loader's heads, told by the weights' names, never by shapes. A head that is only part of one
     * is none, and its weights are left out (and logged).
     */
    private static TaskHead taskHead(Encoder encoder, Map<String, Weight> weights, String source) {
        if (!encoder.prefixed()) {
            return null;   // a *Model's export: an encoder alone
        }
        List<String> sequence = encoder.family().classifier().stream()
                .flatMap(d -> Stream.of(d.name() + ".weight", d.name() + ".bias"))
                .map(n -> encoder.family().spellings(n).getFirst()).toList();
        List<List<String>> candidates = List.of(sequence, List.of("qa_outputs.weight", "qa_outputs.bias"),
                List.of("classifier.weight", "classifier.bias"));
        List<String> suffixes = List.of("ForSequenceClassification", "ForQuestionAnswering", "ForTokenClassification");
        for (int i = 0; i < candidates.size(); i++) {
            List<String> names = candidates.get(i);
            if (weights.keySet().containsAll(names)) {
                Weight last = weights.get(names.get(names.size() - 2));
                int outputs = size(last, 0, source);
                if (i == 1 && outputs != 2) {
                    throw new LoaderException(source + ": qa_outputs " + last.describe() + " has " + outputs
                            + " outputs; question answering has 2 (start and end)");
                }
                return new TaskHead(suffixes.get(i), names.stream().filter(n -> !n.startsWith(encoder.root())).toList(), outputs);
            }
        }
        return null;
    }

    /**
     * Writes the head's labels into {@code config} and says where they came from: the export's own
     * config.json when it numbers as many (id2label, label2id, problem_type), else transformers'
     * defaults, LABEL_i. Question answering has none.
     */
    private static String labels(ObjectNode config, TaskHead head, JsonNode exportConfig, String source) {
        if (head.suffix().equals("ForQuestionAnswering")) {
            return "";
        }
        JsonNode given = exportConfig == null ? null : exportConfig.path("id2label");
        ObjectNode id2label = config.putObject("id2label");
        ObjectNode label2id = config.putObject("label2id");
        String from;
        if (given != null && given.isObject() && given.size() == head.outputs()) {
            for (int i = 0; i < head.outputs(); i++) {
                JsonNode label = given.get(Integer.toString(i));
                if (label == null || !label.isTextual()) {
                    throw new LoaderException(source + ": the config.json beside it has no label " + i + " in id2label");
                }
                id2label.put(Integer.toString(i), label.asText());
                label2id.put(label.asText(), i);
            }
            if (exportConfig.path("problem_type").isTextual()) {
                config.put("problem_type", exportConfig.get("problem_type").asText());
            }
            from = ", from the config.json beside it";
        } else {
            for (int i = 0; i < head.outputs(); i++) {
                id2label.put(Integer.toString(i), "LABEL_" + i);
                label2id.put("LABEL_" + i, i);
            }
            from = given != null && given.isObject() && !given.isEmpty()
                    ? ", named LABEL_i: the config.json beside it names " + given.size() + ", not " + head.outputs()
                    : ", named LABEL_i: no config.json beside it names them";
        }
        return " with " + head.outputs() + (head.outputs() == 1 ? " label" : " labels") + from;
    }

    /** Puts each of BERT's {@code canonical} names under this export's name into {@code names}; refuses the first missing. */
    private static void requireAll(List<String> canonical, Encoder encoder, Map<String, Weight> weights, Map<String, String> names,
                                   String source) {
        for (String c : canonical) {
            String name = encoder.name(c);
            if (!weights.containsKey(name)) {
                throw new LoaderException(source + " is not a " + encoder.family().name() + " encoder vectorbert understands: no " + name);
            }
            names.put(name, c);
        }
    }

    /** An architecture whose export no import maps yet. */
    private static LoaderException notImported(String source, String architecture) {
        return new LoaderException(source + " is " + architecture + " export, which vectorbert does not import from ONNX: give --model"
                + " the model's safetensors directory (config.json and model.safetensors)");
    }

    /**
     * The family, from the names: the word embeddings under {@code bert.}, {@code distilbert.},
     * {@code roberta.} or {@code electra.} (a {@code *ForXxx} class's export) say it outright. Without a
     * prefix (a {@code *Model}'s export, what feature-extraction exports are), the layer names tell
     * DistilBERT ({@code transformer.layer}) from the rest ({@code encoder.layer}), and
     * {@code embeddings_project} tells ELECTRA; RoBERTa's names are BERT's, so its export is known by
     * computing its position ids from the input ids (create_position_ids_from_input_ids, the one
     * CumSum these encoders have). An ELECTRA export without the projection (embeddings as wide as the
     * layers) has BERT's names and computes what BERT computes: it imports as BERT, correctly.
     * Shapes are never used to tell families apart.
     */
    private static Encoder family(Map<String, OnnxGraph.Tensor> init, Set<String> ops, JsonNode tokenizer, String source) {
        // MPNet's names are RoBERTa's but for its attention and its relative position bias, ModernBERT's its own (tok_embeddings,
        // attn.Wqkv): no import maps either yet.
        if (init.keySet().stream().anyMatch(n -> n.equals("encoder.relative_attention_bias.weight") || n.startsWith("mpnet."))) {
            throw notImported(source, "an MPNet");
        }
        if (init.keySet().stream().anyMatch(n -> n.contains("tok_embeddings.") || n.contains(".attn.Wqkv."))) {
            throw notImported(source, "a ModernBERT");
        }
        List<Family> prefixed = Family.ALL.stream()
                .filter(f -> init.containsKey(f.spellings(WORDS).getFirst()))
                .toList();
        boolean bare = init.containsKey("embeddings.word_embeddings.weight");
        if (prefixed.size() + (bare ? 1 : 0) > 1) {
            List<String> found = new ArrayList<>(prefixed.stream().map(f -> f.spellings(WORDS).getFirst()).toList());
            if (bare) {
                found.add("embeddings.word_embeddings.weight");
            }
            throw new LoaderException(source + " holds more than one encoder (" + String.join(", ", found) + "); vectorbert imports one");
        }
        Family family;
        if (prefixed.size() == 1) {
            family = prefixed.getFirst();
        } else if (!bare) {
            throw new LoaderException(source + " is not a BERT-family encoder vectorbert understands: no embeddings.word_embeddings.weight"
                    + " initializer, bare or under bert., distilbert., roberta. or electra. (" + init.size() + " initializers; operators: "
                    + String.join(", ", ops) + ")");
        } else if (init.keySet().stream().anyMatch(n -> n.startsWith("transformer.layer."))) {
            family = familyOf("distilbert");
        } else if (init.keySet().stream().anyMatch(n -> n.startsWith("embeddings_project."))) {
            family = familyOf("electra");
        } else {
            family = familyOf(ops.contains("CumSum") ? "roberta" : "bert");
        }
        String type = family.modelTypes().getFirst();
        if (type.equals("roberta")) {
            type = robertaType(tokenizer);
        }
        return new Encoder(family, prefixed.size() == 1, type);
    }

    private static Family familyOf(String modelType) {
        return Family.ALL.stream().filter(f -> f.modelTypes().contains(modelType)).findFirst().orElseThrow();
    }

    /**
     * roberta, xlm-roberta or camembert. Their graphs are the same (XLMRobertaModel and CamembertModel
     * are RobertaModel, under the same {@code roberta.} prefix), and so is what the engine does with
     * them; only the tokenizer differs: RoBERTa's is byte-level BPE, XLM-R's and CamemBERT's are
     * sentencepiece Unigram models, CamemBERT's with its {@code <s>NOTUSED} token. So the tokenizer
     * decides, and roberta is written when it says nothing else.
     */
    private static String robertaType(JsonNode tokenizer) {
        JsonNode model = tokenizer == null ? null : tokenizer.path("model");
        if (model == null || !("Unigram".equals(model.path("type").asText()) || model.path("vocab").isArray())) {
            return "roberta";
        }
        for (JsonNode entry : model.path("vocab")) {
            if ("<s>NOTUSED".equals(entry.path(0).asText())) {
                return "camembert";
            }
        }
        return "xlm-roberta";
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
        for (OnnxGraph.Node add : consumers.getOrDefault(matmul.outputs().isEmpty() ? "" : matmul.outputs().getFirst(), List.of())) {
            if (!add.op().equals("Add")) {
                continue;
            }
            for (String in : add.inputs()) {
                if (init.containsKey(in) && in.endsWith(".bias")) {
                    return in.replaceFirst("\\.bias$", ".weight");
                }
            }
        }
        OnnxGraph.Tensor w = init.get(matmul.inputs().get(1));
        throw new LoaderException(source + ": cannot name the weight " + w.name() + " " + java.util.Arrays.toString(w.dims()) + " of "
                + matmul.op() + " node " + matmul.name() + ": its output feeds no Add with a named bias");
    }

    /** config.json as the family's loader reads it, from {@code weights} by BERT's names. */
    private static ObjectNode config(OnnxGraph graph, Encoder encoder, Map<String, Weight> weights, int layers,
                                     Map<String, OnnxGraph.Node> producers, Map<String, List<OnnxGraph.Node>> consumers,
                                     JsonNode tokenizer, String source) {
        Weight words = weights.get(WORDS);
        int vocab = size(words, 0, source);
        int width = size(words, 1, source);
        int positions = size(weights.get(POSITIONS), 0, source);
        int hidden = size(weights.get("bert.encoder.layer.0.attention.output.LayerNorm.weight"), 0, source);
        boolean projected = weights.containsKey(PROJECTION);
        if (width != hidden && !projected) {
            throw new LoaderException(source + ": the word embeddings " + words.describe() + " are " + width + " wide but the layers "
                    + hidden + (encoder.is("electra") ? ", and no embeddings_project maps one to the other"
                    : "; only ELECTRA has embeddings of another width (projected by embeddings_project)"));
        }
        int heads = heads(encoder.name("bert.encoder.layer.0.attention.self.query.bias"), hidden, producers, consumers, graph, source);
        int intermediate = size(weights.get("bert.encoder.layer.0.intermediate.dense.weight"), 0, source);
        String act = activation(graph, weights.containsKey(POOLER), source);
        double eps = layerNormEps(encoder.name(EMBEDDINGS_NORM), producers, consumers, graph, source);
        int pad = padId(encoder, graph, producers, tokenizer, source);
        ObjectNode c = Json.object();
        String architecture = switch (encoder.modelType()) {
            case "distilbert" -> "DistilBertModel";
            case "roberta" -> "RobertaModel";
            case "xlm-roberta" -> "XLMRobertaModel";
            case "camembert" -> "CamembertModel";
            case "electra" -> "ElectraModel";
            default -> "BertModel";
        };
        c.putArray("architectures").add(architecture);
        c.put("model_type", encoder.modelType());
        c.put("vocab_size", vocab);
        if (encoder.is("distilbert")) {
            // DistilBERT's LayerNorm epsilon is not in its config: transformers fixes it at 1e-12, and so does the loader.
            if (eps != 1e-12) {
                throw new LoaderException(source + ": the graph's LayerNorm epsilon is " + eps + ", but DistilBERT's is 1e-12"
                        + " (transformers fixes it; config.json has no key for another)");
            }
            c.put("dim", hidden);
            c.put("n_layers", layers);
            c.put("n_heads", heads);
            c.put("hidden_dim", intermediate);
            c.put("activation", act);
            c.put("max_position_embeddings", positions);
            c.put("sinusoidal_pos_embds", sinusoidal(weights.get(POSITIONS)));
            c.put("pad_token_id", pad);
        } else {
            c.put("hidden_size", hidden);
            if (encoder.is("electra")) {
                c.put("embedding_size", width);
            }
            c.put("num_hidden_layers", layers);
            c.put("num_attention_heads", heads);
            c.put("intermediate_size", intermediate);
            c.put("hidden_act", act);
            c.put("max_position_embeddings", positions);
            c.put("type_vocab_size", size(weights.get(TOKEN_TYPES), 0, source));
            c.put("layer_norm_eps", eps);
            c.put("pad_token_id", pad);
            c.put("position_embedding_type", "absolute");
        }
        c.put("converted_from", "onnx");
        return c;
    }

    /** Dimension {@code axis} of a weight's Hugging Face shape, refused (naming it) where it has none or one too large. */
    private static int size(Weight w, int axis, String source) {
        long[] shape = w.shape();
        if (axis >= shape.length || shape[axis] <= 0 || shape[axis] > Integer.MAX_VALUE) {
            throw new LoaderException(source + ": weight " + w.describe() + " has no usable dimension " + axis
                    + " (expected " + (w.name().endsWith(".bias") || w.name().contains("LayerNorm") || w.name().contains("layer_norm")
                    ? "a vector" : "a matrix") + ")");
        }
        return (int) shape[axis];
    }

    /**
     * Whether a DistilBERT position table is transformers' sinusoidal one (create_sinusoidal_embeddings:
     * sin(pos / 10000^(2(j/2)/dim)) at even j, cos at odd, rounded to float32), to say so in
     * {@code sinusoidal_pos_embds}. The table is imported either way and read as it is.
     */
    static boolean sinusoidal(Weight positions) {
        long[] shape = positions.shape();
        if (shape.length != 2 || positions.tensor().elements() == 0) {
            return false;
        }
        int dim = (int) shape[1];
        float[] table = positions.tensor().floats();
        for (int i = 0; i < table.length; i++) {
            int pos = i / dim;
            int j = i % dim;
            double angle = pos / Math.pow(10000, 2.0 * (j / 2) / dim);
            if (Math.abs((j % 2 == 0 ? Math.sin(angle) : Math.cos(angle)) - table[i]) > 1e-6) {
                return false;
            }
        }
        return true;
    }

    /**
     * pad_token_id: the tokenizer's pad token ({@code padding.pad_id}, else the id of {@code <pad>} or
     * {@code [PAD]}). For RoBERTa, whose positions count from it, the graph says it too (its position
     * ids compare the input ids with it): the two must agree, and one of them must say it. The other
     * families use it only to pad, so without one it is 0, as in their configs.
     */
    private static int padId(Encoder encoder, OnnxGraph graph, Map<String, OnnxGraph.Node> producers, JsonNode tokenizer,
                             String source) {
        Integer fromTokenizer = tokenizerPad(tokenizer);
        if (!encoder.is("roberta")) {
            return fromTokenizer == null ? 0 : fromTokenizer;
        }
        Long fromGraph = null;
        for (OnnxGraph.Node n : graph.nodes()) {
            if (n.op().equals("Equal") && n.inputs().size() == 2 && n.inputs().contains("input_ids")) {
                String other = n.inputs().get(0).equals("input_ids") ? n.inputs().get(1) : n.inputs().get(0);
                List<Long> value = constantValues(other, producers, graph);
                if (value.size() == 1) {
                    fromGraph = value.getFirst();
                }
            }
        }
        if (fromTokenizer != null && fromGraph != null && fromGraph != fromTokenizer.longValue()) {
            throw new LoaderException(source + ": the tokenizer's pad token is id " + fromTokenizer + ", but the graph counts positions"
                    + " past id " + fromGraph + "; RoBERTa's positions start after the padding id, so the two must agree");
        }
        if (fromTokenizer != null) {
            return fromTokenizer;
        }
        if (fromGraph != null && fromGraph >= 0 && fromGraph < Integer.MAX_VALUE) {
            return (int) (long) fromGraph;
        }
        throw new LoaderException(source + ": cannot tell RoBERTa's padding id, which its positions count from: the tokenizer has no"
                + " pad token (padding.pad_id, <pad>) and the graph compares input_ids with no constant");
    }

    private static Integer tokenizerPad(JsonNode tokenizer) {
        if (tokenizer == null) {
            return null;
        }
        JsonNode padId = tokenizer.path("padding").path("pad_id");
        if (padId.canConvertToInt()) {
            return padId.intValue();
        }
        for (String pad : List.of("<pad>", "[PAD]")) {
            for (JsonNode added : tokenizer.path("added_tokens")) {
                if (pad.equals(added.path("content").asText()) && added.path("id").canConvertToInt()) {
                    return added.path("id").intValue();
                }
            }
            JsonNode vocab = tokenizer.path("model").path("vocab");
            if (vocab.path(pad).canConvertToInt()) {
                return vocab.path(pad).intValue();
            }
            if (vocab.isArray()) {
                for (int i = 0; i < vocab.size(); i++) {
                    if (pad.equals(vocab.get(i).path(0).asText())) {
                        return i;
                    }
                }
            }
        }
        return null;
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
        return constantValues(name, producers, graph, 0);
    }

    /** The same, {@code depth} Concats down (a malformed graph's Concat may feed itself: looked through 8 deep at most). */
    private static List<Long> constantValues(String name, Map<String, OnnxGraph.Node> producers, OnnxGraph graph, int depth) {
        OnnxGraph.Tensor t = graph.initializers().get(name);
        OnnxGraph.Node node = producers.get(name);
        if (t == null && node != null && node.op().equals("Constant") && node.attributes().containsKey("value")) {
            t = node.attributes().get("value").t();
        }
        if (t != null) {
            return t.dataType() == OnnxGraph.INT64 && t.data().byteSize() % Long.BYTES == 0
                    ? java.util.Arrays.stream(t.longs()).boxed().toList() : List.of();
        }
        List<Long> values = new ArrayList<>();
        if (node != null && node.op().equals("Concat") && depth < 8) {
            for (String in : node.inputs()) {
                values.addAll(constantValues(in, producers, graph, depth + 1));
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

    private static void writeTokenizer(Source src, JsonNode tokenizer, Path outDir) throws IOException {
        AtomicFiles.write(outDir.resolve("tokenizer.json"), src.tokenizer());
        AtomicFiles.write(outDir.resolve("tokenizer_config.json"),
                ("{\"do_lower_case\": " + lowercases(tokenizer.path("normalizer")) + "}\n").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Whether a tokenizer.json normaliser lower-cases: BertNormalizer unless its {@code lowercase} is false,
     * Lowercase, or a Sequence holding either. RoBERTa's byte-level BPE and XLM-R's sentencepiece have no
     * such step (null, or Precompiled and Replace), so they keep their case.
     */
    static boolean lowercases(JsonNode normalizer) {
        return switch (normalizer.path("type").asText("")) {
            case "BertNormalizer" -> normalizer.path("lowercase").asBoolean(true);
            case "Lowercase" -> true;
            case "Sequence" -> StreamSupport.stream(normalizer.path("normalizers").spliterator(), false)
                    .anyMatch(OnnxImport::lowercases);
            default -> false;
        };
    }

    /**
     * The sentence-transformers files found beside the source; for a langchain4j jar, which has none, the settings its
     * model class embeds with, and {@code langchain4j.json} saying where each came from.
     */
    private static void writeSentenceTransformers(Source src, Path outDir, ModelResolver.Listener listener) throws IOException {
        Map<String, byte[]> files = new LinkedHashMap<>(src.sentenceTransformers());
        Langchain4jJar jar = src.langchain4j();
        if (jar != null) {
            JsonNode truncation = Json.parse(src.tokenizer(), "tokenizer.json", LoaderException::new).path("truncation");
            // langchain4j's OnnxBertBiEncoder tokenizes with DJL, which cuts as the tokenizer file says, else at its default
            // of 512 tokens; its parts of 510 tokens then never see a longer text.
            int cut = truncation.path("max_length").asInt(0);
            String tokenizerName = jar.tokenizerEntry() != null ? jar.tokenizerEntry() : "its tokenizer.json";
            Langchain4jSettings settings = new Langchain4jSettings(jar.className(), jar.pooling(),
                    jar.simpleName() + " passes PoolingMode." + jar.pooling().toUpperCase(java.util.Locale.ROOT),
                    "langchain4j's OnnxBertBiEncoder normalises every vector",
                    cut > 0 ? cut : Langchain4jSettings.DJL_MAX_LENGTH,
                    cut > 0 ? "the truncation block of " + tokenizerName
                            : tokenizerName + " sets no truncation, so DJL's tokenizer cuts at its default of "
                            + Langchain4jSettings.DJL_MAX_LENGTH);
            files.put("modules.json", """
                    [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                     {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                     {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
                    """.getBytes(StandardCharsets.UTF_8));
            files.put("1_Pooling/config.json", ("{\"pooling_mode_cls_token\": " + jar.pooling().equals("cls")
                    + ", \"pooling_mode_mean_tokens\": " + jar.pooling().equals("mean") + "}\n").getBytes(StandardCharsets.UTF_8));
            files.put("2_Normalize/", new byte[0]);
            files.put("sentence_bert_config.json", ("{\"max_seq_length\": " + settings.maxTokens() + ", \"do_lower_case\": false}\n")
                    .getBytes(StandardCharsets.UTF_8));
            files.put(Langchain4jSettings.FILE, settings.toJson());
            listener.log(src.description() + " is langchain4j's " + jar.simpleName() + ": embedding as it does, " + jar.pooling()
                    + " pooling (" + settings.poolingFrom() + "), normalised, texts cut at " + settings.maxTokens() + " tokens ("
                    + settings.maxTokensFrom() + ")");
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

    /** Reads what {@link #convert} would read first (a langchain4j jar's model class, the tokenizer), refusing what it would refuse. */
    static void check(Path source) {
        locate(source);
    }
}
