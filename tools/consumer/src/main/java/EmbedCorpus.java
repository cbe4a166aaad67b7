import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.vectorbert.engine.Embeddings;

/**
 * docs/library.md's EmbeddingsExample over a file: every line of LINES.txt embedded with MODEL's own options (what
 * {@code vectorbert embed --model MODEL --file LINES.txt} does; no MODEL, bert-base-uncased), 2,048 lines per call, the vectors written to OUT as
 * little-endian float32 rows (the data of the command's {@code --output X.npy}, without its header). Then one line:
 * texts, seconds, and the JVM's peak resident memory (VmHWM in /proc/self/status, what {@code /usr/bin/time -v}
 * reports as the maximum resident set size). bench/library-memory measures it beside the command.
 *
 * <pre>mvn -q compile exec:exec -Dmain.class=EmbedCorpus -Dmain.args="LINES.txt OUT.f32 [MODEL]"</pre>
 */
public class EmbedCorpus {
    public static void main(String[] args) throws IOException {
        if (args.length != 2 && args.length != 3) {
            System.err.println("usage: EmbedCorpus LINES.txt OUT.f32 [MODEL]");
            System.exit(2);
        }
        long start = System.nanoTime();
        Embeddings embeddings = args.length == 3 ? Embeddings.load(args[2]) : Embeddings.load();
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        ByteBuffer row = ByteBuffer.allocate(4 * embeddings.dimension()).order(ByteOrder.LITTLE_ENDIAN);
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(Path.of(args[1])))) {
            for (int from = 0; from < lines.size(); from += 2048) {
                for (float[] v : embeddings.embed(lines.subList(from, Math.min(lines.size(), from + 2048)))) {
                    row.clear();
                    row.asFloatBuffer().put(v);
                    out.write(row.array());
                }
            }
        }
        String peak = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("VmHWM:"))
                .map(l -> l.replaceAll("\\D", "")).findFirst().orElse("0");
        System.out.printf("EmbedCorpus: %d texts in %.1f s; peak resident memory %d MB%n", lines.size(),
                (System.nanoTime() - start) / 1e9, Long.parseLong(peak) * 1024 / 1_000_000);
    }
}
