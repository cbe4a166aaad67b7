package org.vectorbert.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.M3Embeddings;
import org.vectorbert.engine.Reranker;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.loader.Labels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "rerank",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = "Order texts by how well they answer a query, with a cross-encoder (a one-label sequence-classification model), "
                + "as TEI's /rerank does, or with bge-m3's dense, sparse and ColBERT scores.",
        footer = {"", "Examples:",
            "  vectorbert rerank --model cross-encoder/ms-marco-MiniLM-L6-v2 --query \"capital of France\" \"Paris is in France.\" \"Bananas are yellow.\"",
            "  vectorbert rerank --model BAAI/bge-reranker-base --query \"...\" --top-k 10 --json --file passages.txt   (one text per line)",
            "  vectorbert rerank --model BAAI/bge-m3 --mode colbert+sparse+dense --weights 0.4,0.2,0.4 --query \"...\" \"...\" \"...\""},
        sortOptions = false)
final class RerankCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--query", paramLabel = "Q", required = true, description = "The query the texts are scored against.")
    String query;

    @Option(names = "--top-k", paramLabel = "K", description = "Show only the K best texts (default: all).")
    Integer topK;

    @Option(names = "--raw-scores", description = "Scores are the model's logits, not their sigmoid (what CrossEncoder gives for models "
            + "that store an identity activation).")
    boolean rawScores;

    @Option(names = "--mode", paramLabel = "MODE", description = "A bge-m3 model's score (a model with sparse_linear.pt and colbert_linear.pt):"
            + " dense, sparse, colbert, sparse+dense or colbert+sparse+dense (the default), as FlagEmbedding's compute_score.")
    String mode;

    @Option(names = "--weights", paramLabel = "D,S,C", split = ",", description = "A bge-m3 model's weights of the dense, sparse and ColBERT"
            + " scores in the combined modes (default: 1,1,1).")
    List<Float> weights;

    @Option(names = "--json", description = "One JSON array of {index, score}, best first, as TEI's /rerank answers.")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

    @Mixin
    ServeClient.Option server;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Texts to rank.")
    List<String> texts = new ArrayList<>();

    @Override
    public Integer call() {
        Arguments.requireValidUtf8("--query", query);
        if (topK != null && topK <= 0) {
            throw new UserError("--top-k must be positive, was " + topK);
        }
        List<String> all = new ArrayList<>();
        TextInput.forEach(texts, file, System.in, all::add);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int k = topK == null ? all.size() : topK;
        List<Reranker.Score> ranked;
        if ((mode != null || weights != null) && (server.given() || rawScores)) {
            throw new UserError("--mode and --weights go without " + (rawScores ? "--raw-scores" : "--server"));
        }
        if (server.given()) {
            ranked = Reranker.ranked(scoresFromServer(all, err), k);
        } else {
            ranked = modelOptions.load(err, dir -> {
                boolean m3 = mode != null || weights != null || Files.isRegularFile(Path.of(dir, M3Embeddings.SPARSE_FILE))
                        && Files.isRegularFile(Path.of(dir, M3Embeddings.COLBERT_FILE));
                return m3 ? Reranker.ranked(m3Scores(M3Embeddings.load(dir), all), k)
                        : Reranker.load(dir, modelOptions.precision()).rank(query, all, rawScores, k);
            });
        }
        if (json) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (Reranker.Score s : ranked) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("index", s.index());
                o.put("score", s.score());
                list.add(o);
            }
            out.println(JsonText.of(list));
        } else {
            out.println("\"" + Excerpt.printable(query) + "\"");
            for (int r = 0; r < ranked.size(); r++) {
                Reranker.Score s = ranked.get(r);
                out.printf("  %3d  %9.4f  #%d  %s%n", r + 1, s.score(), s.index(), Excerpt.printable(Excerpt.of(all.get(s.index()))));
            }
        }
        out.flush();
        return 0;
    }

    /** Each text's score by a bge-m3 model, in the texts' order, with --mode and --weights. */
    private float[] m3Scores(M3Embeddings m3, List<String> all) {
        M3Embeddings.Mode chosen;
        try {
            chosen = mode == null ? M3Embeddings.Mode.ALL : M3Embeddings.Mode.of(mode);
        } catch (EngineException e) {
            throw new UserError("--mode: " + e.getMessage());
        }
        float[] w = M3Embeddings.DEFAULT_WEIGHTS;
        if (weights != null) {
            if (weights.size() != 3 || weights.stream().anyMatch(x -> x == null || !(x >= 0)) || weights.stream().mapToDouble(x -> x).sum() <= 0) {
                throw new UserError("--weights must be three non-negative numbers, not all 0 (dense, sparse, colbert), was " + weights);
            }
            w = new float[] {weights.get(0), weights.get(1), weights.get(2)};
        }
        return m3.rerank(query, all, chosen, w);
    }

    /**
     * Each text's score, in the texts' order, from a running server's {@code POST /rerank}: the texts in batches of its
     * {@code max_client_batch_size}, cut to fit as the local reranker cuts them, for the logits ({@code raw_scores}),
     * turned into scores here as the local reranker turns its own; ranked as it ranks them, the output is the local one
     * to the last bit.
     */
    private float[] scoresFromServer(List<String> all, PrintWriter err) {
        ServeClient client = ServeClient.connect(server.url, "rerank", modelOptions, spec, err);
        Labels labels = client.classifierLabels("rerank");
        if (labels.count() != 1) {
            throw new UserError("the server at " + server.url + " serves " + client.info().path("model_id").asText()
                    + ", which is not a reranker: its classifier has " + labels.count() + " labels " + labels.names()
                    + ", a reranker one score");
        }
        float[] scores = new float[all.size()];
        int batch = client.batchSize(all.size());
        for (int from = 0; from < all.size(); from += batch) {
            List<String> texts = all.subList(from, Math.min(all.size(), from + batch));
            ObjectNode body = JsonText.object().put("query", query);
            ArrayNode array = body.putArray("texts");
            texts.forEach(array::add);
            body.put("raw_scores", true).put("truncate", true);
            JsonNode answer = client.post("rerank", body, file, from + 1, texts.size(), false);
            boolean[] seen = new boolean[texts.size()];
            for (JsonNode item : answer) {
                int i = item.path("index").asInt(-1);
                if (!item.path("index").canConvertToInt() || i < 0 || i >= texts.size() || seen[i] || !item.path("score").isNumber()) {
                    break;
                }
                seen[i] = true;
                float logit = item.get("score").floatValue();
                scores[from + i] = rawScores ? logit : TextClassifier.Function.SIGMOID.apply(new float[] {logit}, 0, 1)[0];
            }
            for (boolean s : seen) {
                if (!s) {
                    throw new UserError("the server's /rerank answer does not score each of the " + texts.size() + " texts once: "
                            + Excerpt.of(answer.toString()));
                }
            }
        }
        return scores;
    }
}
