package org.vectorbert.parity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15.BgeSmallEnV15EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.e5smallv2.E5SmallV2EmbeddingModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.engine.Embeddings;

/**
 * bge-small-en-v1.5 and e5-small-v2 as langchain4j ships them on Maven Central (a jar with the ONNX export and its
 * tokenizer.json): vectorbert imports the jar itself ({@code --model x.jar}) and pools as langchain4j's class for it
 * does (bge by [CLS], e5 by mean, normalised); its vectors of 600 real lines equal those of langchain4j's own
 * {@code BgeSmallEnV15EmbeddingModel} and {@code E5SmallV2EmbeddingModel} (ONNX Runtime, DJL's tokenizer) from the
 * same jar, within cosine 0.99999 on every line. Release 1.17.0-beta27, the newest at which this build's repository
 * serves both; its bge .onnx is byte for byte 1.20.0-beta30's.
 */
class Langchain4jEmbeddersTest {
    @ParameterizedTest
    @ValueSource(strings = {"bge-small-en-v1.5", "e5-small-v2"})
    void vectorbertGivesLangchain4jsVectors(String name) throws Exception {
        List<String> lines = realLines(600);
        EmbeddingModel theirs = name.startsWith("bge") ? new BgeSmallEnV15EmbeddingModel() : new E5SmallV2EmbeddingModel();
        Path jar = Path.of(theirs.getClass().getProtectionDomain().getCodeSource().getLocation().toURI());
        Embeddings ours = Embeddings.load(jar.toString());
        assertEquals(384, ours.dimension(), name);
        List<float[]> mine = ours.embed(lines);
        List<Embedding> reference = theirs.embedAll(lines.stream().map(TextSegment::from).toList()).content();
        assertEquals(lines.size(), reference.size());
        double worst = 1;
        String worstLine = "";
        for (int i = 0; i < lines.size(); i++) {
            float[] a = mine.get(i);
            float[] b = reference.get(i).vector();
            assertEquals(b.length, a.length, lines.get(i));
            double dot = 0;
            double na = 0;
            double nb = 0;
            for (int d = 0; d < a.length; d++) {
                dot += (double) a[d] * b[d];
                na += (double) a[d] * a[d];
                nb += (double) b[d] * b[d];
            }
            double cosine = dot / Math.sqrt(na * nb);
            if (cosine < worst) {
                worst = cosine;
                worstLine = lines.get(i);
            }
            assertEquals(1.0, na, 1e-5, "vectorbert's vectors are normalised, as langchain4j's: " + lines.get(i));
        }
        assertTrue(worst >= 0.99999, name + ": worst cosine " + worst + " on \"" + worstLine + "\"");
    }

    /** Distinct non-empty lines of the licences Debian ships, in file order. */
    private static List<String> realLines(int count) throws IOException {
        Path dir = Path.of("/usr/share/common-licenses");
        assumeTrue(Files.isDirectory(dir), "no /usr/share/common-licenses on this machine");
        Set<String> lines = new LinkedHashSet<>();
        try (Stream<Path> files = Files.list(dir).filter(Files::isRegularFile).sorted()) {
            for (Path f : files.toList()) {
                for (String line : Files.readAllLines(f, StandardCharsets.ISO_8859_1)) {
                    if (!line.isBlank() && lines.size() < count) {
                        lines.add(line.strip());
                    }
                }
            }
        }
        assertTrue(lines.size() >= 500, lines.size() + " lines");
        return new ArrayList<>(lines);
    }
}
