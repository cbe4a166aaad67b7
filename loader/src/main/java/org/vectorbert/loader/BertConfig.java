package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.vectorbert.common.Json;

/**
 * What inference with a BERT-family encoder needs from a {@code config.json}, with Hugging Face's
 * defaults for missing fields; unknown fields are ignored. BERT's keys are read here; a {@link Family}
 * reads its own model type's keys into the same record, and sets the three switches the encoder
 * needs for it: the width of the embeddings ({@code embedding_size}, ELECTRA's), position ids that
 * skip padding (RoBERTa's) and the MLM head's activation.
 *
 * <p>Two fields are vectorbert's own, for encoders that normalise before each sub-layer:
 * {@code "pre_layer_norm": true} puts each layer's {@code attention.output.LayerNorm} before
 * self-attention and its {@code output.LayerNorm} before the feed-forward block, each sub-layer
 * wrapped in a residual; {@code "final_layer_norm": true} adds {@code bert.encoder.final_layer_norm}
 * after the last layer. Transformers ignores both.
 *
 * @param vocabSize             {@code vocab_size}: rows of the word embeddings
 * @param hiddenSize            {@code hidden_size}: the width of the hidden state
 * @param numHiddenLayers       {@code num_hidden_layers}
 * @param numAttentionHeads     {@code num_attention_heads}; divides hiddenSize
 * @param intermediateSize      {@code intermediate_size}: the width inside the feed-forward block
 * @param hiddenAct             {@code hidden_act}: one of {@link #ACTIVATIONS}
 * @param layerNormEps          {@code layer_norm_eps}
 * @param maxPositionEmbeddings {@code max_position_embeddings}: rows of the position embeddings
 * @param typeVocabSize         {@code type_vocab_size}: rows of the token type embeddings, 0 for none
 * @param padTokenId            {@code pad_token_id}
 * @param positionEmbeddingType {@code position_embedding_type}: "absolute" is the one the engine implements
 * @param modelType             {@code model_type}: "bert", "roberta", "electra", ...
 * @param architectures         {@code architectures}: the transformers classes the checkpoint was saved from
 * @param preLayerNorm          vectorbert's {@code pre_layer_norm}: LayerNorm before each sub-layer
 * @param finalLayerNorm        vectorbert's {@code final_layer_norm}: a LayerNorm after the last layer
 * @param embeddingSize         the width of the embeddings ({@code embedding_size}, ELECTRA's); else hiddenSize
 * @param positionsSkipPadding  whether position ids skip padding, as RoBERTa's do (see {@link #firstPosition})
 * @param mlmActivation         the MLM head's activation: {@code hidden_act} for BERT, a family's own otherwise
 * @param relativeAttentionBuckets buckets of the relative position bias added to every layer's attention scores (MPNet's
 *                              {@code relative_attention_num_buckets}), or 0 for none
 */
