package org.vectorbert.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.HeadKind;
import org.vectorbert.engine.Inspection;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.DeclaredEmbedding;
import org.vectorbert.tokenizer.Tokenizer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "inspect",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = "Show a model's configuration, how it embeds by default (pooling, normalisation, maximum length, prompts, "
                + "and which file says each) and its tensors: names, dtypes, shapes, parameter and byte counts.",
        footer = {"", "Examples:",
            "  vectorbert inspect                       (the default bert-base-uncased)",
            "  vectorbert inspect --model google-bert/bert-base-uncased --json   (from the Hugging Face cache or hub)",
            "  vectorbert inspect --model sentence-transformers/all-MiniLM-L6-v2"},
        sortOptions = false)
final class InspectCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--model", paramLabel = "MODEL", description = ModelOptions.MODEL_HELP)
    String model;

    @Option(names = "--json", description = "Machine-readable output.")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Path dir = ModelOptions.resolve(model, err);
        PrintWriter out = spec.commandLine().getOut();
        Inspection inspection = Encoder.inspect(dir);
        out.print(json ? toJson(dir, inspection) + "\n" : table(dir, inspection));
        out.flush();
        return 0;
    }

    private static String table(Path dir, Inspection c) {
        StringBuilder b = new StringBuilder();
        b.append("model:      ").append(dir).append('\n');
        b.append(String.format("config:     %s (%s family), %d layers, %s%n", c.config().modelType(), c.family(),
                c.config().numHiddenLayers(), c.shape()));
        b.append(String.format("tensors:    %d, %,d parameters, %,d bytes (%s)%n", c.tensors().size(), c.parameterCount(),
                c.byteCount(), dtypeSummary(c)));
        Set<HeadKind> heads = c.heads();
        b.append("heads:      ").append(String.join(", ", Arrays.stream(HeadKind.values())
                .filter(h -> h != HeadKind.CAUSAL_LM || c.config().causal())
                .map(h -> h.shortName() + (heads.contains(h) ? " yes" : " no")).toList())).append('\n');
        TokenizerLoad tokenizer = TokenizerLoad.of(dir);
        DeclaredEmbedding e = embedding(dir, c, tokenizer);
        b.append("pooling:    ").append(String.join("+", e.pooling())).append("  (").append(e.poolingFrom()).append(")\n");
        if (!e.dense().isEmpty()) {
            b.append("dense:      ").append(String.join(", ", e.dense())).append("  (modules.json's Dense modules, after the pooling)\n");
        }
        b.append("normalised: ").append(e.normalize() ? "yes" : "no").append("  (").append(e.normalizeFrom()).append(")\n");
        b.append("max length: ").append(e.maxTokens()).append(" tokens, longer texts ").append(e.cut() ? "cut" : "refused").append("  (")
                .append(e.maxTokensFrom()).append(")\n");
        b.append("prompts:    ").append(e.prompts().isEmpty() ? "none" : String.join(", ", e.prompts().entrySet().stream()
                .map(p -> p.getKey() + " \"" + p.getValue() + "\"" + (p.getKey().equals(e.defaultPrompt()) ? " (default)" : "")).toList()))
                .append("  (").append(e.promptsFrom()).append(")\n");
        for (String problem : problems(c, tokenizer)) {
            b.append("problem:    ").append(problem).append('\n');
        }
        int width = c.tensors().stream().mapToInt(t -> t.name().length()).max().orElse(4);
        b.append('\n').append(String.format("%-" + width + "s  %-5s  %s%n", "name", "dtype", "shape"));
        for (Inspection.TensorEntry t : c.tensors()) {
            b.append(String.format("%-" + width + "s  %-5s  %s%n", t.name(), t.dtype(), Arrays.toString(t.shape())));
        }
        return b.toString();
    }

    /** The model's tokenizer, loaded once for what inspect shows, or why it does not load. */
    private record TokenizerLoad(Tokenizer tokenizer, String error) {
        static TokenizerLoad of(Path dir) {
            try {
                return new TokenizerLoad(Tokenizer.fromDirectory(dir), null);
            } catch (VectorbertException e) {
                return new TokenizerLoad(null, e.getMessage());
            }
        }
    }

    /** How the model embeds by default, and where each setting comes from (the tokenizer's limit, when it loads, with the model's). */
    private static DeclaredEmbedding embedding(Path dir, Inspection c, TokenizerLoad t) {
        int positions = c.config().maxTokens();
        if (t.tokenizer() != null && t.tokenizer().modelMaxLength() < positions) {
            return DeclaredEmbedding.of(dir, t.tokenizer().modelMaxLength(), "the tokenizer's model_max_length", c.config().causal());
        }
        return DeclaredEmbedding.of(dir, positions, "the model's " + positions + " positions", c.config().causal());
    }

    /** Where config.json, the weights and the tokenizer disagree: the model will not load, and this says why. */
    private static List<String> problems(Inspection c, TokenizerLoad t) {
        List<String> problems = new ArrayList<>(c.contradictions());
        if (t.tokenizer() == null) {
            problems.add("the tokenizer does not load: " + t.error());
            return problems;
        }
        try {
            Encoder.tokenizerMismatch(t.tokenizer(), c.config()).ifPresent(problems::add);
        } catch (VectorbertException e) {
            problems.add("the tokenizer does not load: " + e.getMessage());
        }
        return problems;
    }

    private static String dtypeSummary(Inspection c) {
        Map<DType, Integer> counts = new EnumMap<>(DType.class);
        c.tensors().forEach(t -> counts.merge(t.dtype(), 1, Integer::sum));
        StringBuilder s = new StringBuilder();
        counts.forEach((d, n) -> s.append(s.isEmpty() ? "" : ", ").append(n).append(' ').append(d));
        return s.toString();
    }

    private static String toJson(Path dir, Inspection c) {
        ObjectNode o = JsonText.object();
        o.put("model", dir.toString());
        o.put("family", c.family());
        o.set("config", c.configJson());
        o.put("tensor_count", c.tensors().size());
        o.put("parameters", c.parameterCount());
        o.put("bytes", c.byteCount());
        Set<HeadKind> heads = c.heads();
        for (HeadKind h : HeadKind.values()) {
            o.put(h.key(), heads.contains(h));
        }
        TokenizerLoad tokenizer = TokenizerLoad.of(dir);
        DeclaredEmbedding e = embedding(dir, c, tokenizer);
        ObjectNode embedding = o.putObject("embedding");
        e.pooling().forEach(embedding.putArray("pooling")::add);
        if (!e.dense().isEmpty()) {
            e.dense().forEach(embedding.putArray("dense")::add);
        }
        embedding.put("pooling_from", e.poolingFrom()).put("normalize", e.normalize()).put("normalize_from", e.normalizeFrom())
                .put("max_tokens", e.maxTokens()).put("truncate", e.cut()).put("max_tokens_from", e.maxTokensFrom());
        ObjectNode prompts = embedding.putObject("prompts");
        e.prompts().forEach(prompts::put);
        embedding.put("default_prompt_name", e.defaultPrompt()).put("prompts_from", e.promptsFrom());
        ArrayNode problems = o.putArray("problems");
        problems(c, tokenizer).forEach(problems::add);
        ArrayNode tensors = o.putArray("tensors");
        for (Inspection.TensorEntry t : c.tensors()) {
            ObjectNode n = tensors.addObject();
            n.put("name", t.name());
            n.put("dtype", t.dtype().name());
            ArrayNode shape = n.putArray("shape");
            for (long d : t.shape()) {
                shape.add(d);
            }
        }
        return JsonText.of(o);
    }
}
