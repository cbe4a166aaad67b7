package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * DeBERTa-v2's config.json ({@code model_type: deberta-v2}, which DeBERTa-v3 and mDeBERTa-v3 use too), read as
 * transformers' {@code DebertaV2Config} and the modules that read keys of their own ({@code getattr} with a default)
 * do, and validated. Disentangled attention takes content-to-position and position-to-content terms as
 * {@code pos_att_type} lists them; v1's p2p term and a head width apart from hidden/heads are refused by name.
 *
 * @param modelType             model_type
 * @param architectures         architectures
 * @param vocabSize             vocab_size
 * @param hiddenSize            hidden_size
 * @param numHiddenLayers       num_hidden_layers
 * @param numAttentionHeads     num_attention_heads
 * @param intermediateSize      intermediate_size
 * @param maxPositionEmbeddings max_position_embeddings
 * @param layerNormEps          layer_norm_eps
 * @param hiddenAct             hidden_act
 * @param typeVocabSize         type_vocab_size (0: no token type table)
 * @param embeddingSize         embedding_size (hidden_size unless set; otherwise {@code embed_proj} widens it)
 * @param positionBiasedInput   position_biased_input: an absolute position table added to the word embeddings
 * @param relativeAttention     relative_attention
 * @param positionBuckets       position_buckets (0 or less: relative distances are not bucketed)
 * @param maxRelativePositions  max_relative_positions, max_position_embeddings when below 1
 * @param contentToPosition     pos_att_type has c2p
 * @param positionToContent     pos_att_type has p2c
 * @param shareAttKey           share_att_key: the positions go through the layer's own query and key projections
 * @param normRelEmbeddings     norm_rel_ebd has layer_norm: the relative embeddings go through the encoder's LayerNorm
 * @param convKernelSize        conv_kernel_size (0: no convolution after the first layer)
 * @param convGroups            conv_groups
 * @param convAct               conv_act
 * @param poolerHiddenAct       pooler_hidden_act, the sequence classifier's pooler activation
 */