public record BertConfig(
        int vocabSize,
        int hiddenSize,
        int numHiddenLayers,
        int numAttentionHeads,
        int intermediateSize,
        String hiddenAct,
        double layerNormEps,
        int maxPositionEmbeddings,
        int typeVocabSize,
        int padTokenId,
        String positionEmbeddingType,
        String modelType,
        List<String> architectures,
        boolean preLayerNorm,
        boolean finalLayerNorm,
        int embeddingSize,
        boolean positionsSkipPadding,
        String mlmActivation,
        int relativeAttentionBuckets) implements ModelConfig {

    /** Activations the engine implements, by their Hugging Face names. */
    public static final List<String> ACTIVATIONS = List.of("gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "silu", "swish");

    /** Copies {@code architectures} (null for none). */
    public BertConfig {
        architectures = architectures == null ? List.of() : List.copyOf(architectures);
    }

    /**
     * BERT's configuration: embeddings as wide as the hidden state, positions 0, 1, 2, ..., and the
     * MLM head's activation {@code hidden_act}.
     *
     * @param vocabSize             {@code vocab_size}: rows of the word embeddings
     * @param hiddenSize            {@code hidden_size}: the width of the hidden state
     * @param numHiddenLayers       {@code num_hidden_layers}
     * @param numAttentionHeads     {@code num_attention_heads}; divides hiddenSize
     * @param intermediateSize      {@code intermediate_size}: the width inside the feed-forward block
     * @param hiddenAct             {@code hidden_act}: one of {@link #ACTIVATIONS}
     * @param layerNormEps          {@code layer_norm_eps}
     * @param maxPositionEmbeddings {@code max_position_embeddings}: rows of the position embeddings
     * @param typeVocabSize         {@code type_vocab_size}: rows of the token type embeddings, 0 for none
     * @param padTokenId            {@code pad_token_id}
     * @param positionEmbeddingType {@code position_embedding_type}: "absolute" is the one the engine implements
     * @param modelType             {@code model_type}: "bert", "roberta", "electra", ...
     * @param architectures         {@code architectures}: the transformers classes the checkpoint was saved from
     * @param preLayerNorm          vectorbert's {@code pre_layer_norm}: LayerNorm before each sub-layer
     * @param finalLayerNorm        vectorbert's {@code final_layer_norm}: a LayerNorm after the last layer
     */
    public BertConfig(int vocabSize, int hiddenSize, int numHiddenLayers, int numAttentionHeads, int intermediateSize,
                      String hiddenAct, double layerNormEps, int maxPositionEmbeddings, int typeVocabSize, int padTokenId,
                      String positionEmbeddingType, String modelType, List<String> architectures, boolean preLayerNorm,
                      boolean finalLayerNorm) {
        this(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct, layerNormEps,
                maxPositionEmbeddings, typeVocabSize, padTokenId, positionEmbeddingType, modelType, architectures, preLayerNorm,
                finalLayerNorm, hiddenSize, false, hiddenAct, 0);
    }

    /**
     * The same with a family's switches.
     *
     * @param embeddingSize        the width of the embeddings
     * @param positionsSkipPadding whether position ids skip padding
     * @param mlmActivation        the MLM head's activation
     * @return a new configuration
     */
    public BertConfig withFamilySwitches(int embeddingSize, boolean positionsSkipPadding, String mlmActivation) {
        return new BertConfig(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct,
                layerNormEps, maxPositionEmbeddings, typeVocabSize, padTokenId, positionEmbeddingType, modelType, architectures,
                preLayerNorm, finalLayerNorm, embeddingSize, positionsSkipPadding, mlmActivation, relativeAttentionBuckets);
    }

    /**
     * The same with a relative position bias on the attention scores (MPNet's), and the token types and padding id a
     * family without token types and with a fixed padding index has.
     *
     * @param buckets       relative_attention_num_buckets: rows of the bias table, 0 for none
     * @param typeVocabSize rows of the token type embeddings, 0 for none
     * @param padTokenId    the padding id position ids skip
     * @return a new configuration
     */
    public BertConfig withRelativeAttention(int buckets, int typeVocabSize, int padTokenId) {
        return new BertConfig(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct,
                layerNormEps, maxPositionEmbeddings, typeVocabSize, padTokenId, positionEmbeddingType, modelType, architectures,
                preLayerNorm, finalLayerNorm, embeddingSize, positionsSkipPadding, mlmActivation, buckets);
    }

    /** {@return whether the model has token type (segment) embeddings} DistilBERT has none. */
    @Override
    public boolean hasTokenTypes() {
        return typeVocabSize > 0;
    }

    /**
     * The position id of the first token: 0, or with positions that skip padding (RoBERTa's
     * {@code create_position_ids_from_input_ids}) {@code pad_token_id + 1}, padding itself taking
     * {@code pad_token_id}.
     *
     * @return the first position id
     */
    public int firstPosition() {
        return positionsSkipPadding ? padTokenId + 1 : 0;
    }

    /** {@return the longest sequence the position embeddings cover} Special tokens included (512 for RoBERTa's 514 rows). */
    @Override
    public int maxTokens() {
        return maxPositionEmbeddings - firstPosition();
    }

    /** {@return bert-base-uncased's configuration} Its SavedModel carries none. */
    public static BertConfig bertBaseUncased() {
        return new BertConfig(30522, 768, 12, 12, 3072, "gelu", 1e-12, 512, 2, 0, "absolute", "bert",
                List.of("BertForMaskedLM"), false, false);
    }

    /**
     * The same with other {@code architectures}.
     *
     * @param names transformers class names
     * @return a new configuration
     */
    public BertConfig withArchitectures(List<String> names) {
        return new BertConfig(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct,
                layerNormEps, maxPositionEmbeddings, typeVocabSize, padTokenId, positionEmbeddingType, modelType, names,
                preLayerNorm, finalLayerNorm, embeddingSize, positionsSkipPadding, mlmActivation, relativeAttentionBuckets);
    }

    /** {@return the width of one attention head} */
    @Override
    public int headSize() {
        return hiddenSize / numAttentionHeads;
    }

    /**
     * Reads and validates a config.json (or Google's bert_config.json, which uses the same names) as
     * its {@code model_type}'s family reads it.
     *
     * @param file the config.json
     * @return the configuration, validated
     * @throws LoaderException if the file cannot be read or holds a field BERT inference cannot work with
     */
    public static BertConfig load(Path file) {
        JsonNode node = Json.read(file, LoaderException::new);
        String source = file.getFileName().toString();
        return Family.of(node, source).config(node, source);
    }

    /**
     * Parses BERT's keys and validates.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration, validated
     * @throws LoaderException naming the first field BERT inference cannot work with
     */
    public static BertConfig parse(JsonNode node, String source) {
        BertConfig config = parse(node, source, bertBaseUncased().withArchitectures(List.of()));
        config.validate(source);
        return config;
    }

    /**
     * Parses BERT's keys, each missing one taken from {@code defaults} (a family's own defaults:
     * RoBERTa's pad_token_id is 1), without validating: the family sets its switches first.
     */
    static BertConfig parse(JsonNode node, String source, BertConfig defaults) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        int hidden = integer(node, "hidden_size", defaults.hiddenSize, source);
        String act = text(node, "hidden_act", defaults.hiddenAct, source);
        return new BertConfig(
                integer(node, "vocab_size", defaults.vocabSize, source),
                hidden,
                integer(node, "num_hidden_layers", defaults.numHiddenLayers, source),
                integer(node, "num_attention_heads", defaults.numAttentionHeads, source),
                integer(node, "intermediate_size", defaults.intermediateSize, source),
                act,
                number(node, "layer_norm_eps", defaults.layerNormEps, source),
                integer(node, "max_position_embeddings", defaults.maxPositionEmbeddings, source),
                integer(node, "type_vocab_size", defaults.typeVocabSize, source),
                node.path("pad_token_id").isNull() ? defaults.padTokenId : integer(node, "pad_token_id", defaults.padTokenId, source),
                text(node, "position_embedding_type", defaults.positionEmbeddingType, source),
                text(node, "model_type", defaults.modelType, source),
                architectures,
                bool(node, "pre_layer_norm", false, source),
                bool(node, "final_layer_norm", false, source),
                hidden, false, act, 0);
    }

    /**
     * Throws a {@link LoaderException} naming the first field that BERT inference cannot work with.
     *
     * @param source names the file in messages
     */
    public void validate(String source) {
        positive(source, "vocab_size", vocabSize);
        positive(source, "hidden_size", hiddenSize);
        positive(source, "num_hidden_layers", numHiddenLayers);
        positive(source, "num_attention_heads", numAttentionHeads);
        positive(source, "intermediate_size", intermediateSize);
        positive(source, "max_position_embeddings", maxPositionEmbeddings);
        positive(source, "embedding_size", embeddingSize);
        if (typeVocabSize < 0 || typeVocabSize == 0 && modelType.equals("bert")) {
            throw new LoaderException(source + ": type_vocab_size must be positive, was " + typeVocabSize);
        }
        if (hiddenSize % numAttentionHeads != 0) {
            throw new LoaderException(source + ": hidden_size (" + hiddenSize + ") must be divisible by num_attention_heads ("
                    + numAttentionHeads + ")");
        }
        if (!(layerNormEps > 0) || Double.isInfinite(layerNormEps)) {
            throw new LoaderException(source + ": layer_norm_eps must be a positive number, was " + layerNormEps);
        }
        if (!ACTIVATIONS.contains(hiddenAct)) {
            throw new LoaderException(source + ": hidden_act '" + hiddenAct + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS) + ")");
        }
        if (!ACTIVATIONS.contains(mlmActivation)) {
            throw new LoaderException(source + ": the MLM head's activation '" + mlmActivation + "' is not supported (supported: "
                    + String.join(", ", ACTIVATIONS) + ")");
        }
        if (maxTokens() <= 0) {
            throw new LoaderException(source + ": max_position_embeddings (" + maxPositionEmbeddings
                    + ") leaves no position after pad_token_id (" + padTokenId + "), where this model's positions start");
        }
        if (!positionEmbeddingType.equals("absolute")) {
            throw new LoaderException(source + ": position_embedding_type '" + positionEmbeddingType
                    + "' is not supported; vectorbert implements 'absolute' position embeddings");
        }
        if (padTokenId < 0 || padTokenId >= vocabSize) {
            throw new LoaderException(source + ": pad_token_id (" + padTokenId + ") must be in 0.." + (vocabSize - 1));
        }
        if (finalLayerNorm && !preLayerNorm) {
            throw new LoaderException(source + ": final_layer_norm needs pre_layer_norm");
        }
    }

    /** {@return this configuration as Hugging Face config.json fields} Plus vectorbert's pre-LN fields when set. */
    public ObjectNode toJson() {
        ObjectNode o = Json.object();
        var arch = o.putArray("architectures");
        architectures.forEach(arch::add);
        o.put("model_type", modelType);
        o.put("vocab_size", vocabSize);
        o.put("hidden_size", hiddenSize);
        o.put("num_hidden_layers", numHiddenLayers);
        o.put("num_attention_heads", numAttentionHeads);
        o.put("intermediate_size", intermediateSize);
        o.put("hidden_act", hiddenAct);
        o.put("hidden_dropout_prob", 0.1);
        o.put("attention_probs_dropout_prob", 0.1);
        o.put("max_position_embeddings", maxPositionEmbeddings);
        o.put("type_vocab_size", typeVocabSize);
        o.put("initializer_range", 0.02);
        o.put("layer_norm_eps", layerNormEps);
        o.put("pad_token_id", padTokenId);
        o.put("position_embedding_type", positionEmbeddingType);
        // ELECTRA's config reads a missing embedding_size as 128, not as the hidden size: always written for it.
        if (embeddingSize != hiddenSize || modelType.equals("electra")) {
            o.put("embedding_size", embeddingSize);
        }
        if (preLayerNorm) {
            o.put("pre_layer_norm", true);
            o.put("final_layer_norm", finalLayerNorm);
        }
        return o;
    }

    private static void positive(String source, String field, int value) {
        if (value <= 0) {
            throw new LoaderException(source + ": " + field + " must be positive, was " + value);
        }
    }

    static int integer(JsonNode node, String field, int fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null) {
            return fallback;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber()) {
            throw new LoaderException(source + ": " + field + " must be an integer, was " + v);
        }
        return v.intValue();
    }

    static double number(JsonNode node, String field, double fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null) {
            return fallback;
        }
        if (!v.isNumber()) {
            throw new LoaderException(source + ": " + field + " must be a number, was " + v);
        }
        return v.doubleValue();
    }

    static String text(JsonNode node, String field, String fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual()) {
            throw new LoaderException(source + ": " + field + " must be a string, was " + v);
        }
        return v.asText().toLowerCase(Locale.ROOT);
    }

    static boolean bool(JsonNode node, String field, boolean fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null) {
            return fallback;
        }
        if (!v.isBoolean()) {
            throw new LoaderException(source + ": " + field + " must be true or false, was " + v);
        }
        return v.booleanValue();
    }
}
