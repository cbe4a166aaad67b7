package org.vectorbert.loader;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.Json;
import org.vectorbert.common.VectorbertException;

/**
 * A model directory's JSON files of any content: config.json, and the sentence-transformers files
 * (modules.json, 1_Pooling/config.json, sentence_bert_config.json, config_sentence_transformers.json);
 * read by BERT's reader and by every other architecture's (ModernBERT, NomicBERT, GTE), or refused with the loader's error.
 */
@Tag("heavy")
class ConfigFuzzTest {
    private static final List<String> FILES = List.of("config.json", "modules.json", "1_Pooling/config.json",
            "sentence_bert_config.json", "config_sentence_transformers.json");
    private static final List<BiFunction<JsonNode, String, ModelConfig>> READERS = List.of(ModernBertConfig::parse,
            NomicBertConfig::parse, GteConfig::parse);

    @FuzzTest
    void read(FuzzedDataProvider data) throws IOException {
        Path dir = Files.createTempDirectory("fuzz-config");
        try {
            Files.createDirectories(dir.resolve("1_Pooling"));
            Files.writeString(dir.resolve("modules.json"), "[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": "
                    + "\"sentence_transformers.models.Transformer\"}, {\"idx\": 1, \"name\": \"1\", \"path\": \"1_Pooling\", \"type\": "
                    + "\"sentence_transformers.models.Pooling\"}]");
            for (String name : FILES) {
                if (data.consumeBoolean()) {
                    Files.writeString(dir.resolve(name), data.consumeString(400));
                }
            }
            Files.writeString(dir.resolve("config.json"), data.consumeRemainingAsString());
            try {
                BertConfig.load(dir.resolve("config.json"));
            } catch (VectorbertException expected) {
                // refused clearly
            }
            try {
                JsonNode node = Json.read(dir.resolve("config.json"), LoaderException::new);
                for (BiFunction<JsonNode, String, ModelConfig> reader : READERS) {
                    try {
                        reader.apply(node, "config.json");
                    } catch (VectorbertException expected) {
                        // refused clearly
                    }
                }
            } catch (VectorbertException expected) {
                // not JSON
            }
            try {
                SentenceTransformersConfig.read(dir);
            } catch (VectorbertException expected) {
                // refused clearly
            }
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }
}
