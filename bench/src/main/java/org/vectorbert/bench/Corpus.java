package org.vectorbert.bench;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * A corpus of real English lines of very different lengths, from the texts every Debian machine
 * has: the license texts in {@code /usr/share/common-licenses} and the packages' copyright files in
 * {@code /usr/share/doc}. Paragraphs are cut into lines of 4 to 120 words (seeded, so the same
 * machine gives the same lines), duplicates dropped, in a fixed order.
 *
 * <pre>java -cp bench/target/vectorbert-bench.jar org.vectorbert.bench.Corpus LINES OUT.txt</pre>
 */
public final class Corpus {
    private Corpus() {}

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Corpus LINES OUT.txt");
            System.exit(2);
        }
        List<String> lines = lines(Integer.parseInt(args[0]));
        Files.write(Path.of(args[1]), lines, StandardCharsets.UTF_8);
        long words = lines.stream().mapToLong(l -> l.split(" ").length).sum();
        System.err.printf("corpus: %d lines, %d words (%.1f per line), to %s%n", lines.size(), words, (double) words / lines.size(),
                args[1]);
    }

    /** {@code count} lines (repeating the sources' lines in the same order if they hold fewer). */
    public static List<String> lines(int count) throws IOException {
        LinkedHashSet<String> unique = new LinkedHashSet<>();
        SplittableRandom random = new SplittableRandom(2026);
        for (Path file : sources()) {
            String text;
            try {
                text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
            } catch (CharacterCodingException e) {
                continue;   // a file in another encoding: not a source of UTF-8 lines
            }
            for (String paragraph : text.split("\\n\\s*\\n")) {
                String[] words = paragraph.trim().split("\\s+");
                for (int at = 0; at < words.length; ) {
                    int length = Math.min(words.length - at, 4 + random.nextInt(117));
                    if (length >= 4) {
                        unique.add(String.join(" ", java.util.Arrays.copyOfRange(words, at, at + length)));
                    }
                    at += length;
                }
            }
        }
        List<String> all = new ArrayList<>(unique);
        List<String> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(all.get(i % all.size()));
        }
        return out;
    }

    private static List<Path> sources() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> licenses = Files.list(Path.of("/usr/share/common-licenses"))) {
            licenses.filter(p -> Files.isRegularFile(p) && !Files.isSymbolicLink(p)).sorted().forEach(files::add);
        }
        try (Stream<Path> docs = Files.list(Path.of("/usr/share/doc"))) {
            docs.map(d -> d.resolve("copyright")).filter(p -> Files.isRegularFile(p) && !Files.isSymbolicLink(p)).sorted()
                    .forEach(files::add);
        }
        return files;
    }
}
