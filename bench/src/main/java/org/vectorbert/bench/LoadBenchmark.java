package org.vectorbert.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.vectorbert.engine.BertModel;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.Tensor;

/**
 * Time to open a checkpoint (config parsed and validated, safetensors validated and mapped, every
 * tensor resolved by name) with a warm page cache, and the resident memory it costs before and
 * after every weight page has been touched; then the whole model load the engine does on top
 * (every block's weights taken by name and shape-checked, the matrices mapped from the packed file
 * in the vectorbert cache, which the first of those loads writes if it is missing or stale).
 *
 * <pre>bench/run load [--model DIR]</pre>
 */
public final class LoadBenchmark {
    private LoadBenchmark() {}

    public static void main(String[] args) throws IOException {
        Path model = ModelArgs.modelDirectory(args, "bench/run load [--model DIR]");
        // Warm the page cache, as a second run of the command would find it.
        try (var files = Files.list(model)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".safetensors")).toList()) {
                try (var in = Files.newInputStream(f)) {
                    in.transferTo(java.io.OutputStream.nullOutputStream());
                }
            }
        }
        // The first open in a fresh JVM also pays for class loading and JIT warm-up, as a CLI run does.
        long start = System.nanoTime();
        resolveEvery(model);
        double firstMs = (System.nanoTime() - start) / 1e6;
        Measure m = Measure.of(5, 21, () -> resolveEvery(model));
        long before = residentKb();
        try (BertCheckpoint c = BertCheckpoint.open(model)) {
            long mapped = residentKb();
            double sum = 0;
            for (Tensor t : c.tensors().values()) {
                for (long b = 0; b < t.data().byteSize(); b += 4096) {
                    sum += t.data().get(java.lang.foreign.ValueLayout.JAVA_BYTE, b);
                }
            }
            long touched = residentKb();
            System.out.printf("model: %s, %d tensors, %.1f MB of weights%n", model, c.tensors().size(), c.byteCount() / 1e6);
            System.out.printf("open (validate, map, resolve every tensor by name), warm cache: first in a fresh JVM %.1f ms;"
                    + " then median %.1f ms (best %.1f, worst %.1f) over %d runs%n",
                    firstMs, m.medianSeconds() * 1e3, m.minSeconds() * 1e3, m.maxSeconds() * 1e3, m.rounds());
            System.out.printf("resident memory: +%.1f MB after open, +%.1f MB after touching every weight page = %.3f x the weight bytes (checksum %s)%n",
                    (mapped - before) * 1024 / 1e6, (touched - before) * 1024 / 1e6, (touched - before) * 1024.0 / c.byteCount(),
                    sum != 0);
        }
        Measure full = Measure.of(1, 5, () -> BertModel.load(model));
        System.out.printf("engine load (every block's weights taken by name, shape-checked, the matrices mapped from the packed file): median %.1f ms"
                + " (best %.1f) over %d runs%n", full.medianSeconds() * 1e3, full.minSeconds() * 1e3, full.rounds());
    }

    /** Opens the checkpoint and finds every tensor under its own name, as loading does. */
    private static void resolveEvery(Path model) {
        try (BertCheckpoint c = BertCheckpoint.open(model)) {
            for (Tensor t : c.tensors().values()) {
                c.require(t.name(), t.shape());
            }
        }
    }

    /** VmRSS from /proc/self/status, in kB. */
    public static long residentKb() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return -1;
    }
}
