package org.vectorbert.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.TokenClassifier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "ner",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = "Find named entities (or any token labels) with a token-classification model, as Hugging Face's "
                + "token-classification pipeline does.",
        footer = {"", "Examples:",
            "  vectorbert ner --model path/to/bert-base-NER --aggregation-strategy simple \"My name is Wolfgang and I live in Berlin.\"",
            "  vectorbert ner --model path/to/bert-base-NER --json --file texts.txt   (one text per line; - reads standard input)"},
        sortOptions = false)
final class NerCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--aggregation-strategy", paramLabel = "S", defaultValue = "none",
            description = "none (every token), simple (tokens grouped by B-/I- tags), first, average or max (words, then grouped); "
                    + "default: ${DEFAULT-VALUE}.")
    String aggregation;

    @Option(names = "--ignore-labels", paramLabel = "LABELS", defaultValue = "O",
            description = "Labels left out, comma-separated (default: ${DEFAULT-VALUE}; an empty string keeps all).")
    String ignoreLabels;

    @Option(names = "--stride", paramLabel = "N", defaultValue = "-1",
            description = "Read a text longer than the model takes in windows sharing N tokens, instead of cutting it "
                    + "(the pipeline's stride; overlapping entities resolved as it does).")
    int stride;

    @Option(names = "--json", description = "One JSON line per text: a list of {entity or entity_group, score, index (none only), "
            + "word, start, end}, offsets in characters of the text.")
    boolean json;

    @Option(names = "--file", paramLabel = "PATH", description = "Read one text per line from PATH (- for standard input).")
    String file;

    @Parameters(paramLabel = "TEXT", arity = "0..*", description = "Texts to tag.")
    List<String> texts = new ArrayList<>();

    @Override
    public Integer call() {
        TokenClassifier.Aggregation strategy;
        try {
            strategy = TokenClassifier.Aggregation.parse(aggregation);
        } catch (RuntimeException e) {
            throw new UserError("--aggregation-strategy must be none, simple, first, average or max, not '" + aggregation + "'");
        }
        Set<String> ignore = new LinkedHashSet<>();
        for (String label : ignoreLabels.split(",", -1)) {
            if (!label.isBlank()) {
                ignore.add(label.strip());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TokenClassifier ner = TokenClassifier.load(modelOptions.directory(err).toString(), modelOptions.precision());
        RunProgress progress = new RunProgress(err, "ner:", file != null);
        if (stride < -1) {
            throw new UserError("--stride must not be negative, was " + stride);
        }
        if (stride < 0) {
            progress.cutAt(ner.maxTokens());
        }
        TextInput.forEachBatch(texts, file, System.in, 64, (batch, first, read, total) -> {
            List<TokenClassifier.Result> results = ner.tag(batch, strategy, ignore, stride);
            long tokens = 0;
            for (int i = 0; i < batch.size(); i++) {
                TokenClassifier.Result r = results.get(i);
                out.println(json ? toJson(r.entities(), strategy) : table(batch.get(i), r.entities()));
                tokens += r.tokens();
                if (r.truncated()) {
                    progress.cut();
                }
            }
            out.flush();
            progress.done(batch.size(), tokens, read, total);
        });
        progress.finish();
        return 0;
    }

    private static String toJson(List<TokenClassifier.Entity> entities, TokenClassifier.Aggregation strategy) {
        return JsonText.of(entities.stream().map(e -> e.pipelineFields(strategy)).toList());
    }

    private static String table(String text, List<TokenClassifier.Entity> entities) {
        StringBuilder b = new StringBuilder("\"").append(Excerpt.printable(text)).append("\"\n");
        int width = entities.stream().mapToInt(e -> e.entity().length()).max().orElse(5);
        for (TokenClassifier.Entity e : entities) {
            b.append(String.format("  %-" + width + "s  %.4f  %4d-%-4d  %s%n", e.entity(), e.score(), e.start(), e.end(),
                    Excerpt.printable(e.word())));
        }
        return b.toString();
    }
}
