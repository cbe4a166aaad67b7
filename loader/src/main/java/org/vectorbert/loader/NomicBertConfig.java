package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * NomicBERT's config.json ({@code model_type: nomic_bert}, the hub code of nomic-ai/nomic-bert-2048 that nomic-embed-text
 * v1 and v1.5 name in {@code auto_map}) under its GPT-2 key names, validated. Only what changes the numbers is kept; keys
 * that would take the model down a path vectorbert does not run (pre-LN, causal, XPos scaling, absolute positions) are
 * refused by name.
 *
 * @param modelType           model_type
 * @param architectures       architectures
 * @param vocabSize           vocab_size (already a multiple of pad_vocab_size_multiple on the hub)
 * @param hiddenSize          n_embd
 * @param numHiddenLayers     n_layer
 * @param numAttentionHeads   n_head
 * @param innerSize           the SwiGLU's width: n_inner (or 8·n_embd/3) rounded up to a multiple of 256, as the code does
 * @param positions           n_positions
 * @param layerNormEps        layer_norm_epsilon
 * @param typeVocabSize       type_vocab_size
 * @param rotaryFraction      rotary_emb_fraction: the share of each head's columns that rotate
 * @param rotaryBase          rotary_emb_base
 * @param rotaryInterleaved   rotary_emb_interleaved: pairs (2i, 2i+1) instead of (i, i + r/2)
 * @param scalingFactor       rotary_scaling_factor, 0 without dynamic NTK scaling
 * @param maxTrainedPositions max_trained_positions: the length past which dynamic NTK scales the base
 * @param qkvBias             qkv_proj_bias: Wqkv and out_proj have biases
 * @param fc1Bias             mlp_fc1_bias: fc11, fc12 and the MLM head's dense and decoder have biases
 * @param fc2Bias             mlp_fc2_bias: fc2 has a bias
 */