public record DebertaV2Config(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int numHiddenLayers,
                              int numAttentionHeads, int intermediateSize, int maxPositionEmbeddings, double layerNormEps,
                              String hiddenAct, int typeVocabSize, int embeddingSize, boolean positionBiasedInput,
                              boolean relativeAttention, int positionBuckets, int maxRelativePositions, boolean contentToPosition,
                              boolean positionToContent, boolean shareAttKey, boolean normRelEmbeddings, int convKernelSize,
                              int convGroups, String convAct, String poolerHiddenAct) implements ModelConfig {
    private static final Set<String> ACTIVATIONS = Set.of("gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish");
    /** The convolution's and the pooler's activations: the encoder's, plus tanh. */
    private static final Set<String> SMALL_ACTIVATIONS = Set.of("gelu", "relu", "tanh");

    /** Copies the list. */
    public DebertaV2Config {
        architectures = List.copyOf(architectures);
    }

    /**
     * Reads config.json's root as transformers does, defaults included, and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static DebertaV2Config parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        int hidden = BertConfig.integer(node, "hidden_size", 1536, source);
        int heads = BertConfig.integer(node, "num_attention_heads", 24, source);
        if (node.has("attention_head_size") && heads > 0
                && BertConfig.integer(node, "attention_head_size", hidden / heads, source) * heads != hidden) {
            throw new LoaderException(source + ": attention_head_size " + node.get("attention_head_size")
                    + " is not supported (only hidden_size / num_attention_heads)");
        }
        List<String> terms = terms(node, source);
        int maxPositions = BertConfig.integer(node, "max_position_embeddings", 512, source);
        int maxRelative = BertConfig.integer(node, "max_relative_positions", -1, source);
        List<String> norms = List.of(BertConfig.text(node, "norm_rel_ebd", "none", source).split("\\|"));
        for (String n : norms) {
            if (!n.strip().equals("none") && !n.strip().equals("layer_norm")) {
                throw new LoaderException(source + ": norm_rel_ebd '" + n.strip() + "' is not supported (none or layer_norm)");
            }
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        DebertaV2Config c = new DebertaV2Config(BertConfig.text(node, "model_type", "deberta-v2", source), architectures,
                BertConfig.integer(node, "vocab_size", 128100, source), hidden,
                BertConfig.integer(node, "num_hidden_layers", 24, source), heads,
                BertConfig.integer(node, "intermediate_size", 6144, source), maxPositions,
                BertConfig.number(node, "layer_norm_eps", 1e-7, source),
                BertConfig.text(node, "hidden_act", "gelu", source),
                BertConfig.integer(node, "type_vocab_size", 0, source),
                BertConfig.integer(node, "embedding_size", hidden, source),
                BertConfig.bool(node, "position_biased_input", true, source),
                BertConfig.bool(node, "relative_attention", false, source),
                BertConfig.integer(node, "position_buckets", -1, source),
                maxRelative < 1 ? maxPositions : maxRelative,
                terms.contains("c2p"), terms.contains("p2c"),
                BertConfig.bool(node, "share_att_key", false, source),
                norms.stream().anyMatch(n -> n.strip().equals("layer_norm")),
                BertConfig.integer(node, "conv_kernel_size", 0, source),
                BertConfig.integer(node, "conv_groups", 1, source),
                BertConfig.text(node, "conv_act", "tanh", source),
                BertConfig.text(node, "pooler_hidden_act", "gelu", source));
        c.validate(node, source);
        return c;
    }

    /** pos_att_type: a list, or v2's "p2c|c2p" string, lower-cased as transformers does; only c2p and p2c run. */
    private static List<String> terms(JsonNode node, String source) {
        JsonNode v = node.get("pos_att_type");
        List<String> terms = new ArrayList<>();
        if (v == null || v.isNull()) {
            return terms;
        }
        if (v.isTextual()) {
            for (String t : v.asText().toLowerCase(Locale.ROOT).split("\\|")) {
                terms.add(t.strip());
            }
        } else if (v.isArray()) {
            v.forEach(t -> terms.add(t.asText()));
        } else {
            throw new LoaderException(source + ": pos_att_type must be a list or a string, was " + v);
        }
        for (String t : terms) {
            if (!t.equals("c2p") && !t.equals("p2c") && !t.isEmpty()) {
                throw new LoaderException(source + ": pos_att_type '" + t + "' is not supported (c2p and p2c; p2p is DeBERTa v1's)");
            }
        }
        return terms;
    }

    private void validate(JsonNode node, String source) {
        ModelConfig.checkLayers(source, "num_hidden_layers", numHiddenLayers);
        for (Object[] f : new Object[][] {{"vocab_size", vocabSize}, {"hidden_size", hiddenSize}, {"num_attention_heads", numAttentionHeads},
            {"intermediate_size", intermediateSize}, {"max_position_embeddings", maxPositionEmbeddings}, {"embedding_size", embeddingSize},
            {"conv_groups", convGroups}}) {
            if ((int) f[1] <= 0) {
                throw new LoaderException(source + ": " + f[0] + " must be positive, was " + f[1]);
            }
        }
        if (typeVocabSize < 0 || convKernelSize < 0) {
            throw new LoaderException(source + ": " + (typeVocabSize < 0 ? "type_vocab_size" : "conv_kernel_size")
                    + " must not be negative");
        }
        if (hiddenSize % numAttentionHeads != 0) {
            throw new LoaderException(source + ": hidden_size (" + hiddenSize + ") must be divisible by num_attention_heads ("
                    + numAttentionHeads + ")");
        }
        if (convKernelSize > 0 && (hiddenSize % convGroups != 0 || convKernelSize % 2 == 0 || convKernelSize > 1001)) {
            throw new LoaderException(source + ": conv_kernel_size " + convKernelSize + " with conv_groups " + convGroups
                    + " is not supported (an odd kernel up to 1001, groups dividing hidden_size " + hiddenSize + ")");
        }
        if (maxPositionEmbeddings > 1 << 20) {
            throw new LoaderException(source + ": max_position_embeddings " + maxPositionEmbeddings + " is larger than " + (1 << 20)
                    + " (relative positions are tabled for every distance a sequence can have)");
        }
        if (relativeAttention && relativeSpan() > 1 << 16) {
            throw new LoaderException(source + ": " + (positionBuckets > 0 ? "position_buckets " + positionBuckets
                    : "max_relative_positions " + maxRelativePositions) + " is larger than 65536");
        }
        if (!(layerNormEps > 0)) {
            throw new LoaderException(source + ": layer_norm_eps must be a positive number, was " + layerNormEps);
        }
        if (!ACTIVATIONS.contains(hiddenAct)) {
            throw new LoaderException(source + ": hidden_act '" + hiddenAct + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS.stream().sorted().toList()) + ")");
        }
        if (convKernelSize > 0 && !SMALL_ACTIVATIONS.contains(convAct)) {
            throw new LoaderException(source + ": conv_act '" + convAct + "' is not supported (gelu, relu, tanh)");
        }
        if (!SMALL_ACTIVATIONS.contains(poolerHiddenAct)) {
            throw new LoaderException(source + ": pooler_hidden_act '" + poolerHiddenAct + "' is not supported (gelu, relu, tanh)");
        }
        int pooler = BertConfig.integer(node, "pooler_hidden_size", hiddenSize, source);
        if (pooler != hiddenSize) {
            throw new LoaderException(source + ": pooler_hidden_size " + pooler + " is not supported (only hidden_size, "
                    + hiddenSize + ": the classifier reads hidden_size numbers)");
        }
    }

    /** {@return the relative embeddings' half-size att_span: position_buckets when above 0, else max_relative_positions} */
    public int relativeSpan() {
        return positionBuckets > 0 ? positionBuckets : maxRelativePositions;
    }

    /** {@return 1 plus the number of relative terms: the attention scores are divided by √(head size · this)} */
    public int scaleFactor() {
        return 1 + (contentToPosition ? 1 : 0) + (positionToContent ? 1 : 0);
    }

    /**
     * {@return max_position_embeddings with an absolute position table; without one (v3), {@link ModelConfig#LONG_CONTEXT}
     * or more: relative positions have no table to run out of, and the tokenizer's model_max_length (512 in the published
     * v3 checkpoints) still cuts the tasks' inputs where transformers' pipelines cut them}
     */
    @Override
    public int maxTokens() {
        return positionBiasedInput ? maxPositionEmbeddings : Math.max(maxPositionEmbeddings, LONG_CONTEXT);
    }
}
