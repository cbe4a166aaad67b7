package org.vectorbert.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.FillMask;
import org.vectorbert.engine.FillMaskOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "fill-mask",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = "Predict the words behind each [MASK] of a text, as Hugging Face's fill-mask pipeline does.",
        footer = {"", "Examples:",
            "  vectorbert fill-mask \"Paris is the [MASK] of France.\"",
            "  vectorbert fill-mask --top-k 3 --targets nurse,doctor \"The woman worked as a [MASK].\"",
            "  vectorbert fill-mask --json --file queries.txt      (one text per line; - reads standard input)",
            "  vectorbert fill-mask --model google-bert/bert-base-uncased@main \"The [MASK] barked.\"",
            "  vectorbert fill-mask --model uncased_L-12_H-768_A-12 \"...\"   (a TensorFlow checkpoint, converted once)"},
        sortOptions = false)
final class FillMaskCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--top-k", paramLabel = "K", defaultValue = "5", description = "Candidates per mask (default: ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--targets", paramLabel = "WORDS", description = "Only rank these words (comma-separated).")
    String targetWords;

    @Option(names = "--json", description = "One JSON line per text in the pipeline's shape: a list of {score, token, token_str, sequence}, or a list of such lists for several masks.")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Texts with one or more [MASK].")
    List<String> texts = new ArrayList<>();

    @Override
    public Integer call() {
        Arguments.requireValidUtf8("--targets", targetWords);
        if (topK <= 0) {
            throw new UserError("--top-k must be positive, was " + topK);
        }
        // Split here rather than by picocli, which drops empty words: ",," must be refused, not rank the whole vocabulary.
        List<String> targets = targetWords == null ? List.of() : List.of(targetWords.split(",", -1));
        if (targets.stream().anyMatch(String::isBlank)) {
            throw new UserError("--targets has an empty word: give comma-separated words, as in --targets nurse,doctor");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        FillMaskOptions options = new FillMaskOptions(modelOptions.precision(), topK, targets);
        FillMask fill = FillMask.load(modelOptions.directory(err).toString(), options);
        fill.warnings().forEach(w -> err.println("fill-mask: " + w));
        int ranked = targets.isEmpty() ? fill.model().config().vocabSize() : fill.targetIds().length;
        if (topK > ranked) {
            err.println("fill-mask: --top-k " + topK + " is more than the " + ranked + (targets.isEmpty() ? " tokens of the vocabulary"
                    : " targets") + "; showing all " + ranked);
        }
        RunProgress progress = new RunProgress(err, "fill-mask:", file != null);
        TextInput.forEachBatch(texts, file, System.in, 1, (batch, first, read, total) -> {
            String text = batch.getFirst();
            FillMask.Prediction prediction = fill.predict(text);
            out.println(json ? toJson(prediction.masks()) : table(text, prediction.masks()));
            out.flush();
            progress.done(1, prediction.tokens(), read, total);
        });
        progress.finish();
        return 0;
    }

    private static String toJson(List<List<FillMask.Candidate>> masks) {
        List<Object> lists = new ArrayList<>();
        for (List<FillMask.Candidate> candidates : masks) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (FillMask.Candidate c : candidates) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("score", c.score());
                o.put("token", c.token());
                o.put("token_str", c.tokenStr());
                o.put("sequence", c.sequence());
                list.add(o);
            }
            lists.add(list);
        }
        return JsonText.of(lists.size() == 1 ? lists.getFirst() : lists);
    }

    private static String table(String text, List<List<FillMask.Candidate>> masks) {
        StringBuilder b = new StringBuilder("\"").append(Excerpt.printable(text)).append("\"\n");
        for (int m = 0; m < masks.size(); m++) {
            if (masks.size() > 1) {
                b.append(String.format("  mask %d of %d%n", m + 1, masks.size()));
            }
            int width = masks.get(m).stream().mapToInt(c -> c.tokenStr().length()).max().orElse(5);
            for (int i = 0; i < masks.get(m).size(); i++) {
                FillMask.Candidate c = masks.get(m).get(i);
                b.append(String.format("  %2d  %-" + width + "s  %.4f  %s%n", i + 1, c.tokenStr(), c.score(), Excerpt.printable(c.sequence())));
            }
        }
        return b.toString();
    }
}
