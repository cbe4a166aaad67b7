package org.vectorbert.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
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
            "  vectorbert fill-mask --server http://127.0.0.1:8080 \"The [MASK] barked.\"   (answered by a running 'vectorbert serve')",
            "  vectorbert fill-mask --model uncased_L-12_H-768_A-12 \"...\"   (a TensorFlow checkpoint, converted once)"},
        sortOptions = false)
final class FillMaskCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Mixin
    ServeClient.Option server;

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
        if (server.given()) {
            return viaServer(targets, out, err);
        }
        FillMaskOptions options = new FillMaskOptions(modelOptions.precision(), topK, targets);
        FillMask fill = modelOptions.load(err, dir -> FillMask.load(dir, options));
        fill.warnings().forEach(w -> err.println("fill-mask: " + w));
        int ranked = targets.isEmpty() ? fill.model().config().vocabSize() : fill.targetIds().length;
        if (topK > ranked && topKGiven()) {
            warnTopK(err, ranked, targets);
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

    /**
     * The texts sent to a running server's {@code POST /fill-mask} one at a time, as the local pipeline takes them, and its
     * answers printed as the local ones are: the same candidates to the last bit (a float's shortest decimal reads back
     * as the same float).
     */
    private int viaServer(List<String> targets, PrintWriter out, PrintWriter err) {
        ServeClient client = ServeClient.connect(server.url, "fill-mask", modelOptions, spec, err);
        if (!client.info().path("fill_mask").asBoolean()) {
            throw new UserError("the server at " + server.url + " serves " + client.info().path("model_id").asText()
                    + ", which has no masked-language-model head, so it cannot fill masks");
        }
        RunProgress progress = new RunProgress(err, "fill-mask:", file != null).countingTexts();
        AtomicBoolean warned = new AtomicBoolean();
        TextInput.forEachBatch(texts, file, System.in, 1, (batch, first, read, total) -> {
            ObjectNode body = JsonText.object();
            body.put("inputs", batch.getFirst());
            ObjectNode parameters = body.putObject("parameters").put("top_k", topK);
            if (!targets.isEmpty()) {
                ArrayNode words = parameters.putArray("targets");
                targets.forEach(words::add);
            }
            JsonNode answer = client.post("fill-mask", body, file, first, 1, file == null && texts.size() == 1);
            List<List<FillMask.Candidate>> masks = candidates(answer);
            int ranked = masks.getFirst().size();
            if (ranked < topK && topKGiven() && !warned.getAndSet(true)) {
                warnTopK(err, ranked, targets);            // as the local run says it (the server ranks all there are)
            }
            out.println(json ? toJson(masks) : table(batch.getFirst(), masks));
            out.flush();
            progress.done(1, 0, read, total);
        });
        progress.finish();
        return 0;
    }

    /** Whether the user gave --top-k: the default 5 is more than two --targets, and showing both needs no warning. */
    private boolean topKGiven() {
        return spec.commandLine().getParseResult().hasMatchedOption("--top-k");
    }

    /** --top-k asks for more candidates than the {@code ranked} tokens there are to rank. */
    private void warnTopK(PrintWriter err, int ranked, List<String> targets) {
        err.println("fill-mask: --top-k " + topK + " is more than the " + ranked + (targets.isEmpty() ? " tokens of the vocabulary"
                : " targets") + "; showing all " + ranked);
    }

    /** A {@code /fill-mask} answer for one text: its candidates (one mask), or a list of them per mask. */
    private static List<List<FillMask.Candidate>> candidates(JsonNode answer) {
        if (!answer.isArray() || answer.isEmpty()) {
            throw new UserError("the server's fill-mask answer is not a list of candidates: " + Excerpt.of(answer.toString()));
        }
        List<List<FillMask.Candidate>> masks = new ArrayList<>();
        if (answer.get(0).isArray()) {
            answer.forEach(mask -> masks.add(candidateList(mask)));
        } else {
            masks.add(candidateList(answer));
        }
        return masks;
    }

    private static List<FillMask.Candidate> candidateList(JsonNode list) {
        List<FillMask.Candidate> out = new ArrayList<>();
        for (JsonNode c : list) {
            if (!c.path("score").isNumber() || !c.path("token").canConvertToInt() || !c.path("token_str").isTextual()
                    || !c.path("sequence").isTextual()) {
                throw new UserError("the server's fill-mask answer has a candidate without score, token, token_str and sequence: "
                        + Excerpt.of(c.toString()));
            }
            out.add(new FillMask.Candidate(c.get("score").floatValue(), c.get("token").intValue(), c.get("token_str").textValue(),
                    c.get("sequence").textValue()));
        }
        return out;
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
