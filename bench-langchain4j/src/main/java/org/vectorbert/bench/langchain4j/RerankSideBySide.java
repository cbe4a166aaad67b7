package org.vectorbert.bench.langchain4j;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.scoring.onnx.OnnxScoringModel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vectorbert.engine.Reranker;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * One query against passages of real text, scored by the same MiniLM cross-encoder (all-MiniLM-L6-v2's encoder with
 * the rerank head trained by tools/torch-reference/train_minilm_heads.py) through langchain4j's {@code OnnxScoringModel}
 * (ONNX Runtime on the model's torch.onnx export, DJL's tokenizer) and through vectorbert's {@link Reranker}, in
 * alternating rounds of one JVM on the same cores. Each round scores every (query, passage) pair once; prints pairs/s
 * per round, the medians and their ratio, and how far the two disagree on the scores.
 *
 * <pre>
 * java --add-modules jdk.incubator.vector -cp vectorbert-bench-langchain4j.jar:lib/* \
 *     org.vectorbert.bench.langchain4j.RerankSideBySide MINILM_DIR HEAD_DIR ONNX_DIR WORK_DIR [ROUNDS] [PASSAGES] [TOKENS]
 * </pre>
 * MINILM_DIR is {@code vectorbert convert --from-onnx} of langchain4j's MiniLM jar; HEAD_DIR the committed rerank head
 * (engine/src/test/resources/minilm-heads/rerank); ONNX_DIR holds the export as model.onnx; the checkpoint vectorbert
 * reads is assembled under WORK_DIR as the engine's MiniLmTrainedHeadsTest assembles it.
 *
 * <p>With {@code -Drerank.serve=BIN/vectorbert}, each round also sends the same query and passages to {@code vectorbert
 * serve} over loopback as one TEI {@code POST /rerank} (raw scores), the server a child process started here on that
 * checkpoint and idle while the other two run: pairs/s through HTTP beside the library's, and their ratio.
 */
public final class RerankSideBySide {
    private static final String QUERY = "May I distribute modified copies of the program, and must I give the source code with them?";

    /** No padding, no cut: tokenizer.json's own sections (langchain4j's pads and cuts at 128) left out. */
    private static final EncodeOptions PLAIN = EncodeOptions.defaults().withPadding(Padding.NONE);

    private RerankSideBySide() {}

