package org.vectorbert.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;

/**
 * The in-process side of bench/serve: the short texts both sides embed, and what the library does
 * with them on the same threads, for the server's figures to be set against.
 *
 * <pre>
 * ServeBaseline texts  MODEL COUNT TEXTS.txt BODIES.jsonl   corpus lines of 8 to 32 tokens, and one /embed body per line
 * ServeBaseline batch  MODEL TEXTS.txt SECONDS              texts per second, all texts at once (grouped by length, 16384-token passes)
 * ServeBaseline single MODEL TEXTS.txt SECONDS              median time of one text's embed call
 * </pre>
 * MODEL is anything --model takes, or - for the default model. Vectors are normalised, as /embed's are.
 */
public final class ServeBaseline {
    private ServeBaseline() {}

    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: ServeBaseline texts MODEL COUNT TEXTS BODIES | batch MODEL TEXTS SECONDS | single MODEL TEXTS SECONDS");
            System.exit(2);
        }
        Embeddings embeddings = Embeddings.load(args[1].equals("-") ? null : args[1],
                EmbeddingOptions.defaults().withNormalize(true).withBatchTokens(16384));
        switch (args[0]) {
            case "texts" -> texts(embeddings, Integer.parseInt(args[2]), Path.of(args[3]), Path.of(args[4]));
            case "batch" -> batch(embeddings, Files.readAllLines(Path.of(args[2])), Double.parseDouble(args[3]));
            case "single" -> single(embeddings, Files.readAllLines(Path.of(args[2])), Double.parseDouble(args[3]));
            default -> {
                System.err.println("unknown mode " + args[0]);
                System.exit(2);
            }
        }
    }

    private static void texts(Embeddings embeddings, int count, Path texts, Path bodies) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> picked = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        int tokens = 0;
        for (String line : Corpus.lines(200_000)) {
            // Lines whose tokens, special ones included, number 8 to 32: short texts, as a search box or a chat turn sends.
            int n = embeddings.tokenizer().encode(line).length();
            if (n >= 8 && n <= 32 && !picked.contains(line)) {
                picked.add(line);
                lines.add(json.writeValueAsString(Map.of("inputs", line)));
                tokens += n;
                if (picked.size() == count) {
                    break;
                }
            }
        }
        Files.write(texts, picked, StandardCharsets.UTF_8);
        Files.write(bodies, lines, StandardCharsets.UTF_8);
        System.out.printf("texts: %d of 8 to 32 tokens (%.1f on average)%n", picked.size(), (double) tokens / picked.size());
    }

    /** All texts embedded again and again for {@code seconds} after a warm-up round; texts per second. */
    private static void batch(Embeddings embeddings, List<String> texts, double seconds) {
        embeddings.embed(texts);
        long start = System.nanoTime();
        long done = 0;
        while (System.nanoTime() - start < seconds * 1e9) {
            embeddings.embed(texts);
            done += texts.size();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        System.out.printf("in-process batch: %.1f texts/s (%d texts in %.1f s)%n", done / elapsed, done, elapsed);
    }

    /** One text at a time, cycling through them, for {@code seconds} after as long a warm-up; the median call. */
    private static void single(Embeddings embeddings, List<String> texts, double seconds) {
        long warm = System.nanoTime();
        for (int i = 0; System.nanoTime() - warm < seconds * 1e9; i++) {
            embeddings.embed(texts.get(i % texts.size()));
        }
        List<Long> times = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; System.nanoTime() - start < seconds * 1e9; i++) {
            long t = System.nanoTime();
            embeddings.embed(texts.get(i % texts.size()));
            times.add(System.nanoTime() - t);
        }
        long[] sorted = times.stream().mapToLong(Long::longValue).sorted().toArray();
        System.out.printf("in-process single: median %.2f ms, p99 %.2f ms over %d calls%n", sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.99)] / 1e6, sorted.length);
    }
}
