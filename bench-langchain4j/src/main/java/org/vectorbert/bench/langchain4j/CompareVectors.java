package org.vectorbert.bench.langchain4j;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How close two runs' vectors are: vectorbert's {@code .npy} ([n, dim] float32), or raw rows, against
 * {@link EmbedAll}'s raw little-endian float32 rows. Prints the smallest and the mean cosine.
 *
 * <pre>java -cp bench-langchain4j/target/vectorbert-bench-langchain4j.jar org.vectorbert.bench.langchain4j.CompareVectors A.npy B.f32 DIM</pre>
 */
public final class CompareVectors {
    private CompareVectors() {}

    public static void main(String[] args) throws IOException {
        ByteBuffer npy = ByteBuffer.wrap(Files.readAllBytes(Path.of(args[0]))).order(ByteOrder.LITTLE_ENDIAN);
        if (args[0].endsWith(".npy")) {   // else raw rows too (InterfaceEmbedAll's)
            int headerLength = npy.getShort(8) & 0xFFFF;
            npy.position(10 + headerLength);
        }
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(Path.of(args[1]))).order(ByteOrder.LITTLE_ENDIAN);
        int dim = Integer.parseInt(args[2]);
        int n = raw.remaining() / 4 / dim;
        if (npy.remaining() / 4 / dim != n) {
            throw new IllegalStateException(args[0] + " has " + npy.remaining() / 4 / dim + " vectors, " + args[1] + " " + n);
        }
        double worst = 1;
        double total = 0;
        for (int i = 0; i < n; i++) {
            double dot = 0;
            double a = 0;
            double b = 0;
            for (int d = 0; d < dim; d++) {
                float x = npy.getFloat();
                float y = raw.getFloat();
                dot += (double) x * y;
                a += (double) x * x;
                b += (double) y * y;
            }
            double cosine = dot / Math.sqrt(a * b);
            worst = Math.min(worst, cosine);
            total += cosine;
        }
        System.out.printf("vectors: %d of %d dimensions, cosine smallest %.7f, mean %.7f%n", n, dim, worst, total / n);
    }
}
