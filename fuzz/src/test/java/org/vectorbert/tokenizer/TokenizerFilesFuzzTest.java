package org.vectorbert.tokenizer;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;

/**
 * A tokenizer directory with any tokenizer.json, tokenizer_config.json or vocab.txt: loaded and then
 * encoding a text, or refused with the tokenizer's error.
 */
@Tag("heavy")
class TokenizerFilesFuzzTest {
    private static final String VOCAB = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nhello\n##s\n,\n.\n";

    @FuzzTest
    void load(FuzzedDataProvider data) throws IOException {
        Path dir = Files.createTempDirectory("fuzz-tokenizer");
        try {
            switch (data.consumeInt(0, 2)) {
                case 0 -> Files.write(dir.resolve("tokenizer.json"), data.consumeRemainingAsBytes());
                case 1 -> {
                    Files.writeString(dir.resolve("vocab.txt"), VOCAB);
                    Files.write(dir.resolve("tokenizer_config.json"), data.consumeRemainingAsBytes());
                }
                default -> Files.write(dir.resolve("vocab.txt"), data.consumeRemainingAsBytes());
            }
            try {
                BertTokenizer tokenizer = BertTokenizer.fromDirectory(dir);
                tokenizer.encode("Hello, the hellos. [MASK] " + new String(VOCAB.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8));
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