    public static void main(String[] args) throws IOException {
        Path minilm = Path.of(args[0]);
        Path head = Path.of(args[1]);
        Path onnx = Path.of(args[2]);
        Path work = Path.of(args[3]);
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        int count = args.length > 5 ? Integer.parseInt(args[5]) : 100;
        int tokens = args.length > 6 ? Integer.parseInt(args[6]) : 150;

        Path checkpoint = crossEncoder(minilm, head, work.resolve("minilm-rerank"));
        Reranker reranker = Reranker.load(checkpoint.toString());
        Tokenizer tokenizer = reranker.classifier().tokenizer();
        List<String> passages = passages(tokenizer, count, tokens);
        int[] lengths = passages.stream().mapToInt(p -> tokenizer.encode(QUERY, p, PLAIN).length()).sorted().toArray();
        // langchain4j's tokenizer.json pads and cuts at 128 tokens, and DJL keeps that cut whatever OnnxScoringModel's
        // maxLength says (measured: a 295-token pair came out at 128); without those sections DJL pads to the longest
        // pair and cuts at 512, as vectorbert's Reranker does here (tokenizer_config.json), so both score whole pairs.
        ObjectNode tokenizerJson = (ObjectNode) new ObjectMapper().readTree(minilm.resolve("tokenizer.json").toFile());
        tokenizerJson.putNull("truncation");
        tokenizerJson.putNull("padding");
        new ObjectMapper().writeValue(onnx.resolve("tokenizer.json").toFile(), tokenizerJson);
        OnnxScoringModel onnxModel = new OnnxScoringModel(onnx.resolve("model.onnx").toString(), onnx.resolve("tokenizer.json").toString());
        List<TextSegment> segments = passages.stream().map(TextSegment::from).toList();

        System.out.printf("query + %d passages of real text: pairs of %d-%d tokens (median %d), %d in all; vectorbert takes up to %d%n",
                passages.size(), lengths[0], lengths[lengths.length - 1], lengths[lengths.length / 2],
                Arrays.stream(lengths).sum(), reranker.classifier().maxTokens());
        System.out.printf("machine: %d cores, %s%n", Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"));

        // The same model in both: ONNX Runtime's logits against vectorbert's raw scores, and the same order.
        float[] ours = reranker.scores(QUERY, passages, true);
        List<Double> theirs = onnxModel.scoreAll(segments, QUERY).content();
        double worst = 0;
        for (int i = 0; i < ours.length; i++) {
            worst = Math.max(worst, Math.abs(ours[i] - theirs.get(i)));
        }
        System.out.printf("scores: largest |vectorbert - ONNX Runtime| logit difference %.2e over %d pairs; best passage %d / %d%n",
                worst, ours.length, argmax(ours), argmax(theirs.stream().mapToDouble(Double::doubleValue).toArray()));

        String launcher = System.getProperty("rerank.serve");
        Server server = launcher == null ? null : Server.start(launcher, checkpoint, passages.size());
        try {
            String body = new ObjectMapper().writeValueAsString(Map.of("query", QUERY, "texts", passages, "raw_scores", true));
            for (int w = 0; w < 2; w++) {   // warm all up: JIT, ONNX Runtime's arena, the server's passes
                reranker.scores(QUERY, passages, true);
                onnxModel.scoreAll(segments, QUERY);
                if (server != null) {
                    server.rerank(body);
                }
            }
            double[] vb = new double[rounds];
            double[] lc = new double[rounds];
            double[] sv = new double[rounds];
            double[] ratio = new double[rounds];
            double[] served = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                long t0 = System.nanoTime();
                reranker.scores(QUERY, passages, true);
                long t1 = System.nanoTime();
                onnxModel.scoreAll(segments, QUERY);
                long t2 = System.nanoTime();
                vb[r] = passages.size() / ((t1 - t0) / 1e9);
                lc[r] = passages.size() / ((t2 - t1) / 1e9);
                ratio[r] = vb[r] / lc[r];
                String line = String.format("round %2d: vectorbert %.1f pairs/s (%.0f ms), langchain4j OnnxScoringModel %.1f pairs/s (%.0f ms): %.2fx",
                        r + 1, vb[r], (t1 - t0) / 1e6, lc[r], (t2 - t1) / 1e6, ratio[r]);
                if (server != null) {
                    long t3 = System.nanoTime();
                    server.rerank(body);
                    long t4 = System.nanoTime();
                    sv[r] = passages.size() / ((t4 - t3) / 1e9);
                    served[r] = sv[r] / vb[r];
                    line += String.format("; POST /rerank %.1f pairs/s (%.0f ms): %.2fx the library", sv[r], (t4 - t3) / 1e6, served[r]);
                }
                System.out.println(line);
            }
            double vbm = median(vb);
            double lcm = median(lc);
            System.out.println();
            System.out.printf("| | pairs/s (median of %d) | / OnnxScoringModel |%n|---|---|---|%n", rounds);
            System.out.printf("| langchain4j OnnxScoringModel 1.0.0-beta2 (ONNX Runtime 1.20) | %.1f | 1.00 |%n", lcm);
            System.out.printf("| vectorbert Reranker.scores | %.1f | %.2f |%n", vbm, vbm / lcm);
            if (server != null) {
                System.out.printf("| vectorbert serve, POST /rerank (loopback, one request of %d passages) | %.1f | %.2f |%n", passages.size(),
                        median(sv), median(sv) / lcm);
            }
            // Each round's runs are back to back, so the round's ratio is what load from elsewhere disturbs least.
            System.out.println("ratio per round: " + spread(ratio) + " vectorbert / OnnxScoringModel");
            if (server != null) {
                System.out.println("ratio per round: " + spread(served) + " POST /rerank / Reranker.scores");
            }
        } finally {
            if (server != null) {
                server.stop();
            }
        }
    }

    private static String spread(double[] ratio) {
        double[] sorted = ratio.clone();
        Arrays.sort(sorted);
        return String.format("median %.2fx, range %.2f-%.2fx", median(ratio), sorted[0], sorted[sorted.length - 1]);
    }

