package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * ModernBERT's config.json ({@code model_type: modernbert}) under transformers' key names, validated: sizes, which layers
 * attend globally and with which rotary base, the window of the local ones, the optional biases and the heads' settings.
 * Both spellings of the rotary bases are read: {@code global_rope_theta} / {@code local_rope_theta} with
 * {@code global_attn_every_n_layers} (transformers 4.x), and {@code layer_types} with {@code rope_parameters}
 * (transformers 5).
 *
 * @param modelType            model_type
 * @param architectures        architectures
 * @param vocabSize            vocab_size
 * @param hiddenSize           hidden_size
 * @param intermediateSize     intermediate_size: the GeGLU's width (mlp.Wi gives twice this)
 * @param numHiddenLayers      num_hidden_layers
 * @param numAttentionHeads    num_attention_heads
 * @param maxPositionEmbeddings max_position_embeddings: the longest input
 * @param normEps              norm_eps (layer_norm_eps is not read, as transformers does not)
 * @param normBias             norm_bias: LayerNorms have a bias
 * @param attentionBias        attention_bias: Wqkv and Wo have biases
 * @param mlpBias              mlp_bias: Wi and Wo have biases
 * @param classifierBias       classifier_bias: head.dense has a bias
 * @param decoderBias          decoder_bias: the MLM decoder has a bias
 * @param hiddenActivation     hidden_activation, inside the GeGLU
 * @param classifierActivation classifier_activation, in the prediction head
 * @param classifierPooling    classifier_pooling: "cls" or "mean"
 * @param localAttention       local_attention: a local layer's query sees keys within local_attention / 2 each side
 * @param globalLayers         per layer, whether it attends globally
 * @param globalRopeTheta      the rotary base of global layers
 * @param localRopeTheta       the rotary base of local layers
 */
