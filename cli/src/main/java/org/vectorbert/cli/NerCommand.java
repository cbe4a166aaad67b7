package org.vectorbert.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
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
            "  vectorbert ner --model dslim/bert-base-NER --aggregation-strategy simple \"My name is Wolfgang and I live in Berlin.\"",
            "  vectorbert ner --model dslim/bert-base-NER --json --file texts.txt   (one text per line; - reads standard input)"},
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

    @Mixin
    ServeClient.Option server;

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
        if (stride < -1) {
            throw new UserError("--stride must not be negative, was " + stride);
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (server.given()) {
            return viaServer(strategy, ignore, out, err);
        }
        TokenClassifier ner = modelOptions.load(err, dir -> TokenClassifier.load(dir, modelOptions.precision()));
        RunProgress progress = new RunProgress(err, "ner:", file != null);
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

    /**
     * The texts sent to a running server's {@code POST /token-classification} in batches, with these options, and its
     * entities printed as the local ones are: the server runs the same pipeline, and a float's shortest decimal reads
     * back as the same float, so the output is the local command's to the byte.
     */
    private int viaServer(TokenClassifier.Aggregation strategy, Set<String> ignore, PrintWriter out, PrintWriter err) {
        ServeClient client = ServeClient.connect(server.url, "ner", modelOptions, spec, err);
        RunProgress progress = new RunProgress(err, "ner:", file != null).countingTexts();
        TextInput.forEachBatch(texts, file, System.in, client.batchSize(64), (batch, first, read, total) -> {
            ObjectNode body = JsonText.object();
            ArrayNode inputs = body.putArray("inputs");
            batch.forEach(inputs::add);
            ObjectNode parameters = body.putObject("parameters").put("aggregation_strategy", strategy.name().toLowerCase(Locale.ROOT));
            ArrayNode ignored = parameters.putArray("ignore_labels");
            ignore.forEach(ignored::add);
            if (stride >= 0) {
                parameters.put("stride", stride);
            }
            JsonNode answer = client.post("token-classification", body, file, first, batch.size(), file == null && texts.size() == 1);
            if (!answer.isArray() || answer.size() != batch.size()) {
                throw new UserError("the server's /token-classification answer is not one list of entities per text: "
                        + Excerpt.of(answer.toString()));
            }
            for (int i = 0; i < batch.size(); i++) {
                List<TokenClassifier.Entity> entities = entities(answer.get(i), strategy);
                out.println(json ? toJson(entities, strategy) : table(batch.get(i), entities));
            }
            out.flush();
            progress.done(batch.size(), 0, read, total);
        });
        progress.finish();
        return 0;
    }

    /** One text's entities from the server's answer (the pipeline's keys; {@code index} only without aggregation). */
    private static List<TokenClassifier.Entity> entities(JsonNode list, TokenClassifier.Aggregation strategy) {
        String key = strategy == TokenClassifier.Aggregation.NONE ? "entity" : "entity_group";
        if (!list.isArray()) {
            throw new UserError("the server's /token-classification answer is not a list of entities: " + Excerpt.of(list.toString()));
        }
        List<TokenClassifier.Entity> entities = new ArrayList<>();
        for (JsonNode e : list) {
            boolean indexed = strategy != TokenClassifier.Aggregation.NONE || e.path("index").canConvertToInt();
            if (!e.path(key).isTextual() || !e.path("score").isNumber() || !e.path("word").isTextual() || !indexed
                    || !e.path("start").canConvertToInt() || !e.path("end").canConvertToInt()) {
                throw new UserError("the server's /token-classification answer has an entity without " + key
                        + ", score, word, start and end: " + Excerpt.of(e.toString()));
            }
            entities.add(new TokenClassifier.Entity(e.get(key).textValue(), e.get("score").floatValue(), e.path("index").asInt(-1),
                    e.get("word").textValue(), e.get("start").intValue(), e.get("end").intValue()));
        }
        return entities;
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
