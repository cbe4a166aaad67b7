package org.vectorbert.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.cli.Main;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.langchain4j.VectorbertEmbeddingModel;
import org.vectorbert.loader.ModelHome;

/**
 * Every embedding jar langchain4j publishes on Maven Central, each at its newest release: vectorbert takes the jar
 * itself ({@code --model x.jar}), reads the pooling from its model class and the length from its tokenizer file (DJL,
 * which langchain4j tokenizes with, cuts at 512 where the file sets no truncation, before langchain4j's 510-token
 * parts are made). Its vectors equal those of langchain4j's own class for the jar (ONNX Runtime) within cosine 0.99999
 * on every text, through the library, the CLI and the langchain4j adapter: real lines, texts of 600 to 2,600 tokens,
 * and for the Chinese models Chinese lines.
 * The int8 (-q) jars are refused before anything is converted.
 */
@Tag("heavy")
class Langchain4jEmbeddersTest {
    private static final String PACKAGE = "dev.langchain4j.model.embedding.onnx.";

    @TempDir
    static Path work;

    private static List<String> english;
    private static List<String> chinese;

    @BeforeAll
    static void texts() throws Exception {
        english = RealTexts.withLongOnes(RealTexts.licenceLines(250), " ");
        chinese = RealTexts.withLongOnes(RealTexts.chineseMessages(120), "");
    }

    @ParameterizedTest
    @ValueSource(strings = {"allminilml6v2.AllMiniLmL6V2", "bgesmallen.BgeSmallEn", "bgesmallenv15.BgeSmallEnV15",
            "bgesmallzh.BgeSmallZh", "bgesmallzhv15.BgeSmallZhV15", "e5smallv2.E5SmallV2"})
    void vectorbertGivesLangchain4jsVectors(String model) throws Exception {
        EmbeddingModel theirs = (EmbeddingModel) Class.forName(PACKAGE + model.toLowerCase(java.util.Locale.ROOT).replaceFirst("\\..*", "")
                + "." + model.substring(model.indexOf('.') + 1) + "EmbeddingModel").getConstructor().newInstance();
        Path jar = Path.of(theirs.getClass().getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> texts = model.contains("Zh") ? Stream.concat(chinese.stream(), english.subList(0, 60).stream()).toList() : english;
        List<float[]> reference = theirs.embedAll(texts.stream().map(TextSegment::from).toList()).content().stream()
                .map(Embedding::vector).toList();

        Embeddings library = Embeddings.load(jar.toString());
        assertEquals(reference.getFirst().length, library.dimension(), model);
        assertClose(model + " (library)", texts, reference, library.embed(texts));

        Path file = work.resolve(model + ".txt");
        Files.write(file, texts, StandardCharsets.UTF_8);
        Path npy = work.resolve(model + ".npy");
        assertEquals(0, Main.run("embed", "--model", jar.toString(), "--file", file.toString(), "--output", npy.toString()), model);
        assertClose(model + " (CLI)", texts, reference, readNpy(npy, texts.size()));

        VectorbertEmbeddingModel adapter = VectorbertEmbeddingModel.builder().model(jar.toString()).build();
        assertClose(model + " (adapter)", texts, reference, adapter.embedAll(texts.stream().map(TextSegment::from).toList()).content()
                .stream().map(Embedding::vector).toList());
    }

    @ParameterizedTest
    @ValueSource(strings = {"all-minilm-l6-v2-q", "bge-small-en-q", "bge-small-en-v15-q", "bge-small-zh-q", "bge-small-zh-v15-q",
            "e5-small-v2-q"})
    void theQuantisedJarsAreRefusedBeforeAnyConversion(String artifact) throws Exception {
        Path jar = jarOf(artifact);
        VectorbertException refused = assertThrows(VectorbertException.class, () -> Embeddings.load(jar.toString()));
        assertTrue(refused.getMessage().contains("is langchain4j's quantised (int8) ") && refused.getMessage().contains("use the artifact"
                + " without -q"), refused.getMessage());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = Main.run("embed", "--model", jar.toString(), "hello");
        } finally {
            System.setErr(saved);
        }
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, exit, said);
        assertTrue(said.contains("quantised (int8)") && !said.contains("converting"), said);
        Path converted = ModelHome.root().resolve("models/converted");
        if (Files.isDirectory(converted)) {
            try (Stream<Path> dirs = Files.list(converted)) {
                assertFalse(dirs.anyMatch(d -> d.getFileName().toString().startsWith(jar.getFileName().toString())), "nothing converted");
            }
        }
    }

    /** The jar of {@code artifact} on the test class path. */
    private static Path jarOf(String artifact) {
        Pattern name = Pattern.compile(Pattern.quote("langchain4j-embeddings-" + artifact) + "-\\d[^/]*\\.jar$");
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Matcher m = name.matcher(entry);
            if (m.find()) {
                return Path.of(entry);
            }
        }
        throw new AssertionError("no langchain4j-embeddings-" + artifact + " jar on the class path");
    }

    private static void assertClose(String what, List<String> texts, List<float[]> reference, List<float[]> mine) {
        assertEquals(texts.size(), mine.size(), what);
        double worst = 1;
        String worstText = "";
        for (int i = 0; i < texts.size(); i++) {
            float[] a = mine.get(i);
            float[] b = reference.get(i);
            assertEquals(b.length, a.length, what);
            double dot = 0;
            double na = 0;
            double nb = 0;
            for (int d = 0; d < a.length; d++) {
                dot += (double) a[d] * b[d];
                na += (double) a[d] * a[d];
                nb += (double) b[d] * b[d];
            }
            assertEquals(1.0, na, 1e-5, what + ": vectorbert's vectors are normalised, as langchain4j's");
            double cosine = dot / Math.sqrt(na * nb);
            if (cosine < worst) {
                worst = cosine;
                worstText = texts.get(i);
            }
        }
        assertTrue(worst >= 0.99999, what + ": worst cosine " + worst + " on text of " + worstText.length() + " characters: \""
                + worstText.substring(0, Math.min(200, worstText.length())) + "\"");
    }

    /** A float32 [n, dim] array as the CLI writes it. */
    private static List<float[]> readNpy(Path npy, int n) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(npy)).order(ByteOrder.LITTLE_ENDIAN);
        int major = b.get(6);
        int headerLength = major == 1 ? Short.toUnsignedInt(b.getShort(8)) : b.getInt(8);
        int start = (major == 1 ? 10 : 12) + headerLength;
        String header = new String(b.array(), major == 1 ? 10 : 12, headerLength, StandardCharsets.ISO_8859_1);
        Matcher shape = Pattern.compile("'shape': \\((\\d+), (\\d+)\\)").matcher(header);
        assertTrue(shape.find() && header.contains("'<f4'"), header);
        assertEquals(n, Integer.parseInt(shape.group(1)));
        int dim = Integer.parseInt(shape.group(2));
        b.position(start);
        List<float[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            float[] v = new float[dim];
            b.asFloatBuffer().get(v);
            b.position(b.position() + dim * Float.BYTES);
            out.add(v);
        }
        return out;
    }
}