public record ModernBertConfig(String modelType, List<String> architectures, int vocabSize, int hiddenSize, int intermediateSize,
                               int numHiddenLayers, int numAttentionHeads, int maxPositionEmbeddings, double normEps,
                               boolean normBias, boolean attentionBias, boolean mlpBias, boolean classifierBias,
                               boolean decoderBias, String hiddenActivation, String classifierActivation,
                               String classifierPooling, int localAttention, List<Boolean> globalLayers, double globalRopeTheta,
                               double localRopeTheta) implements ModelConfig {
    /** Activations the engine runs, by transformers' ACT2FN names. */
    private static final Set<String> ACTIVATIONS = Set.of("gelu", "gelu_new", "gelu_pytorch_tanh", "relu");
    private static final String FULL = "full_attention";
    private static final String SLIDING = "sliding_attention";
    /** Keys whose spelling transformers' ModernBERT does not read, which a config could mean to change the numbers with. */
    private static final Map<String, String> REFUSED = Map.of(
            "rope_theta", "ModernBERT's bases are global_rope_theta and local_rope_theta, or rope_parameters per layer type",
            "rope_scaling", "scaled rotary positions are not supported",
            "sliding_window", "ModernBERT's window is local_attention");

    /** Copies the list. */
    public ModernBertConfig {
        architectures = List.copyOf(architectures);
        globalLayers = List.copyOf(globalLayers);
    }

    /**
     * Reads config.json's root as transformers' {@code ModernBertConfig} does, defaults included, and validates it.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration
     * @throws LoaderException naming the key that is wrong
     */
    public static ModernBertConfig parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        REFUSED.forEach((key, why) -> {
            if (node.has(key)) {
                throw new LoaderException(source + ": " + key + " is not a ModernBERT key (" + why + ")");
            }
        });
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        int layers = BertConfig.integer(node, "num_hidden_layers", 22, source);
        ModelConfig.checkLayers(source, "num_hidden_layers", layers);
        int every = BertConfig.integer(node, "global_attn_every_n_layers", 3, source);
        positive(source, "global_attn_every_n_layers", every);
        double globalTheta = BertConfig.number(node, "global_rope_theta", 160000.0, source);
        double localTheta = BertConfig.number(node, "local_rope_theta", 10000.0, source);
        List<Boolean> global = new ArrayList<>();
        JsonNode types = node.get("layer_types");
        if (types == null || types.isNull()) {
            for (int i = 0; i < layers; i++) {
                global.add(i % every == 0);
            }
        } else {
            if (!types.isArray() || types.size() != layers) {
                throw new LoaderException(source + ": layer_types must list num_hidden_layers (" + layers + ") layer types, was " + types);
            }
            for (JsonNode t : types) {
                if (!FULL.equals(t.asText()) && !SLIDING.equals(t.asText())) {
                    throw new LoaderException(source + ": layer_types holds '" + t.asText() + "'; expected " + FULL + " or " + SLIDING);
                }
                global.add(FULL.equals(t.asText()));
            }
        }
        JsonNode rope = node.get("rope_parameters");
        if (rope != null && !rope.isNull()) {
            if (!rope.isObject()) {
                throw new LoaderException(source + ": rope_parameters must be an object of layer type to its parameters, was " + rope);
            }
            for (Map.Entry<String, JsonNode> e : rope.properties()) {
                if (!FULL.equals(e.getKey()) && !SLIDING.equals(e.getKey())) {
                    throw new LoaderException(source + ": rope_parameters." + e.getKey() + " is not a layer type (" + FULL + ", " + SLIDING + ")");
                }
                String at = "rope_parameters." + e.getKey();
                for (Map.Entry<String, JsonNode> p : e.getValue().properties()) {
                    if (!p.getKey().equals("rope_theta") && !p.getKey().equals("rope_type")) {
                        throw new LoaderException(source + ": " + at + "." + p.getKey() + " is not read (only rope_theta and rope_type)");
                    }
                }
                String type = BertConfig.text(e.getValue(), "rope_type", "default", source);
                if (!type.equals("default")) {
                    throw new LoaderException(source + ": " + at + ".rope_type '" + type + "' is not supported (only default)");
                }
                double theta = BertConfig.number(e.getValue(), "rope_theta", FULL.equals(e.getKey()) ? globalTheta : localTheta, source);
                if (FULL.equals(e.getKey())) {
                    globalTheta = theta;
                } else {
                    localTheta = theta;
                }
            }
        }
        ModernBertConfig c = new ModernBertConfig(
                BertConfig.text(node, "model_type", "modernbert", source), architectures,
                BertConfig.integer(node, "vocab_size", 50368, source),
                BertConfig.integer(node, "hidden_size", 768, source),
                BertConfig.integer(node, "intermediate_size", 1152, source),
                layers,
                BertConfig.integer(node, "num_attention_heads", 12, source),
                BertConfig.integer(node, "max_position_embeddings", 8192, source),
                BertConfig.number(node, "norm_eps", 1e-5, source),
                BertConfig.bool(node, "norm_bias", false, source),
                BertConfig.bool(node, "attention_bias", false, source),
                BertConfig.bool(node, "mlp_bias", false, source),
                BertConfig.bool(node, "classifier_bias", false, source),
                BertConfig.bool(node, "decoder_bias", true, source),
                BertConfig.text(node, "hidden_activation", "gelu", source),
                BertConfig.text(node, "classifier_activation", "gelu", source),
                BertConfig.text(node, "classifier_pooling", "cls", source),
                BertConfig.integer(node, "local_attention", 128, source),
                global, globalTheta, localTheta);
        c.validate(source);
        return c;
    }

    private void validate(String source) {
        positive(source, "vocab_size", vocabSize);
        positive(source, "hidden_size", hiddenSize);
        positive(source, "intermediate_size", intermediateSize);
        positive(source, "num_attention_heads", numAttentionHeads);
        positive(source, "max_position_embeddings", maxPositionEmbeddings);
        positive(source, "local_attention", localAttention);
        if (hiddenSize % numAttentionHeads != 0 || headSize() % 2 != 0) {
            throw new LoaderException(source + ": hidden_size (" + hiddenSize + ") must be divisible by num_attention_heads ("
                    + numAttentionHeads + ") into heads of an even width (rotary positions turn pairs of columns)");
        }
        if (!(normEps > 0)) {
            throw new LoaderException(source + ": norm_eps must be a positive number, was " + normEps);
        }
        if (!(globalRopeTheta > 0) || !(localRopeTheta > 0)) {
            throw new LoaderException(source + ": global_rope_theta and local_rope_theta must be positive, were " + globalRopeTheta
                    + " and " + localRopeTheta);
        }
        for (String[] a : new String[][] {{"hidden_activation", hiddenActivation}, {"classifier_activation", classifierActivation}}) {
            if (!ACTIVATIONS.contains(a[1])) {
                throw new LoaderException(source + ": " + a[0] + " '" + a[1] + "' is not supported (supported: "
                        + String.join(", ", ACTIVATIONS.stream().sorted().toList()) + ")");
            }
        }
        if (!classifierPooling.equals("cls") && !classifierPooling.equals("mean")) {
            throw new LoaderException(source + ": classifier_pooling '" + classifierPooling + "' is not supported (cls or mean)");
        }
    }

    private static void positive(String source, String field, int value) {
        if (value <= 0) {
            throw new LoaderException(source + ": " + field + " must be positive, was " + value);
        }
    }

    /**
     * Whether a layer attends globally, or within the window.
     *
     * @param layer the layer's index, from 0
     * @return true for a global layer
     */
    public boolean isGlobal(int layer) {
        return globalLayers.get(layer);
    }

    /** {@return how far a local layer's query sees on each side: local_attention / 2} */
    public int halfWindow() {
        return localAttention / 2;
    }

    @Override
    public int maxTokens() {
        return maxPositionEmbeddings;
    }

    /** {@return 0: ModernBERT has no token types} */
    @Override
    public int typeVocabSize() {
        return 0;
    }
}
