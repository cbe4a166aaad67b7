package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * JinaBERT v2's config.json ({@code model_type: bert} with {@code auto_map} to jinaai/jina-bert-implementation: the
 * jina-embeddings-v2 models and jina-reranker-v1), validated: BERT's keys plus {@code position_embedding_type: alibi}
 * and {@code feed_forward_type}, whose GLU activation is the feed-forward's (hidden_act is the MLM head's).
 *
 * @param modelType             model_type
 * @param architectures         architectures (the hub says JinaBertForMaskedLM even for the embedding models)
 * @param vocabSize             vocab_size
 * @param hiddenSize            hidden_size
 * @param numHiddenLayers       num_hidden_layers
 * @param numAttentionHeads     num_attention_heads
 * @param intermediateSize      intermediate_size: the GLU's width (mlp.gated_layers gives twice this)
 * @param maxPositionEmbeddings max_position_embeddings
 * @param layerNormEps          layer_norm_eps
 * @param hiddenAct             hidden_act: the MLM head's activation
 * @param typeVocabSize         type_vocab_size
 * @param feedForwardType       feed_forward_type: geglu (GELU) or reglu (ReLU)
 */
public record JinaBertConfig(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int numHiddenLayers,
                             int numAttentionHeads, int intermediateSize, int maxPositionEmbeddings, double layerNormEps,
                             String hiddenAct, int typeVocabSize, String feedForwardType) implements ModelConfig {
    private static final Set<String> ACTIVATIONS = Set.of("gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish");

    /** Copies the list. */
    public JinaBertConfig {
        architectures = List.copyOf(architectures);
    }

    /**
     * Reads config.json's root as the hub code's {@code JinaBertConfig} does, defaults included, and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static JinaBertConfig parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        String positions = BertConfig.text(node, "position_embedding_type", "absolute", source);
        if (!positions.equals("alibi")) {
            throw new LoaderException(source + ": position_embedding_type '" + positions + "' is not supported for JinaBERT (only alibi,"
                    + " as every jina-embeddings-v2 model has)");
        }
        String feedForward = BertConfig.text(node, "feed_forward_type", "original", source);
        if (!feedForward.equals("geglu") && !feedForward.equals("reglu")) {
            throw new LoaderException(source + ": feed_forward_type '" + feedForward + "' is not supported (geglu or reglu)");
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        JinaBertConfig c = new JinaBertConfig(BertConfig.text(node, "model_type", "bert", source), architectures,
                BertConfig.integer(node, "vocab_size", 30528, source),
                BertConfig.integer(node, "hidden_size", 768, source),
                BertConfig.integer(node, "num_hidden_layers", 12, source),
                BertConfig.integer(node, "num_attention_heads", 12, source),
                BertConfig.integer(node, "intermediate_size", 3072, source),
                BertConfig.integer(node, "max_position_embeddings", 512, source),
                BertConfig.number(node, "layer_norm_eps", 1e-12, source),
                BertConfig.text(node, "hidden_act", "gelu", source),
                BertConfig.integer(node, "type_vocab_size", 2, source), feedForward);
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
        if (hiddenSize % numAttentionHeads != 0) {
            throw new LoaderException(source + ": hidden_size (" + hiddenSize + ") must be divisible by num_attention_heads ("
                    + numAttentionHeads + ")");
        }
        if (!(layerNormEps > 0)) {
            throw new LoaderException(source + ": layer_norm_eps must be a positive number, was " + layerNormEps);
        }
        if (!ACTIVATIONS.contains(hiddenAct)) {
            throw new LoaderException(source + ": hidden_act '" + hiddenAct + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS.stream().sorted().toList()) + ")");
        }
    }

    /** {@return max_position_embeddings or {@link ModelConfig#LONG_CONTEXT}, the larger: ALiBi has no table to run out of} */
    @Override
    public int maxTokens() {
        return Math.max(maxPositionEmbeddings, LONG_CONTEXT);
    }
}