public record NomicBertConfig(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int numHiddenLayers,
                              int numAttentionHeads, int innerSize, int positions, double layerNormEps, int typeVocabSize,
                              double rotaryFraction, double rotaryBase, boolean rotaryInterleaved, double scalingFactor,
                              int maxTrainedPositions, boolean qkvBias, boolean fc1Bias, boolean fc2Bias) implements ModelConfig {
    /** Copies the list. */
    public NomicBertConfig {
        architectures = List.copyOf(architectures);
    }

    /**
     * Reads config.json's root as the hub code's {@code NomicBertConfig} does, defaults included, and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static NomicBertConfig parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        refuse(node, source, "prenorm", true, "pre-LN NomicBERT is not supported (the published models are post-LN)");
        refuse(node, source, "causal", true, "a causal NomicBERT is not an encoder");
        refuse(node, source, "use_rms_norm", true, "RMSNorm NomicBERT is not supported (the published models use LayerNorm)");
        if (!nullable(node, "rotary_emb_scale_base")) {
            throw new LoaderException(source + ": rotary_emb_scale_base is not supported (XPos-scaled rotary positions)");
        }
        String activation = BertConfig.text(node, "activation_function", "swiglu", source);
        if (!activation.equals("swiglu")) {
            throw new LoaderException(source + ": activation_function '" + activation + "' is not supported (only swiglu)");
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        int hidden = BertConfig.integer(node, "n_embd", 768, source);
        int inner = nullable(node, "n_inner") ? 8 * hidden / 3 : BertConfig.integer(node, "n_inner", 0, source);
        double fraction = BertConfig.number(node, "rotary_emb_fraction", 0.0, source);
        NomicBertConfig c = new NomicBertConfig(
                BertConfig.text(node, "model_type", "nomic_bert", source), architectures,
                BertConfig.integer(node, "vocab_size", 30528, source), hidden,
                BertConfig.integer(node, "n_layer", 12, source),
                BertConfig.integer(node, "n_head", 12, source),
                (inner + 255) / 256 * 256,
                BertConfig.integer(node, "n_positions", 2048, source),
                BertConfig.number(node, "layer_norm_epsilon", 1e-5, source),
                BertConfig.integer(node, "type_vocab_size", 2, source),
                fraction,
                BertConfig.number(node, "rotary_emb_base", 10000.0, source),
                BertConfig.bool(node, "rotary_emb_interleaved", false, source),
                nullable(node, "rotary_scaling_factor") ? 0 : BertConfig.number(node, "rotary_scaling_factor", 0, source),
                BertConfig.integer(node, "max_trained_positions", 2048, source),
                BertConfig.bool(node, "qkv_proj_bias", true, source),
                BertConfig.bool(node, "mlp_fc1_bias", true, source),
                BertConfig.bool(node, "mlp_fc2_bias", true, source));
        c.validate(source);
        return c;
    }

    private static boolean nullable(JsonNode node, String key) {
        return node.get(key) == null || node.get(key).isNull();
    }

    private static void refuse(JsonNode node, String source, String key, boolean value, String why) {
        if (BertConfig.bool(node, key, !value, source) == value) {
            throw new LoaderException(source + ": " + key + " " + value + ": " + why);
        }
    }

    private void validate(String source) {
        ModelConfig.checkLayers(source, "n_layer", numHiddenLayers);
        for (Object[] f : new Object[][] {{"vocab_size", vocabSize}, {"n_embd", hiddenSize}, {"n_layer", numHiddenLayers},
            {"n_head", numAttentionHeads}, {"n_inner", innerSize}, {"n_positions", positions},
            {"max_trained_positions", maxTrainedPositions}}) {
            if ((int) f[1] <= 0) {
                throw new LoaderException(source + ": " + f[0] + " must be positive, was " + f[1]);
            }
        }
        if (typeVocabSize < 0) {
            throw new LoaderException(source + ": type_vocab_size must not be negative, was " + typeVocabSize);
        }
        if (hiddenSize % numAttentionHeads != 0) {
            throw new LoaderException(source + ": n_embd (" + hiddenSize + ") must be divisible by n_head (" + numAttentionHeads + ")");
        }
        if (!(rotaryFraction > 0 && rotaryFraction <= 1) || rotaryDim() % 2 != 0 || rotaryDim() < 4) {
            throw new LoaderException(source + ": rotary_emb_fraction must give each head an even number of rotating columns (at"
                    + " least 4) out of " + headSize() + ", was " + rotaryFraction + " (absolute positions are not supported)");
        }
        if (!(rotaryBase > 0)) {
            throw new LoaderException(source + ": rotary_emb_base must be positive, was " + rotaryBase);
        }
        if (!(scalingFactor >= 0) || Double.isInfinite(scalingFactor)) {
            throw new LoaderException(source + ": rotary_scaling_factor must be a positive number or null, was " + scalingFactor);
        }
        if (!(layerNormEps > 0)) {
            throw new LoaderException(source + ": layer_norm_epsilon must be a positive number, was " + layerNormEps);
        }
    }

    /** {@return the columns of each head that rotate: head size × rotary_emb_fraction} */
    public int rotaryDim() {
        return (int) (headSize() * rotaryFraction);
    }

    /**
     * The rotary base for a padded batch of {@code length} positions: rotary_emb_base, or with dynamic NTK scaling past
     * max_trained_positions base·(factor·L/max − (factor − 1))^(r/(r−2)), in double as the hub code computes it.
     *
     * @param length the padded batch length
     * @return the base
     */
    public double rotaryBase(int length) {
        if (scalingFactor == 0 || length <= maxTrainedPositions) {
            return rotaryBase;
        }
        double r = rotaryDim();
        return rotaryBase * Math.pow(scalingFactor * length / maxTrainedPositions - (scalingFactor - 1), r / (r - 2));
    }

    /** {@return n_positions or {@link ModelConfig#LONG_CONTEXT}, the larger: rotary positions have no table to run out of} */
    @Override
    public int maxTokens() {
        return Math.max(positions, LONG_CONTEXT);
    }
}
