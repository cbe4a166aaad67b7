package org.vectorbert.tokenizer.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;
import java.util.function.ToIntFunction;
import org.vectorbert.common.Json;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * The post-processor transformers' Llama and Gemma fast tokenizers build at load from tokenizer_config.json's
 * {@code add_bos_token} and {@code add_eos_token} ({@code update_post_processor}), in place of tokenizer.json's:
 * {@code [bos] $A [eos]}, and for a pair {@code [bos] $A [eos] [bos] $B [eos]}, each special token where its flag is true.
 * So EmbeddingGemma's {@code add_eos_token: true} appends {@code <eos>} whatever its tokenizer.json's template says.
 */
final class BosEosTemplate {
    private static final List<String> CLASSES = List.of("LlamaTokenizer", "LlamaTokenizerFast", "GemmaTokenizer", "GemmaTokenizerFast",
            "CodeLlamaTokenizer", "CodeLlamaTokenizerFast");

    private BosEosTemplate() {}

    /**
     * The template for {@code config} when it is a Llama or Gemma tokenizer's and sets either flag (the other takes
     * transformers' default: bos true, eos false); else empty. {@code ids} gives a token's id, or -1.
     */
    static Optional<JsonNode> of(JsonNode config, ToIntFunction<String> ids) {
        if (!CLASSES.contains(config.path("tokenizer_class").asText("")) || !config.has("add_bos_token") && !config.has("add_eos_token")) {
            return Optional.empty();
        }
        String bos = config.path("add_bos_token").asBoolean(true) ? token(config, "bos_token", "add_bos_token", ids) : null;
        String eos = config.path("add_eos_token").asBoolean(false) ? token(config, "eos_token", "add_eos_token", ids) : null;
        ObjectNode post = Json.object().put("type", "TemplateProcessing");
        ArrayNode single = post.putArray("single");
        ArrayNode pair = post.putArray("pair");
        for (int type = 0; type < 2; type++) {
            for (ArrayNode into : type == 0 ? List.of(single, pair) : List.of(pair)) {
                if (bos != null) {
                    into.addObject().putObject("SpecialToken").put("id", bos).put("type_id", type);
                }
                into.addObject().putObject("Sequence").put("id", type == 0 ? "A" : "B").put("type_id", type);
                if (eos != null) {
                    into.addObject().putObject("SpecialToken").put("id", eos).put("type_id", type);
                }
            }
        }
        ObjectNode specials = post.putObject("special_tokens");
        for (String t : new String[] {bos, eos}) {
            if (t != null) {
                ObjectNode s = specials.putObject(t).put("id", t);
                s.putArray("ids").add(ids.applyAsInt(t));
                s.putArray("tokens").add(t);
            }
        }
        return Optional.of(post);
    }

    /** The special token {@code key} names (a string or an added token's {@code content}), which must be in the vocabulary. */
    private static String token(JsonNode config, String key, String flag, ToIntFunction<String> ids) {
        JsonNode v = config.path(key);
        String token = v.isTextual() ? v.asText() : v.path("content").asText(null);
        if (token == null || ids.applyAsInt(token) < 0) {
            throw new TokenizerException("tokenizer_config.json: " + flag + " is true but " + key + " " + v
                    + (token == null ? " is not set" : " is not in the vocabulary"));
        }
        return token;
    }
}
