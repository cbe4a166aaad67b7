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
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.engine.ZeroShotClassifier;
import org.vectorbert.loader.Labels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "classify",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = {"Label texts (or text pairs) with a sequence-classification model, as Hugging Face's text-classification pipeline does.",
            "With --zero-shot, score labels you name with an NLI model, as its zero-shot-classification pipeline does."},
        footer = {"", "Examples:",
            "  vectorbert classify --model distilbert/distilbert-base-uncased-finetuned-sst-2-english \"I loved it.\" \"Never again.\"",
            "  vectorbert classify --model cross-encoder/nli-distilroberta-base --pair \"A man is sleeping.\" \"A man sleeps on a sofa.\"",
            "      (premise \"A man sleeps on a sofa.\", the TEXT; hypothesis \"A man is sleeping.\", the --pair)",
            "  vectorbert classify --model SamLowe/roberta-base-go_emotions --top-k 3 --json --file texts.txt   (one text per line; - reads standard input)",
            "  vectorbert classify --model cross-encoder/nli-distilroberta-base --zero-shot --labels \"urgent,phone,tablet\" \"My iphone broke!\""},
        sortOptions = false)
final class ClassifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--top-k", paramLabel = "K", description = "Labels per text, best first (default: 1; with --zero-shot, every label).")
    Integer topK;

    @Option(names = "--function-to-apply", paramLabel = "F",
            description = "softmax, sigmoid or none (default: as the pipeline picks it: none for regression, sigmoid for "
                    + "multi-label or one label, softmax otherwise).")
    String function;

    @Option(names = "--pair", paramLabel = "TEXT", description = "Classify each text paired with this second text: TEXT first (the pipeline's text, an NLI model's premise), "
                    + "this second (its text_pair, the hypothesis).")
    String pair;

    @Option(names = "--truncate", description = "Cut texts longer than the model takes (longest first) instead of refusing them.")
    boolean truncate;

    @Option(names = "--zero-shot", description = "Zero-shot classification with an NLI model: each of --labels becomes a hypothesis paired with"
            + " the text (the text cut first when too long), scored by the model's entailment label.")
    boolean zeroShot;

    @Option(names = "--labels", paramLabel = "A,B,...", description = "The candidate labels of --zero-shot, comma-separated.")
    String labels;

    @Option(names = "--multi-label", description = "With --zero-shot, score each label on its own (entailment against contradiction)"
            + " instead of the labels sharing a probability of 1.")
    boolean multiLabel;

    @Option(names = "--hypothesis-template", paramLabel = "TEMPLATE", description = "With --zero-shot, the hypothesis made of each label,"
            + " {} where the label goes (default: \"" + ZeroShotClassifier.DEFAULT_TEMPLATE + "\").")
    String template;

    @Option(names = "--json", description = "One JSON line per text: a list of {label, score}, best first; with --zero-shot, the pipeline's"
            + " {sequence, labels, scores}.")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

    @Mixin
    ServeClient.Option server;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Texts to classify.")
    List<String> texts = new ArrayList<>();

    @Override
    public Integer call() {
        Arguments.requireValidUtf8("--pair", pair);
        if (topK != null && topK <= 0) {
            throw new UserError("--top-k must be positive, was " + topK);
        }
        if (zeroShot) {
            return zeroShot(spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        if (labels != null || multiLabel || template != null) {
            throw new UserError((labels != null ? "--labels" : multiLabel ? "--multi-label" : "--hypothesis-template") + " goes with --zero-shot");
        }
        int topK = this.topK == null ? 1 : this.topK;
        TextClassifier.Function f = function == null ? null : parseFunction(function);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (server.given()) {
            return viaServer(f, topK, out, err);
        }
        TextClassifier classifier = modelOptions.load(err, dir -> TextClassifier.load(dir, modelOptions.precision()));
        TextClassifier.Function applied = f != null ? f : TextClassifier.Function.defaultFor(classifier.labels());
        int k = Math.min(topK, classifier.labels().count());
        RunProgress progress = new RunProgress(err, "classify:", file != null);
        if (truncate) {
            progress.cutAt(classifier.maxTokens());
        }
        TextInput.forEachBatch(texts, file, System.in, 64, (batch, first, read, total) -> {
            List<TextClassifier.Result> results = classifier.classify(batch, pair == null ? null : batch.stream().map(t -> pair).toList(),
                    applied, k, truncate);
            long tokens = 0;
            for (int i = 0; i < batch.size(); i++) {
                TextClassifier.Result r = results.get(i);
                out.println(json ? toJson(r.labels()) : table(batch.get(i), r.labels()));
                if (r.truncated()) {
                    progress.cut();
                }
                tokens += r.tokens();
            }
            out.flush();
            progress.done(batch.size(), tokens, read, total);
        });
        progress.finish();
        return 0;
    }

    /**
     * The texts sent to a running server's {@code POST /predict} in batches, for their logits ({@code raw_scores}), and
     * those scored and ordered here as the local pipeline scores its own ({@code --function-to-apply}, or the default
     * the model's labels and problem type pick): the same output to the last bit, as a float's shortest decimal reads
     * back as the same float.
     */
    private int viaServer(TextClassifier.Function asked, int topK, PrintWriter out, PrintWriter err) {
        ServeClient client = ServeClient.connect(server.url, "classify", modelOptions, spec, err);
        Labels labels = client.classifierLabels("classify texts");
        TextClassifier.Function applied = asked != null ? asked : TextClassifier.Function.defaultFor(labels);
        int n = labels.count();
        int k = Math.min(topK, n);
        RunProgress progress = new RunProgress(err, "classify:", file != null).countingTexts();
        TextInput.forEachBatch(texts, file, System.in, client.batchSize(64), (batch, first, read, total) -> {
            ObjectNode body = JsonText.object();
            ArrayNode inputs = body.putArray("inputs");
            for (String text : batch) {
                ArrayNode input = inputs.addArray().add(text);
                if (pair != null) {
                    input.add(pair);
                }
            }
            body.put("raw_scores", true).put("truncate", truncate);
            JsonNode answer = client.post("predict", body, file, first, batch.size(), file == null && texts.size() == 1);
            if (!answer.isArray() || answer.size() != batch.size()) {
                throw new UserError("the server's /predict answer is not one list of labels per text: " + Excerpt.of(answer.toString()));
            }
            float[] logits = new float[batch.size() * n];
            for (int i = 0; i < batch.size(); i++) {
                readLogits(answer.get(i), labels, logits, i * n);
            }
            for (int i = 0; i < batch.size(); i++) {
                List<TextClassifier.Label> scored = TextClassifier.labels(labels, logits, i * n, applied, k);
                out.println(json ? toJson(scored) : table(batch.get(i), scored));
            }
            out.flush();
            progress.done(batch.size(), 0, read, total);
        });
        progress.finish();
        return 0;
    }

    /** One text's {@code [{label, score}]} with raw scores, as logits in label-id order at {@code logits[from, from + n)}. */
    private static void readLogits(JsonNode list, Labels labels, float[] logits, int from) {
        boolean[] seen = new boolean[labels.count()];
        if (list.isArray()) {
            for (JsonNode item : list) {
                int id = labels.names().indexOf(item.path("label").asText(null));
                if (id < 0 || seen[id] || !item.path("score").isNumber()) {
                    break;
                }
                seen[id] = true;
                logits[from + id] = item.get("score").floatValue();
            }
        }
        for (boolean s : seen) {
            if (!s) {
                throw new UserError("the server's /predict answer does not give each of the labels " + labels.names() + " once: "
                        + Excerpt.of(list.toString()));
            }
        }
    }

    /** {@code --zero-shot}: every text's candidate labels, best first. */
    private int zeroShot(PrintWriter out, PrintWriter err) {
        if (labels == null) {
            throw new UserError("--zero-shot needs --labels, the candidate labels, comma-separated");
        }
        List<String> candidates = ZeroShotClassifier.parseLabels(labels);
        if (candidates.isEmpty()) {
            throw new UserError("--labels names no label: give them comma-separated, such as --labels \"sports,politics\"");
        }
        if (pair != null || function != null) {
            throw new UserError((pair != null ? "--pair" : "--function-to-apply") + " does not go with --zero-shot: the pairs are the text and"
                    + " each label's hypothesis, scored by entailment");
        }
        if (server.given()) {
            throw new UserError("--zero-shot runs the model here; --server is not supported with it");
        }
        String hypothesisTemplate = template == null ? ZeroShotClassifier.DEFAULT_TEMPLATE : template;
        Arguments.requireValidUtf8("--hypothesis-template", hypothesisTemplate);
        try {
            ZeroShotClassifier.hypothesis(hypothesisTemplate, candidates.getFirst());
        } catch (RuntimeException e) {
            throw new UserError("--hypothesis-template: " + e.getMessage());
        }
        ZeroShotClassifier classifier = modelOptions.load(err, dir -> ZeroShotClassifier.load(dir, modelOptions.precision()));
        int k = topK == null ? candidates.size() : Math.min(topK, candidates.size());
        RunProgress progress = new RunProgress(err, "classify:", file != null).countingTexts();
        TextInput.forEachBatch(texts, file, System.in, Math.max(1, 64 / candidates.size()), (batch, first, read, total) -> {
            for (ZeroShotClassifier.Result r : classifier.classify(batch, candidates, hypothesisTemplate, multiLabel)) {
                ZeroShotClassifier.Result kept = new ZeroShotClassifier.Result(r.sequence(), r.labels().subList(0, k));
                out.println(json ? JsonText.of(kept.pipelineFields()) : table(kept.sequence(), kept.labels()));
            }
            out.flush();
            progress.done(batch.size(), 0, read, total);
        });
        progress.finish();
        return 0;
    }

    private static TextClassifier.Function parseFunction(String name) {
        try {
            return TextClassifier.Function.parse(name);
        } catch (RuntimeException e) {
            throw new UserError("--function-to-apply must be softmax, sigmoid or none, not '" + name + "'");
        }
    }

    static String toJson(List<TextClassifier.Label> labels) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (TextClassifier.Label l : labels) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("label", l.label());
            o.put("score", l.score());
            list.add(o);
        }
        return JsonText.of(list);
    }

    private static String table(String text, List<TextClassifier.Label> labels) {
        StringBuilder b = new StringBuilder("\"").append(Excerpt.printable(text)).append("\"\n");
        int width = labels.stream().mapToInt(l -> l.label().length()).max().orElse(5);
        for (TextClassifier.Label l : labels) {
            b.append(String.format("  %-" + width + "s  %.4f%n", l.label(), l.score()));
        }
        return b.toString();
    }
}
