package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.vectorbert.common.Json;

/**
 * What BERT inference needs from a {@code config.json}, with Hugging Face's defaults for missing
 * fields; unknown fields are ignored.
 *
 * <p>Two fields are vectorbert's own, for encoders that normalise before each sub-layer:
 * {@code "pre_layer_norm": true} puts each layer's {@code attention.output.LayerNorm} before
 * self-attention and its {@code output.LayerNorm} before the feed-forward block, each sub-layer
 * wrapped in a residual; {@code "final_layer_norm": true} adds {@code bert.encoder.final_layer_norm}
 * after the last layer. Transformers ignores both.
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
        boolean finalLayerNorm) {

    /** Activations the engine implements, by their Hugging Face names. */
    public static final List<String> ACTIVATIONS = List.of("gelu", "gelu_new", "gelu_pytorch_tanh", "relu");


    public BertConfig {
        architectures = architectures == null ? List.of() : List.copyOf(architectures);
    }

    /** bert-base-uncased's configuration (its SavedModel carries none). */
    public static BertConfig bertBaseUncased() {
        return new BertConfig(30522, 768, 12, 12, 3072, "gelu", 1e-12, 512, 2, 0, "absolute", "bert",
                List.of("BertForMaskedLM"), false, false);
    }

    public BertConfig withArchitectures(List<String> names) {
        return new BertConfig(vocabSize, hiddenSize, numHiddenLayers, numAttentionHeads, intermediateSize, hiddenAct,
                layerNormEps, maxPositionEmbeddings, typeVocabSize, padTokenId, positionEmbeddingType, modelType, names,
                preLayerNorm, finalLayerNorm);
    }

    public int headSize() {
        return hiddenSize / numAttentionHeads;
    }

    /** Reads and validates a config.json (or Google's bert_config.json, which uses the same names). */
    public static BertConfig load(Path file) {
        return parse(Json.read(file, LoaderException::new), file.getFileName().toString());
    }

    /** Parses and validates; {@code source} names the file in messages. */
    public static BertConfig parse(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        List<String> architectures = new ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        BertConfig config = new BertConfig(
                integer(node, "vocab_size", 30522, source),
                integer(node, "hidden_size", 768, source),
                integer(node, "num_hidden_layers", 12, source),
                integer(node, "num_attention_heads", 12, source),
                integer(node, "intermediate_size", 3072, source),
                text(node, "hidden_act", "gelu", source),
                number(node, "layer_norm_eps", 1e-12, source),
                integer(node, "max_position_embeddings", 512, source),
                integer(node, "type_vocab_size", 2, source),
                node.path("pad_token_id").isNull() ? 0 : integer(node, "pad_token_id", 0, source),
                text(node, "position_embedding_type", "absolute", source),
                text(node, "model_type", "bert", source),
                architectures,
                bool(node, "pre_layer_norm", false, source),
                bool(node, "final_layer_norm", false, source));
        config.validate(source);
        return config;
    }

    /** Throws a {@link LoaderException} naming the first field that BERT inference cannot work with. */
    public void validate(String source) {
        positive(source, "vocab_size", vocabSize);
        positive(source, "hidden_size", hiddenSize);
        positive(source, "num_hidden_layers", numHiddenLayers);
        positive(source, "num_attention_heads", numAttentionHeads);
        positive(source, "intermediate_size", intermediateSize);
        positive(source, "max_position_embeddings", maxPositionEmbeddings);
        positive(source, "type_vocab_size", typeVocabSize);
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

    /** This configuration as Hugging Face config.json fields (plus vectorbert's pre-LN fields when set). */
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

    private static int integer(JsonNode node, String field, int fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null) {
            return fallback;
        }
        if (!v.canConvertToInt() || !v.isIntegralNumber()) {
            throw new LoaderException(source + ": " + field + " must be an integer, was " + v);
        }
        return v.intValue();
    }

    private static double number(JsonNode node, String field, double fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null) {
            return fallback;
        }
        if (!v.isNumber()) {
            throw new LoaderException(source + ": " + field + " must be a number, was " + v);
        }
        return v.doubleValue();
    }

    private static String text(JsonNode node, String field, String fallback, String source) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return fallback;
        }
        if (!v.isTextual()) {
            throw new LoaderException(source + ": " + field + " must be a string, was " + v);
        }
        return v.asText().toLowerCase(Locale.ROOT);
    }

    private static boolean bool(JsonNode node, String field, boolean fallback, String source) {
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
