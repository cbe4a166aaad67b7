package org.vectorbert.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.Reranker;
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
                + "as TEI's /rerank does.",
        footer = {"", "Examples:",
            "  vectorbert rerank --model path/to/ms-marco-MiniLM-L-6-v2 --query \"capital of France\" \"Paris is in France.\" \"Bananas are yellow.\"",
            "  vectorbert rerank --model path/to/reranker --query \"...\" --top-k 10 --json --file passages.txt   (one text per line)"},
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

    @Option(names = "--json", description = "One JSON array of {index, score}, best first, as TEI's /rerank answers.")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

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
        Reranker reranker = Reranker.load(modelOptions.directory(err).toString(), modelOptions.precision());
        List<Reranker.Score> ranked = reranker.rank(query, all, rawScores, topK == null ? all.size() : topK);
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
}
