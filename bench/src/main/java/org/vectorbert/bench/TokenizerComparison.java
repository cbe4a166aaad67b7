package org.vectorbert.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * Cost per token of the tokenizer.json pipeline against BertTokenizer on the same corpus lines:
 * BertTokenizer and the pipeline both built from one WordPiece tokenizer.json (the same
 * vocabulary and normaliser, so the same tokens), then any other tokenizer.json files (BPE,
 * Unigram) on the same lines. Timed rounds alternate between the tokenizers.
 *
 * <pre>bench/run tokenizer --compare WORDPIECE_TOKENIZER_JSON [OTHER_TOKENIZER_JSON]... [--corpus FILE]...</pre>
 *
 * Prints tokens/s per tokenizer and, per token, its cost relative to BertTokenizer's.
 */
final class TokenizerComparison {
    /** Special tokens, no truncation, no padding: the file's own padding section would count pads as tokens. */
    private static final EncodeOptions PLAIN = EncodeOptions.defaults();

    private TokenizerComparison() {}

    static void main(String[] args) throws IOException {
        List<Path> files = new ArrayList<>();
        List<Path> corpus = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--corpus")) {
                corpus.add(Path.of(args[++i]));
            } else {
                files.add(Path.of(args[i]));
            }
        }
        if (files.isEmpty()) {
            System.err.println("usage: bench/run tokenizer --compare WORDPIECE_TOKENIZER_JSON [OTHER]... [--corpus FILE]...");
            System.exit(2);
        }
        if (corpus.isEmpty()) {
            try (Stream<Path> all = Files.list(Path.of("/usr/share/common-licenses"))) {
                corpus = all.filter(Files::isRegularFile).filter(p -> !Files.isSymbolicLink(p)).sorted().toList();
            }
        }
        List<String> lines = new ArrayList<>();
        for (Path file : corpus) {
            for (String line : Files.readString(file, StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) {
                    lines.add(line.strip());
                }
            }
        }
        List<String> names = new ArrayList<>();
        List<Tokenizer> tokenizers = new ArrayList<>();
        names.add("BertTokenizer (" + files.get(0).getFileName() + ")");
        tokenizers.add(BertTokenizer.fromTokenizerJson(files.get(0)));
        for (Path f : files) {
            names.add("pipeline " + f.getFileName());
            tokenizers.add(Tokenizer.fromTokenizerJson(f));
        }
        long[] tokens = new long[tokenizers.size()];
        Runnable[] tasks = new Runnable[tokenizers.size()];
        for (int t = 0; t < tasks.length; t++) {
            Tokenizer tokenizer = tokenizers.get(t);
            int slot = t;
            tasks[t] = () -> {
                long count = 0;
                for (String line : lines) {
                    count += tokenizer.encode(line, PLAIN).length();
                }
                tokens[slot] = count;
            };
        }
        Measure[] m = Measure.interleaved(5, 15, tasks);
        System.out.printf("corpus: %d files, %d lines; machine shared, single thread; 5 warm-up and 15 timed rounds each%n",
                corpus.size(), lines.size());
        double bertPerToken = m[0].medianSeconds() / tokens[0];
        for (int t = 0; t < tasks.length; t++) {
            double perToken = m[t].medianSeconds() / tokens[t];
            System.out.printf("%-55s %9d tokens/pass  %6.2f M tokens/s (best %.2f)  cost per token %.2fx BertTokenizer%n",
                    names.get(t), tokens[t], tokens[t] / m[t].medianSeconds() / 1e6, tokens[t] / m[t].minSeconds() / 1e6,
                    perToken / bertPerToken);
        }
    }
}
