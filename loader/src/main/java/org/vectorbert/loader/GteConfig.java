package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * GTE v1.5's config.json ({@code model_type: new}, the hub code of Alibaba-NLP/new-impl that gte-base-en-v1.5,
 * gte-large-en-v1.5 and gte-multilingual-base name in {@code auto_map}; snowflake-arctic-embed-m-v2.0's
 * {@code model_type: gte} is the same code renamed), validated. Paths no published checkpoint takes
 * (separate q/k/v projections, absolute positions, RMSNorm layers, the logn attention scale, mixed NTK) are refused by
 * name, as text-embeddings-inference refuses them.
 *
 * @param modelType             model_type
 * @param architectures         architectures
 * @param vocabSize             vocab_size
 * @param hiddenSize            hidden_size
 * @param numHiddenLayers       num_hidden_layers
 * @param numAttentionHeads     num_attention_heads
 * @param intermediateSize      intermediate_size: the gated feed-forward's width (up_gate_proj gives twice this)
 * @param maxPositionEmbeddings max_position_embeddings
 * @param layerNormEps          layer_norm_eps
 * @param hiddenAct             hidden_act, on the gate
 * @param typeVocabSize         type_vocab_size (0: no token type table)
 * @param ropeTheta             rope_theta
 * @param ntkFactor             rope_scaling.factor of {@code "type": "ntk"}, or 0 without scaling
 */
public record GteConfig(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int numHiddenLayers,
                        int numAttentionHeads, int intermediateSize, int maxPositionEmbeddings, double layerNormEps, String hiddenAct,
                        int typeVocabSize, double ropeTheta, double ntkFactor) implements ModelConfig {
    /** Activations the engine runs, by transformers' ACT2FN names. */
    private static final List<String> ACTIVATIONS = List.of("gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish");

    /** Copies the list. */
    public GteConfig {
        architectures = List.copyOf(architectures);
    }

    /**
     * Reads config.json's root as the hub code's {@code NewConfig} does, defaults included, and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static GteConfig parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        if (!BertConfig.bool(node, "pack_qkv", true, source)) {
            throw new LoaderException(source + ": pack_qkv false is not supported (every published GTE packs qkv_proj)");
        }
        if (BertConfig.bool(node, "logn_attention_scale", false, source)) {
            throw new LoaderException(source + ": logn_attention_scale true is not supported (no published GTE uses it)");
        }
        String positions = BertConfig.text(node, "position_embedding_type", "rope", source);
        if (!positions.equals("rope")) {
            throw new LoaderException(source + ": position_embedding_type '" + positions + "' is not supported (only rope)");
        }
        String norm = BertConfig.text(node, "layer_norm_type", "layer_norm", source);
        if (!norm.equals("layer_norm")) {
            throw new LoaderException(source + ": layer_norm_type '" + norm + "' is not supported (only layer_norm)");
        }
        double factor = 0;
        JsonNode scaling = node.get("rope_scaling");
        if (scaling != null && !scaling.isNull()) {
            if (!scaling.isObject() || !"ntk".equals(scaling.path("type").asText()) || scaling.has("mixed_b") && !scaling.get("mixed_b").isNull()) {
                throw new LoaderException(source + ": rope_scaling " + scaling + " is not supported (only {\"type\": \"ntk\", \"factor\": F})");
            }
            factor = BertConfig.number(scaling, "factor", 0, source);
            if (!(factor > 0) || Double.isInfinite(factor)) {
                throw new LoaderException(source + ": rope_scaling.factor must be a positive number, was " + scaling.get("factor"));
            }
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        GteConfig c = new GteConfig(
                BertConfig.text(node, "model_type", "new", source), architectures,
                BertConfig.integer(node, "vocab_size", 30528, source),
                BertConfig.integer(node, "hidden_size", 768, source),
                BertConfig.integer(node, "num_hidden_layers", 12, source),
                BertConfig.integer(node, "num_attention_heads", 12, source),
                BertConfig.integer(node, "intermediate_size", 3072, source),
                BertConfig.integer(node, "max_position_embeddings", 512, source),
                BertConfig.number(node, "layer_norm_eps", 1e-12, source),
                BertConfig.text(node, "hidden_act", "gelu", source),
                BertConfig.integer(node, "type_vocab_size", 1, source),
                BertConfig.number(node, "rope_theta", 10000.0, source), factor);
        c.validate(source);
        return c;
    }

    private void validate(String source) {
        ModelConfig.checkLayers(source, "num_hidden_layers", numHiddenLayers);
        for (Object[] f : new Object[][] {{"vocab_size", vocabSize}, {"hidden_size", hiddenSize}, {"num_hidden_layers", numHiddenLayers},
            {"num_attention_heads", numAttentionHeads}, {"intermediate_size", intermediateSize},
            {"max_position_embeddings", maxPositionEmbeddings}}) {
            if ((int) f[1] <= 0) {
                throw new LoaderException(source + ": " + f[0] + " must be positive, was " + f[1]);
            }
        }
        if (typeVocabSize < 0) {
            throw new LoaderException(source + ": type_vocab_size must not be negative, was " + typeVocabSize);
        }
        if (hiddenSize % numAttentionHeads != 0 || headSize() % 2 != 0) {
            throw new LoaderException(source + ": hidden_size (" + hiddenSize + ") must be divisible by num_attention_heads ("
                    + numAttentionHeads + ") into heads of an even width (rotary positions turn pairs of columns)");
        }
        if (!(ropeTheta > 0) || Double.isInfinite(ropeTheta)) {
            throw new LoaderException(source + ": rope_theta must be a positive number, was " + ropeTheta);
        }
        if (!(layerNormEps > 0)) {
            throw new LoaderException(source + ": layer_norm_eps must be a positive number, was " + layerNormEps);
        }
        if (!ACTIVATIONS.contains(hiddenAct)) {
            throw new LoaderException(source + ": hidden_act '" + hiddenAct + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS) + ")");
        }
    }

    /**
     * Whether a batch of {@code length} positions sees NTK-scaled frequencies: the hub code builds its cache for
     * max_position_embeddings·factor positions and scales whenever the cache is longer than max_position_embeddings,
     * so with a factor above 1 every input is scaled, short or long.
     *
     * @param length the padded batch length
     * @return whether the frequencies are scaled
     */
    public boolean ntkScaled(int length) {
        return ntkFactor > 0 && Math.max(maxPositionEmbeddings * ntkFactor, length) > maxPositionEmbeddings;
    }

    /** {@return max_position_embeddings·factor or {@link ModelConfig#LONG_CONTEXT}, the largest: rotary positions have no table} */
    @Override
    public int maxTokens() {
        return (int) Math.max(LONG_CONTEXT, Math.max(maxPositionEmbeddings, maxPositionEmbeddings * Math.max(ntkFactor, 1)));
    }
}