    /** {@code vectorbert serve} as a child process on a free loopback port, taking {@code passages} texts a request. */
    private record Server(Process process, URI rerank, HttpClient http) {
        static Server start(String launcher, Path checkpoint, int passages) throws IOException {
            Process p = new ProcessBuilder(launcher, "serve", "--model", checkpoint.toString(), "--port", "0",
                    "--max-client-batch-size", Integer.toString(Math.max(32, passages))).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
            for (String line; (line = err.readLine()) != null; ) {
                int at = line.indexOf("ready on http");
                if (at >= 0) {
                    // Keep reading its stderr, so the server never blocks on a full pipe; the stream closes when it stops.
                    Thread.ofVirtual().start(() -> {
                        try {
                            err.transferTo(java.io.Writer.nullWriter());
                        } catch (IOException closed) {
                            // the server has stopped
                        }
                    });
                    String url = line.substring(at + "ready on ".length()).trim();
                    return new Server(p, URI.create(url.endsWith("/") ? url + "rerank" : url + "/rerank"), HttpClient.newHttpClient());
                }
            }
            throw new IOException(launcher + " serve ended before it was ready (exit " + p.onExit().join().exitValue() + ")");
        }

        void rerank(String body) throws IOException {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(rerank).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IOException("POST /rerank answered " + r.statusCode() + ": " + r.body());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }

        void stop() {
            process.destroy();
            process.onExit().join();
        }
    }

    /** Passages of about {@code tokens} tokens each (the pair with the query a few more), cut from the licence texts. */
    static List<String> passages(Tokenizer tokenizer, int count, int tokens) throws IOException {
        Set<Path> files = new LinkedHashSet<>();
        try (var list = Files.list(Path.of("/usr/share/common-licenses"))) {
            list.map(p -> {
                try {
                    return p.toRealPath();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).sorted().forEach(files::add);
        }
        List<String> words = new ArrayList<>();
        for (Path f : files) {
            words.addAll(Arrays.asList(Files.readString(f, StandardCharsets.UTF_8).trim().split("\\s+")));
        }
        List<String> passages = new ArrayList<>();
        int at = 0;
        while (passages.size() < count && at < words.size()) {
            StringBuilder passage = new StringBuilder();
            int n = 0;
            while (n < tokens && at < words.size()) {
                String word = words.get(at++);
                n += tokenizer.encode(word, PLAIN).length() - 2;   // the word's tokens without [CLS] and [SEP]
                passage.append(passage.isEmpty() ? "" : " ").append(word);
            }
            passages.add(passage.toString());
        }
        return passages;
    }

    /**
     * transformers' sharded BertForSequenceClassification layout: MiniLM's encoder as bert.* in the first shard,
     * the committed head shard, config and tokenizer config beside it, MiniLM's tokenizer.json.
     */
    static Path crossEncoder(Path minilm, Path head, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path encoder = dir.resolve("model-00001-of-00002.safetensors");
        if (!Files.exists(encoder)) {
            try (SafetensorsFile source = SafetensorsFile.open(minilm.resolve("model.safetensors"))) {
                List<Tensor> tensors = source.tensors().values().stream().filter(t -> !t.name().startsWith("pooler."))
                        .sorted(Comparator.comparing(Tensor::name)).toList();
                List<SafetensorsWriter.Spec> specs = tensors.stream()
                        .map(t -> new SafetensorsWriter.Spec("bert." + t.name(), t.dtype(), t.shape())).toList();
                try (SafetensorsWriter writer = new SafetensorsWriter(encoder, specs, Map.of("format", "pt"))) {
                    tensors.forEach(t -> writer.write(t.data()));
                    writer.finish();
                }
            }
        }
        for (String name : List.of("config.json", "tokenizer_config.json", "model.safetensors.index.json", "model-00002-of-00002.safetensors")) {
            Files.copy(head.resolve(name), dir.resolve(name), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        Files.copy(minilm.resolve("tokenizer.json"), dir.resolve("tokenizer.json"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return dir;
    }

    private static int argmax(float[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) {
            best = x[i] > x[best] ? i : best;
        }
        return best;
    }

    private static int argmax(double[] x) {
        int best = 0;
        for (int i = 1; i < x.length; i++) {
            best = x[i] > x[best] ? i : best;
        }
        return best;
    }

    private static double median(double[] x) {
        double[] s = x.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
