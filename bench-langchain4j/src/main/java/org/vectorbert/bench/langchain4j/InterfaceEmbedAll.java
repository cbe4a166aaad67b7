package org.vectorbert.bench.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.vectorbert.langchain4j.VectorbertEmbeddingModel;

/**
 * One of two langchain4j {@link EmbeddingModel}s embedding a corpus through the interface alone, as
 * a langchain4j application calls it ({@code embedAll} over every line): langchain4j's in-process
 * {@link AllMiniLmL6V2EmbeddingModel} (ONNX Runtime, DJL's tokenizer), or vectorbert's
 * {@link VectorbertEmbeddingModel} over the same model file (the jar). Prints the time from the first
 * text to the last, the model loaded and one text embedded before; optionally writes the vectors
 * (little-endian float32 rows). bench/compare-langchain4j --interface runs both, alternately.
 * {@code -Drounds=N} embeds the corpus N times in the JVM, a line per round (a fresh JVM's first round
 * against its warm ones; the vectors written are the last round's).
 *
 * <pre>java -cp bench-langchain4j/target/vectorbert-bench-langchain4j.jar org.vectorbert.bench.langchain4j.InterfaceEmbedAll
 *     langchain4j|vectorbert CORPUS.txt MODEL.jar [VECTORS.f32]</pre>
 */
public final class InterfaceEmbedAll {
    private InterfaceEmbedAll() {}

    public static void main(String[] args) throws IOException {
        List<TextSegment> segments = Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8).stream().map(TextSegment::from).toList();
        long loadStart = System.nanoTime();
        EmbeddingModel model = switch (args[0]) {
            case "langchain4j" -> new AllMiniLmL6V2EmbeddingModel();
            case "vectorbert" -> VectorbertEmbeddingModel.builder().model(args[2]).build();
            default -> throw new IllegalArgumentException("langchain4j or vectorbert, not " + args[0]);
        };
        model.embed("warm the model once");
        double load = (System.nanoTime() - loadStart) / 1e9;
        List<Embedding> vectors = null;
        for (int round = 1; round <= Math.max(1, Integer.getInteger("rounds", 1)); round++) {
            long start = System.nanoTime();
            vectors = model.embedAll(segments).content();
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf("%s embedAll: %d texts in %.2f s (%.1f texts/s); model loaded in %.2f s%s%n",
                    args[0].equals("langchain4j") ? "langchain4j " + EmbedAll.modelVersion() : "vectorbert", vectors.size(), seconds,
                    vectors.size() / seconds, load, round > 1 ? "; round " + round : "");
        }
        if (args.length > 3) {
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(Path.of(args[3]))))) {
                for (Embedding e : vectors) {
                    for (float x : e.vector()) {
                        out.writeInt(Integer.reverseBytes(Float.floatToRawIntBits(x)));
                    }
                }
            }
        }
    }
}
