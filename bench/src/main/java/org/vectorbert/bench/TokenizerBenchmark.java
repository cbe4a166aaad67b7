package org.vectorbert.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.Encoding;

/**
 * Single-thread tokenizer throughput in MB/s of UTF-8 input: {@code encode} (normalise, split,
 * WordPiece, special tokens, offsets) over every paragraph of an English corpus.
 *
 * <pre>bench/run tokenizer [--vocab FILE] [--corpus FILE]...</pre>
 * or, pipeline against BertTokenizer per token ({@link TokenizerComparison}):
 * <pre>bench/run tokenizer --compare WORDPIECE_TOKENIZER_JSON [OTHER_TOKENIZER_JSON]...</pre>
 *
 * The default corpus is the license texts every Debian system has in /usr/share/common-licenses.
 */
public final class TokenizerBenchmark {
    private TokenizerBenchmark() {}

    public static void main(String[] args) throws IOException {
        if (args.length > 0 && args[0].equals("--compare")) {
            TokenizerComparison.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Path vocab = null;
        List<Path> corpus = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--vocab" -> vocab = Path.of(args[++i]);
                case "--corpus" -> corpus.add(Path.of(args[++i]));
                default -> {
                    System.err.println("usage: bench/run tokenizer [--vocab FILE] [--corpus FILE]...");
                    System.exit(2);
                }
            }
        }
        if (corpus.isEmpty()) {
            try (Stream<Path> files = Files.list(Path.of("/usr/share/common-licenses"))) {
                corpus = files.filter(Files::isRegularFile).filter(p -> !Files.isSymbolicLink(p)).sorted().toList();
            }
        }
        BertTokenizer tokenizer = vocab != null
                ? BertTokenizer.fromVocab(vocab)
                : BertTokenizer.fromDirectory(ModelArgs.defaultModel());

        List<String> paragraphs = new ArrayList<>();
        long bytes = 0;
        for (Path file : corpus) {
            for (String paragraph : Files.readString(file, StandardCharsets.UTF_8).split("\\n\\s*\\n")) {
                if (!paragraph.isBlank()) {
                    paragraphs.add(paragraph);
                    bytes += paragraph.getBytes(StandardCharsets.UTF_8).length;
                }
            }
        }
        long totalBytes = bytes;
        long[] tokens = new long[1];
        Runnable pass = () -> {
            long count = 0;
            for (String p : paragraphs) {
                Encoding e = tokenizer.encode(p);
                count += e.length();
            }
            tokens[0] = count;
        };
        // Each round is one pass over the corpus; repeat it so a round lasts long enough to time.
        int passesPerRound = (int) Math.max(1, 20_000_000 / totalBytes);
        Runnable round = () -> {
            for (int i = 0; i < passesPerRound; i++) {
                pass.run();
            }
        };
        Measure m = Measure.of(5, 15, round);
        double mb = totalBytes * (double) passesPerRound / 1e6;
        System.out.printf("corpus: %d files, %d paragraphs, %.2f MB UTF-8, %d tokens per pass%n",
                corpus.size(), paragraphs.size(), totalBytes / 1e6, tokens[0]);
        System.out.printf("tokenizer encode, 1 thread: median %.1f MB/s (best %.1f, worst %.1f) over %d rounds of %.1f MB; %.2f M tokens/s%n",
                mb / m.medianSeconds(), mb / m.minSeconds(), mb / m.maxSeconds(), m.rounds(), mb,
                tokens[0] * (double) passesPerRound / m.medianSeconds() / 1e6);
    }
}
