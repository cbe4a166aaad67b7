package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * Any bytes as a sentencepiece.bpe.model with XLM-R's tokenizer_config.json, and as DeBERTa-v3's spm.model: the protobuf reader
 * and the tokenizer built from it refuse with a one-line TokenizerException or encode a text with
 * spans inside it, and nothing else (no index, negative-size or out-of-memory errors).
 */
@Tag("heavy")
class SentencePieceFuzzTest {
    private static final String TEXT = "Hello, the world! naïve 東京 😀 <mask>";

    @FuzzTest
    void load(byte[] model) throws IOException {
        // The same bytes as XLM-R's sentencepiece.bpe.model and as DeBERTa-v3's spm.model (converted another way).
        encode(model, "sentencepiece.bpe.model", "{\"tokenizer_class\": \"XLMRobertaTokenizer\"}");
        encode(model, "spm.model", "{\"do_lower_case\": true, \"split_by_punct\": true, \"vocab_type\": \"spm\"}");
    }

    private static void encode(byte[] model, String name, String config) throws IOException {
        Path dir = Files.createTempDirectory("fuzz-spm");
        try {
            Files.write(dir.resolve(name), model);
            Files.writeString(dir.resolve("tokenizer_config.json"), config);
            try {
                Encoding e = Tokenizer.fromDirectory(dir).encode(TEXT);
                for (int i = 0; i < e.length(); i++) {
                    assertTrue(e.starts()[i] >= 0 && e.starts()[i] <= e.ends()[i] && e.ends()[i] <= TEXT.length());
                }
            } catch (VectorbertException refused) {
                assertTrue(refused.getMessage() != null && !refused.getMessage().contains("\n"), refused.getMessage());
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
