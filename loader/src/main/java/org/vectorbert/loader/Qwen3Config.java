package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Qwen3's config.json ({@code model_type: qwen3}: Qwen3-Embedding and Qwen3-Reranker), read as transformers'
 * {@code Qwen3Config} does, defaults included, and validated. What no published embedder or reranker uses (sliding-window
 * layers, scaled rotary positions) is refused by name.
 *
 * @param modelType             model_type
 * @param architectures         architectures
 * @param vocabSize             vocab_size
 * @param hiddenSize            hidden_size
 * @param numHiddenLayers       num_hidden_layers
 * @param numAttentionHeads     num_attention_heads: query heads
 * @param numKeyValueHeads      num_key_value_heads: key and value heads, each shared by heads / kv_heads query heads
 * @param headDim               head_dim (Qwen3Config's default 128, not hidden / heads)
 * @param intermediateSize      intermediate_size: the SwiGLU's width
 * @param maxPositionEmbeddings max_position_embeddings
 * @param rmsNormEps            rms_norm_eps
 * @param hiddenAct             hidden_act, on the gate
 * @param ropeTheta             rope_theta (or transformers 5's rope_parameters.rope_theta)
 * @param tieWordEmbeddings     tie_word_embeddings: the causal LM head is the word embeddings
 * @param attentionBias         attention_bias: q, k, v and o projections with biases
 */
public record Qwen3Config(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int numHiddenLayers,
                          int numAttentionHeads, int numKeyValueHeads, int headDim, int intermediateSize, int maxPositionEmbeddings,
                          double rmsNormEps, String hiddenAct, double ropeTheta, boolean tieWordEmbeddings,
                          boolean attentionBias) implements ModelConfig {
    /** Activations the engine runs, by transformers' ACT2FN names. */
    private static final List<String> ACTIVATIONS = List.of("silu", "swish", "gelu", "gelu_pytorch_tanh", "relu");

    /** Copies the list. */
    public Qwen3Config {
        architectures = List.copyOf(architectures);
    }

    /**
     * Reads config.json's root and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static Qwen3Config parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        if (BertConfig.bool(node, "use_sliding_window", false, source)) {
            throw new LoaderException(source + ": use_sliding_window true is not supported (no published Qwen3 embedder uses it)");
        }
        node.path("layer_types").forEach(t -> {
            if (!t.asText().equals("full_attention")) {
                throw new LoaderException(source + ": layer_types entry '" + t.asText() + "' is not supported (only full_attention)");
            }
        });
        JsonNode rope = node.path("rope_parameters");
        double theta = rope.isObject() ? BertConfig.number(rope, "rope_theta", 1e6, source + " rope_parameters")
                : BertConfig.number(node, "rope_theta", 10000.0, source);
        JsonNode scaling = rope.isObject() ? rope : node.path("rope_scaling");
        String ropeType = scaling.isObject() ? scaling.path(scaling.has("rope_type") ? "rope_type" : "type").asText("default") : "default";
        if (!ropeType.equals("default")) {
            throw new LoaderException(source + ": rope scaling '" + ropeType + "' is not supported (only the default rotary positions)");
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        int heads = BertConfig.integer(node, "num_attention_heads", 32, source);
        Qwen3Config c = new Qwen3Config(BertConfig.text(node, "model_type", "qwen3", source), architectures,
                BertConfig.integer(node, "vocab_size", 151936, source),
                BertConfig.integer(node, "hidden_size", 4096, source),
                BertConfig.integer(node, "num_hidden_layers", 32, source),
                heads,
                BertConfig.integer(node, "num_key_value_heads", heads, source),
                BertConfig.integer(node, "head_dim", 128, source),
                BertConfig.integer(node, "intermediate_size", 22016, source),
                BertConfig.integer(node, "max_position_embeddings", 32768, source),
                BertConfig.number(node, "rms_norm_eps", 1e-6, source),
                BertConfig.text(node, "hidden_act", "silu", source),
                theta,
                BertConfig.bool(node, "tie_word_embeddings", false, source),
                BertConfig.bool(node, "attention_bias", false, source));
        c.validate(source);
        return c;
    }

    private void validate(String source) {
        ModelConfig.checkLayers(source, "num_hidden_layers", numHiddenLayers);
        for (Object[] f : new Object[][] {{"vocab_size", vocabSize}, {"hidden_size", hiddenSize}, {"num_attention_heads", numAttentionHeads},
            {"num_key_value_heads", numKeyValueHeads}, {"head_dim", headDim}, {"intermediate_size", intermediateSize},
            {"max_position_embeddings", maxPositionEmbeddings}}) {
            if ((int) f[1] <= 0) {
                throw new LoaderException(source + ": " + f[0] + " must be positive, was " + f[1]);
            }
        }
        ModelConfig.checkGroupedHeads(source, numAttentionHeads, numKeyValueHeads, headDim, maxPositionEmbeddings);
        if (!(ropeTheta > 0) || Double.isInfinite(ropeTheta)) {
            throw new LoaderException(source + ": rope_theta must be a positive number, was " + ropeTheta);
        }
        if (!(rmsNormEps > 0)) {
            throw new LoaderException(source + ": rms_norm_eps must be a positive number, was " + rmsNormEps);
        }
        if (!ACTIVATIONS.contains(hiddenAct)) {
            throw new LoaderException(source + ": hidden_act '" + hiddenAct + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS) + ")");
        }
    }

    @Override
    public int headSize() {
        return headDim;
    }

    /** {@return key and value heads' width together: num_key_value_heads x head_dim} */
    public int keyValueWidth() {
        return numKeyValueHeads * headDim;
    }

    /** {@return whether the model is one of the causal LM classes, whose head is the (tied) word embeddings} */
    public boolean isCausalLm() {
        return architectures.contains("Qwen3ForCausalLM");
    }

    /** {@return max_position_embeddings, or {@link ModelConfig#LONG_CONTEXT} if that is larger: rotary positions have no table} */
    @Override
    public int maxTokens() {
        return Math.max(LONG_CONTEXT, maxPositionEmbeddings);
    }

    @Override
    public boolean causal() {
        return true;
    }

    @Override
    public int typeVocabSize() {
        return 0;
    }
}
