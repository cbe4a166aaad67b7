package org.vectorbert.tokenizer.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.common.Json;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.TokenizerException;
import org.vectorbert.tokenizer.Truncation;

/** Finds and reads a model directory's tokenizer files into a {@link Tokenizer}. */
public final class TokenizerFiles {
    private TokenizerFiles() {}

    public static Tokenizer loadDirectory(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new TokenizerException(Files.exists(directory)
                    ? directory + " is not a directory" : "model directory not found: " + directory);
        }
        JsonNode config = settings(directory);
        Path json = directory.resolve("tokenizer.json");
        if (Files.exists(json)) {
            return fromJson(read(json), json.getFileName().toString(), config);
        }
        if (Files.exists(directory.resolve("vocab.txt"))) {
            return BertTokenizer.fromDirectory(directory);
        }
        if (Files.exists(directory.resolve("vocab.json")) && Files.exists(directory.resolve("merges.txt"))) {
            return fromJson(LegacyFiles.robertaBpe(directory.resolve("vocab.json"), directory.resolve("merges.txt"), config),
                    "vocab.json", config);
        }
        for (String name : List.of("sentencepiece.bpe.model", "spiece.model")) {
            Path model = directory.resolve(name);
            if (Files.exists(model)) {
                return fromJson(LegacyFiles.sentencePiece(model, config), name, config);
            }
        }
        if (Files.exists(directory.resolve("spm.model"))) {     // DeBERTa-v2/v3's name for it
            return fromJson(LegacyFiles.debertaV2(directory.resolve("spm.model"), config), "spm.model", config);
        }
        throw new TokenizerException("no tokenizer in " + directory + ": expected tokenizer.json, vocab.txt, "
                + "vocab.json and merges.txt, sentencepiece.bpe.model, spiece.model or spm.model");
    }

    public static Tokenizer loadTokenizerJson(Path file) {
        return fromJson(read(file), file.getFileName().toString(), Json.object());
    }

    /** Reads a tokenizer.json given as text (for tests and fuzzing). */
    public static Tokenizer parseTokenizerJson(String json, String name) {
        return fromJson(Json.parseLastKeyWins(json.getBytes(StandardCharsets.UTF_8), name, TokenizerException::new), name, Json.object());
    }

    /** special_tokens_map.json with tokenizer_config.json over it; an empty object if neither exists. */
    static JsonNode settings(Path directory) {
        ObjectNode merged = Json.object();
        for (String name : List.of("special_tokens_map.json", "tokenizer_config.json")) {
            Path f = directory.resolve(name);
            if (Files.exists(f) && read(f) instanceof ObjectNode o) {
                merged.setAll(o);
            }
        }
        return merged;
    }

    static PipelineTokenizer fromJson(JsonNode root, String file, JsonNode config) {
        if (root == null || !root.isObject()) {
            throw new TokenizerException(file + ": expected a JSON object");
        }
        StageReader stages = new StageReader(file);
        ModelReader models = new ModelReader(stages, file);
        Normalizer normalizer = stages.normalizer(root.get("normalizer"), "normalizer");
        PreTokenizer preTokenizer = stages.preTokenizer(root.get("pre_tokenizer"), "pre_tokenizer");
        Model model = models.model(root.path("model"));
        Decoder decoder = stages.decoder(root.get("decoder"), "decoder");
        List<AddedVocabulary.AddedToken> added = new ArrayList<>();
        JsonNode list = root.path("added_tokens");
        for (int i = 0; i < list.size(); i++) {
            JsonNode t = list.get(i);
            if (!t.path("content").isTextual() || !t.path("id").canConvertToInt()) {
                throw new TokenizerException(file + ": added_tokens[" + i + "] needs \"id\" and \"content\"");
            }
            String content = t.get("content").asText();
            int modelId = model.tokenToId(content);
            boolean special = t.path("special").asBoolean(false);
            added.add(new AddedVocabulary.AddedToken(modelId >= 0 ? modelId : t.get("id").intValue(), content,
                    t.path("single_word").asBoolean(false), t.path("lstrip").asBoolean(false),
                    t.path("rstrip").asBoolean(false), t.path("normalized").asBoolean(!special), special));
        }
        PostProcessor post = models.postProcessor(BosEosTemplate.of(config, t -> idOf(t, model, added)).orElse(root.get("post_processor")),
                "post_processor");
        PipelineTokenizer.Roles roles = roles(config, model, added, root.path("padding"));
        JsonNode padding = root.path("padding");
        PipelineTokenizer.PadSettings pad = padding.isObject()
                ? new PipelineTokenizer.PadSettings(padding.path("pad_id").asInt(0), padding.path("pad_type_id").asInt(0),
                        padding.path("pad_token").asText("[PAD]"))
                : roles.pad() >= 0 ? new PipelineTokenizer.PadSettings(roles.pad(), 0, tokenOf(roles.pad(), model, added))
                : null;
        JsonNode truncation = root.path("truncation");
        int modelMax = 512;
        JsonNode max = config.path("model_max_length");
        if (max.isNumber() && max.doubleValue() >= 1) {
            // Hugging Face writes 1e30 for "no limit".
            modelMax = max.doubleValue() >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) max.doubleValue();
        } else if (truncation.path("max_length").canConvertToInt()) {
            modelMax = truncation.get("max_length").intValue();
        }
        EncodeOptions defaults = EncodeOptions.defaults();
        if (truncation.isObject()) {
            defaults = defaults.withTruncation(switch (truncation.path("strategy").asText("LongestFirst")) {
                case "OnlyFirst" -> Truncation.ONLY_FIRST;
                case "OnlySecond" -> Truncation.ONLY_SECOND;
                default -> Truncation.LONGEST_FIRST;
            }).withMaxLength(truncation.path("max_length").asInt(modelMax)).withStride(truncation.path("stride").asInt(0))
                    .withTruncationSide("Left".equals(truncation.path("direction").asText())
                            ? EncodeOptions.Side.LEFT : EncodeOptions.Side.RIGHT);
        }
        if (padding.isObject()) {
            JsonNode fixed = padding.path("strategy").path("Fixed");
            defaults = defaults.withPadding(fixed.canConvertToInt() ? Padding.MAX_LENGTH : Padding.LONGEST)
                    .withPaddingSide("Left".equals(padding.path("direction").asText())
                            ? EncodeOptions.Side.LEFT : EncodeOptions.Side.RIGHT)
                    .withPadToMultipleOf(padding.path("pad_to_multiple_of").asInt(0));
            if (fixed.canConvertToInt()) {
                defaults = defaults.withPadToLength(fixed.intValue());
            }
        }
        return new PipelineTokenizer(new PipelineTokenizer.Stages(normalizer, preTokenizer, model, post, decoder,
                added, roles, defaults, pad, modelMax));
    }

    /** Mask, pad and unk ids: tokenizer_config.json's names first, then the spellings the families use. */
    private static PipelineTokenizer.Roles roles(JsonNode config, Model model, List<AddedVocabulary.AddedToken> added,
                                                 JsonNode padding) {
        int mask = role(config.path("mask_token"), model, added, "[MASK]", "<mask>");
        int pad = padding.path("pad_id").canConvertToInt() && !config.has("pad_token") ? padding.get("pad_id").intValue()
                : role(config.path("pad_token"), model, added, "[PAD]", "<pad>");
        int unk = role(config.path("unk_token"), model, added, "[UNK]", "<unk>");
        if (!config.has("unk_token") && model instanceof UnigramModel u) {
            // The model's own unk_id is the authority when the config is silent.
            unk = unk >= 0 ? unk : -1;
        }
        return new PipelineTokenizer.Roles(mask, pad, unk);
    }

    private static int role(JsonNode named, Model model, List<AddedVocabulary.AddedToken> added, String... spellings) {
        List<String> candidates = new ArrayList<>();
        if (named.isTextual()) {
            candidates.add(named.asText());
        } else if (named.path("content").isTextual()) {
            candidates.add(named.get("content").asText());
        } else {
            candidates.addAll(List.of(spellings));
        }
        for (String c : candidates) {
            for (AddedVocabulary.AddedToken t : added) {
                if (t.content().equals(c)) {
                    return t.id();
                }
            }
            int id = model.tokenToId(c);
            if (id >= 0) {
                return id;
            }
        }
        return -1;
    }

    private static int idOf(String token, Model model, List<AddedVocabulary.AddedToken> added) {
        for (AddedVocabulary.AddedToken t : added) {
            if (t.content().equals(token)) {
                return t.id();
            }
        }
        return model.tokenToId(token);
    }

    private static String tokenOf(int id, Model model, List<AddedVocabulary.AddedToken> added) {
        for (AddedVocabulary.AddedToken t : added) {
            if (t.id() == id) {
                return t.content();
            }
        }
        return model.idToToken(id);
    }

    /**
     * A JSON file, or one line saying why not (missing, empty, where it stops parsing). Read as the tokenizers library
     * reads it: the last of duplicate keys, and floats kept decimal so that Unigram scores are read its way
     * ({@link JsonFloats}). Through jackson-core's parser ({@link Json}), not an ObjectMapper, which is slow to make
     * for a one-shot command.
     */
    public static JsonNode read(Path file) {
        return Json.readLastKeyWins(file, TokenizerException::new);
    }
}
