package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Gemma 3's text config.json ({@code model_type: gemma3_text}: EmbeddingGemma), read as transformers'
 * {@code Gemma3TextConfig} does, defaults included, and validated. vectorbert runs the bidirectional encoder
 * EmbeddingGemma is ({@code use_bidirectional_attention: true}); a causal Gemma 3 language model, logit soft-capping and
 * scaled rotary positions are refused by name.
 *
 * @param modelType             model_type
 * @param architectures         architectures
 * @param vocabSize             vocab_size
 * @param hiddenSize            hidden_size
 * @param numHiddenLayers       num_hidden_layers
 * @param numAttentionHeads     num_attention_heads
 * @param numKeyValueHeads      num_key_value_heads
 * @param headDim               head_dim
 * @param intermediateSize      intermediate_size: the GeGLU's width
 * @param maxPositionEmbeddings max_position_embeddings
 * @param rmsNormEps            rms_norm_eps
 * @param hiddenActivation      hidden_activation, on the gate
 * @param ropeTheta             the full-attention layers' rotary base (rope_theta)
 * @param ropeLocalBaseFreq     the sliding layers' rotary base (rope_local_base_freq)
 * @param slidingWindow         sliding_window as the file gives it
 * @param sliding               per layer, whether it attends within the window (layer_types, else the pattern)
 * @param queryPreAttnScalar    query_pre_attn_scalar: the scores are scaled by its inverse square root
 * @param attentionBias         attention_bias
 */
