package org.vectorbert.bench.langchain4j;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How close two runs' vectors are, row by row: each file vectorbert's {@code .npy} ([n, dim] float32) or raw
 * little-endian float32 rows ({@link EmbedAll}'s). Prints the smallest and the mean cosine, and LABEL if given.
 *
 * <pre>java -cp bench-langchain4j/target/vectorbert-bench-langchain4j.jar org.vectorbert.bench.langchain4j.CompareVectors A.npy B.f32 DIM [LABEL]</pre>
 */
public final class CompareVectors {
    private CompareVectors() {}

    public static void main(String[] args) throws IOException {
        ByteBuffer npy = rows(args[0]);
        ByteBuffer raw = rows(args[1]);
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
        System.out.printf("vectors%s: %d of %d dimensions, cosine smallest %.7f, mean %.7f%n",
                args.length > 3 ? " (" + args[3] + ")" : "", n, dim, worst, total / n);
    }

    /** A file's float32 rows: after the header of an {@code .npy}, else from the start (raw rows). */
    private static ByteBuffer rows(String file) throws IOException {
        ByteBuffer rows = ByteBuffer.wrap(Files.readAllBytes(Path.of(file))).order(ByteOrder.LITTLE_ENDIAN);
        if (file.endsWith(".npy")) {
            int headerLength = rows.getShort(8) & 0xFFFF;
            rows.position(10 + headerLength);
        }
        return rows;
    }
}
