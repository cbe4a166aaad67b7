package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vectorbert.common.Json;

/**
 * What a sentence-transformers model directory declares about turning texts into vectors:
 * {@code modules.json} (Transformer, Pooling, Dense, Normalize), the Pooling and Dense modules' {@code config.json},
 * {@code sentence_bert_config.json} and {@code config_sentence_transformers.json}.
 *
 * @param poolingModes      the Pooling module's modes, in the order sentence-transformers concatenates them
 *                          (cls, max, mean, mean_sqrt_len, lasttoken); empty without a Pooling module
 * @param includePrompt     whether the prompt's tokens count in the pooling
 * @param normalize         whether a Normalize module follows
 * @param maxSeqLength      texts are cut to this many tokens, special tokens included; 0 when not declared
 * @param doLowerCase       whether texts are lower-cased before tokenizing
 * @param prompts           prompt name to the text put before each input ("query" -> "query: ")
 * @param defaultPromptName the prompt used when none is asked for, or null
 * @param dense             the Dense modules after the pooling, in order (EmbeddingGemma's 2_Dense and 3_Dense)
 */
public record SentenceTransformersConfig(List<String> poolingModes, boolean includePrompt, boolean normalize, int maxSeqLength,
                                         boolean doLowerCase, Map<String, String> prompts, String defaultPromptName, List<Dense> dense) {
    /**
     * A Dense module: activation(linear(x)) on the pooled vector.
     *
     * @param name       its name in modules.json
     * @param weights    its weights file ({@code linear.weight} [out, in], {@code linear.bias} [out] if bias)
     * @param in         in_features
     * @param out        out_features
     * @param bias       whether it has a bias
     * @param tanh       whether the activation is tanh (sentence-transformers' default), else the identity
     */
    public record Dense(String name, Path weights, int in, int out, boolean bias, boolean tanh) {}

    /** Pooling modes vectorbert implements, in sentence-transformers' concatenation order. */
    public static final List<String> MODES = List.of("cls", "max", "mean", "mean_sqrt_len", "lasttoken");

    /** The config keys of the modes, as 1_Pooling/config.json spells them. */
    private static final Map<String, String> KEYS = Map.of("pooling_mode_cls_token", "cls", "pooling_mode_max_tokens", "max",
            "pooling_mode_mean_tokens", "mean", "pooling_mode_mean_sqrt_len_tokens", "mean_sqrt_len",
            "pooling_mode_lasttoken", "lasttoken");

    /** Copies the lists and maps. */
    public SentenceTransformersConfig {
        poolingModes = List.copyOf(poolingModes);
        dense = List.copyOf(dense);
        prompts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(prompts));   // in the file's order
    }

    /**
     * The sentence-transformers settings of {@code directory}.
     *
     * @param directory a model directory
     * @return its settings, or empty when it has no modules.json
     */
    public static Optional<SentenceTransformersConfig> read(Path directory) {
        Path modulesFile = directory.resolve("modules.json");
        if (!Files.isRegularFile(modulesFile)) {
            return Optional.empty();
        }
        JsonNode modules = Json.read(modulesFile, LoaderException::new);
        if (!modules.isArray()) {
            throw new LoaderException(modulesFile + ": expected a list of modules");
        }
        List<String> modes = new ArrayList<>();
        boolean includePrompt = true;
        boolean normalize = false;
        List<Dense> dense = new ArrayList<>();
        for (JsonNode module : modules) {
            String type = module.path("type").asText("");
            String kind = type.substring(type.lastIndexOf('.') + 1);
            switch (kind) {
                case "Transformer" -> { }
                case "Pooling" -> {
                    Path config = directory.resolve(module.path("path").asText("")).resolve("config.json");
                    JsonNode pooling = Json.read(config, LoaderException::new);
                    modes = poolingModes(pooling, config);
                    includePrompt = pooling.path("include_prompt").asBoolean(true);
                }
                case "Normalize" -> normalize = true;
                case "Dense" -> {
                    if (modes.isEmpty() || normalize) {
                        throw new LoaderException(modulesFile + ": Dense module '" + module.path("name").asText() + "' is not between the"
                                + " Pooling and Normalize modules; vectorbert runs Dense modules on the pooled vector");
                    }
                    dense.add(dense(directory.resolve(module.path("path").asText("")), module.path("name").asText(), modulesFile));
                }
                default -> throw new LoaderException(modulesFile + ": module '" + module.path("name").asText() + "' of type "
                        + type + " is not supported; vectorbert runs Transformer, Pooling, Dense and Normalize modules");
            }
        }
        int maxSeqLength = 0;
        boolean lower = false;
        Path bertConfig = directory.resolve("sentence_bert_config.json");
        if (Files.isRegularFile(bertConfig)) {
            JsonNode c = Json.read(bertConfig, LoaderException::new);
            maxSeqLength = c.path("max_seq_length").asInt(0);
            lower = c.path("do_lower_case").asBoolean(false);
        }
        Map<String, String> prompts = new LinkedHashMap<>();
        String defaultPrompt = null;
        Path stConfig = directory.resolve("config_sentence_transformers.json");
        if (Files.isRegularFile(stConfig)) {
            JsonNode c = Json.read(stConfig, LoaderException::new);
            c.path("prompts").properties().forEach(e -> prompts.put(e.getKey(), e.getValue().asText()));
            JsonNode name = c.path("default_prompt_name");
            if (name.isTextual()) {
                defaultPrompt = name.asText();
                if (!prompts.containsKey(defaultPrompt)) {
                    throw new LoaderException(stConfig + ": default_prompt_name '" + defaultPrompt + "' is not one of its prompts "
                            + prompts.keySet());
                }
            }
        }
        return Optional.of(new SentenceTransformersConfig(modes, includePrompt, normalize, maxSeqLength, lower, prompts, defaultPrompt,
                dense));
    }

    /** The Dense module in {@code dir}: its config.json and its weights, which must be there. */
    private static Dense dense(Path dir, String name, Path modulesFile) {
        Path config = dir.resolve("config.json");
        if (!Files.isRegularFile(config)) {
            throw new LoaderException(modulesFile + " names Dense module '" + name + "' in " + dir.getFileName() + ", which has no"
                    + " config.json: the model's files are incomplete (download " + dir.getFileName() + "/ too)");
        }
        JsonNode c = Json.read(config, LoaderException::new);
        Path weights = dir.resolve("model.safetensors");
        if (!Files.isRegularFile(weights)) {
            weights = dir.resolve("pytorch_model.bin");
        }
        if (!Files.isRegularFile(weights)) {
            throw new LoaderException(dir + " has neither model.safetensors nor pytorch_model.bin: Dense module '" + name
                    + "' has no weights");
        }
        String activation = c.path("activation_function").asText("torch.nn.modules.activation.Tanh");
        boolean tanh = switch (activation) {
            case "torch.nn.modules.activation.Tanh" -> true;
            case "torch.nn.modules.linear.Identity" -> false;
            default -> throw new LoaderException(config + ": activation_function '" + activation + "' is not supported (Tanh or Identity)");
        };
        int in = c.path("in_features").asInt(0);
        int out = c.path("out_features").asInt(0);
        if (in <= 0 || out <= 0 || (long) in * out > Integer.MAX_VALUE) {
            throw new LoaderException(config + ": in_features and out_features must be positive, were " + c.path("in_features") + " and "
                    + c.path("out_features"));
        }
        return new Dense(name, weights, in, out, c.path("bias").asBoolean(true), tanh);
    }

    /** The modes a Pooling config sets, as booleans (pooling_mode_mean_tokens) or as one pooling_mode string. */
    private static List<String> poolingModes(JsonNode config, Path file) {
        List<String> on = new ArrayList<>();
        JsonNode single = config.path("pooling_mode");
        if (single.isTextual()) {
            String mode = switch (single.asText()) {
                case "cls", "mean", "max", "lasttoken" -> single.asText();
                case "mean_sqrt_len_tokens" -> "mean_sqrt_len";
                default -> throw new LoaderException(file + ": pooling_mode '" + single.asText() + "' is not one vectorbert knows ("
                        + String.join(", ", MODES) + ")");
            };
            on.add(mode);
        }
        for (Map.Entry<String, JsonNode> e : config.properties()) {
            if (!e.getKey().startsWith("pooling_mode_") || !e.getValue().asBoolean(false)) {
                continue;
            }
            String mode = KEYS.get(e.getKey());
            if (mode == null) {
                throw new LoaderException(file + ": " + e.getKey() + " is a pooling mode vectorbert does not implement (it does "
                        + String.join(", ", MODES) + ")");
            }
            if (!on.contains(mode)) {
                on.add(mode);
            }
        }
        if (on.isEmpty()) {
            throw new LoaderException(file + ": no pooling mode is set");
        }
        return MODES.stream().filter(on::contains).toList();
    }
}