public record Gemma3Config(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int numHiddenLayers,
                           int numAttentionHeads, int numKeyValueHeads, int headDim, int intermediateSize, int maxPositionEmbeddings,
                           double rmsNormEps, String hiddenActivation, double ropeTheta, double ropeLocalBaseFreq, int slidingWindow,
                           List<Boolean> sliding, double queryPreAttnScalar, boolean attentionBias) implements ModelConfig {
    private static final List<String> ACTIVATIONS = List.of("gelu_pytorch_tanh", "gelu_new", "gelu", "silu", "relu");

    /** Copies the lists. */
    public Gemma3Config {
        architectures = List.copyOf(architectures);
        sliding = List.copyOf(sliding);
    }

    /**
     * Reads config.json's root and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static Gemma3Config parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        if (!BertConfig.bool(node, "use_bidirectional_attention", false, source)) {
            throw new LoaderException(source + ": use_bidirectional_attention is not true: a causal Gemma 3 language model is not"
                    + " supported (vectorbert runs EmbeddingGemma's bidirectional encoder)");
        }
        for (String cap : List.of("attn_logit_softcapping", "final_logit_softcapping")) {
            if (node.hasNonNull(cap)) {
                throw new LoaderException(source + ": " + cap + " " + node.get(cap) + " is not supported (EmbeddingGemma sets none)");
            }
        }
        JsonNode rope = node.path("rope_parameters");
        double theta = rope.isObject() ? BertConfig.number(rope.path("full_attention"), "rope_theta", 1e6, source)
                : BertConfig.number(node, "rope_theta", 1e6, source);
        double local = rope.isObject() ? BertConfig.number(rope.path("sliding_attention"), "rope_theta", 1e4, source)
                : BertConfig.number(node, "rope_local_base_freq", 1e4, source);
        List<JsonNode> scalings = rope.isObject() ? List.of(rope.path("full_attention"), rope.path("sliding_attention"))
                : List.of(node.path("rope_scaling"));
        for (JsonNode s : scalings) {
            String type = s.isObject() ? s.path(s.has("rope_type") ? "rope_type" : "type").asText("default") : "default";
            if (!type.equals("default")) {
                throw new LoaderException(source + ": rope scaling '" + type + "' is not supported (EmbeddingGemma has none)");
            }
        }
        int layers = BertConfig.integer(node, "num_hidden_layers", 26, source);
        ModelConfig.checkLayers(source, "num_hidden_layers", layers);
        List<Boolean> sliding = new ArrayList<>();
        JsonNode types = node.path("layer_types");
        if (types.isArray()) {
            for (JsonNode t : types) {
                switch (t.asText()) {
                    case "sliding_attention" -> sliding.add(true);
                    case "full_attention" -> sliding.add(false);
                    default -> throw new LoaderException(source + ": layer_types entry " + t + " is not one of sliding_attention, full_attention");
                }
            }
            if (sliding.size() != layers) {
                throw new LoaderException(source + ": layer_types has " + sliding.size() + " entries for " + layers + " layers");
            }
        } else {
            int pattern = BertConfig.integer(node, node.has("sliding_window_pattern") ? "sliding_window_pattern" : "_sliding_window_pattern",
                    6, source);
            if (pattern <= 0) {
                throw new LoaderException(source + ": the sliding window pattern must be positive, was " + pattern);
            }
            for (int i = 0; i < layers; i++) {
                sliding.add((i + 1) % pattern != 0);
            }
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        int heads = BertConfig.integer(node, "num_attention_heads", 8, source);
        int headDim = BertConfig.integer(node, "head_dim", 256, source);
        Gemma3Config c = new Gemma3Config(BertConfig.text(node, "model_type", "gemma3_text", source), architectures,
                BertConfig.integer(node, "vocab_size", 262208, source),
                BertConfig.integer(node, "hidden_size", 2304, source), layers, heads,
                BertConfig.integer(node, "num_key_value_heads", 4, source), headDim,
                BertConfig.integer(node, "intermediate_size", 9216, source),
                BertConfig.integer(node, "max_position_embeddings", 131072, source),
                BertConfig.number(node, "rms_norm_eps", 1e-6, source),
                BertConfig.text(node, "hidden_activation", "gelu_pytorch_tanh", source), theta, local,
                BertConfig.integer(node, "sliding_window", 4096, source), sliding,
                BertConfig.number(node, "query_pre_attn_scalar", 256, source),
                BertConfig.bool(node, "attention_bias", false, source));
        c.validate(source);
        return c;
    }

    private void validate(String source) {
        for (Object[] f : new Object[][] {{"vocab_size", vocabSize}, {"hidden_size", hiddenSize}, {"num_attention_heads", numAttentionHeads},
            {"num_key_value_heads", numKeyValueHeads}, {"head_dim", headDim}, {"intermediate_size", intermediateSize},
            {"max_position_embeddings", maxPositionEmbeddings}, {"sliding_window", slidingWindow}}) {
            if ((int) f[1] <= 0) {
                throw new LoaderException(source + ": " + f[0] + " must be positive, was " + f[1]);
            }
        }
        ModelConfig.checkGroupedHeads(source, numAttentionHeads, numKeyValueHeads, headDim, maxPositionEmbeddings);
        for (Object[] f : new Object[][] {{"rope_theta", ropeTheta}, {"rope_local_base_freq", ropeLocalBaseFreq},
            {"query_pre_attn_scalar", queryPreAttnScalar}, {"rms_norm_eps", rmsNormEps}}) {
            double v = (double) f[1];
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new LoaderException(source + ": " + f[0] + " must be a positive number, was " + v);
            }
        }
        if (slidingWindow < 2 && sliding.contains(true)) {
            throw new LoaderException(source + ": sliding_window must be at least 2 (a query sees sliding_window / 2 keys on each side),"
                    + " was " + slidingWindow);
        }
        if (!ACTIVATIONS.contains(hiddenActivation)) {
            throw new LoaderException(source + ": hidden_activation '" + hiddenActivation + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS) + ")");
        }
    }

    @Override
    public int headSize() {
        return headDim;
    }

    /** {@return how far a sliding layer's query sees on each side: sliding_window / 2, as the bidirectional mask has it} */
    public int halfWindow() {
        return slidingWindow / 2;
    }

    @Override
    public int maxTokens() {
        return maxPositionEmbeddings;
    }

    @Override
    public int typeVocabSize() {
        return 0;
    }
}
