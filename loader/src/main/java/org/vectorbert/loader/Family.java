package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.regex.Pattern;

/**
 * A BERT-family architecture, chosen by {@code config.json}'s {@code model_type}: how its config keys
 * become a {@link BertConfig}, and where its checkpoints keep each weight. The engine's blocks ask for
 * weights by BERT's Hugging Face names ({@code bert.encoder.layer.3.attention.self.query.weight},
 * {@code cls.predictions.transform.dense.weight}); a family renames those into its own
 * ({@code distilbert.transformer.layer.3.attention.q_lin.weight}, {@code vocab_transform.weight}), as
 * text-embeddings-inference loads RoBERTa with BERT's blocks. The prefix ({@code bert.},
 * {@code roberta.}, ...) is looked for with and without, since a checkpoint saved from the bare model
 * (sentence-transformers) has none.
 *
 * @param name       the family, for messages
 * @param modelTypes the {@code model_type} values it reads
 * @param prefix     the prefix its task classes give the encoder's weights ({@code roberta}), without the dot
 * @param renames    BERT's dotted name segments and this family's, applied in order, each at most once
 * @param layers     the encoder's layer list under the prefix ({@code encoder.layer})
 * @param classifier its {@code *ForSequenceClassification} head on the first token, layer by layer: BERT's
 *                   pooler then {@code classifier}; RoBERTa's {@code classifier.dense}, tanh, {@code classifier.out_proj}; ...
 * @param config     reads config.json's keys (the node, the file's name for messages) into a validated config
 */
public record Family(String name, List<String> modelTypes, String prefix, List<Rename> renames, String layers,
                     List<Dense> classifier, BiFunction<JsonNode, String, BertConfig> config) {
    /**
     * BERT's dotted segments {@code from} are this family's {@code to}.
     *
     * @param from BERT's segments ({@code attention.self.query})
     * @param to   this family's ({@code attention.q_lin})
     */
    public record Rename(String from, String to) {}

    /**
     * One linear layer of a head, by its name in the checkpoint (before renaming: {@code bert.pooler.dense}
     * has the family's prefix put on it and taken off as any name does), and the activation after it
     * ("tanh", "relu", "gelu", or "none").
     *
     * @param name       the layer's name in the checkpoint, before renaming
     * @param activation "tanh", "relu", "gelu", or "none"
     */
    public record Dense(String name, String activation) {}

    /** Every family vectorbert loads. */
    public static final List<Family> ALL = List.of(BertFamily.FAMILY, DistilBertFamily.FAMILY, RobertaFamily.FAMILY,
            ElectraFamily.FAMILY, MpnetFamily.FAMILY);

    /** Copies the lists. */
    public Family {
        modelTypes = List.copyOf(modelTypes);
        renames = List.copyOf(renames);
        classifier = List.copyOf(classifier);
    }

    /**
     * The family of config.json's {@code model_type} (BERT's when it has none, as Google's bert_config.json).
     *
     * @param config config.json's root
     * @param source names the file in messages
     * @return the family
     * @throws LoaderException if the model type is one vectorbert does not load
     */
    public static Family of(JsonNode config, String source) {
        if (!config.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        String type = BertConfig.text(config, "model_type", "bert", source);
        for (Family f : ALL) {
            if (f.modelTypes.contains(type)) {
                return f;
            }
        }
        throw new LoaderException(source + ": model_type '" + type + "' is not supported (supported: "
                + String.join(", ", ALL.stream().flatMap(f -> f.modelTypes.stream()).toList()) + ")");
    }

    /**
     * Reads and validates config.json's keys as this family names them.
     *
     * @param node   config.json's root
     * @param source names the file in messages
     * @return the configuration, validated
     */
    public BertConfig config(JsonNode node, String source) {
        return config.apply(node, source);
    }

    /**
     * The names under which this family's checkpoints may hold the weight BERT's Hugging Face names
     * {@code canonical}: renamed, with the prefix and without, and with the legacy LayerNorm
     * {@code gamma}/{@code beta}.
     *
     * @param canonical BERT's Hugging Face name of a weight
     * @return the names to look for
     */
    public List<String> spellings(String canonical) {
        String renamed = rename(canonical);
        List<String> bases = new ArrayList<>();
        if (renamed.startsWith(prefix + ".")) {
            bases.add(renamed);
            bases.add(renamed.substring(prefix.length() + 1));
        } else {
            bases.add(renamed);
        }
        if (canonical.equals(WeightNames.MLM_BIAS)) {        // the output bias, also saved as the decoder's
            bases.add(rename("cls.predictions.decoder.bias"));
        }
        List<String> names = new ArrayList<>();
        for (String base : bases.stream().distinct().toList()) {
            names.add(base);
            if (base.contains("LayerNorm.")) {
                names.add(base.replaceAll("LayerNorm\\.weight$", "LayerNorm.gamma").replaceAll("LayerNorm\\.bias$", "LayerNorm.beta"));
            }
        }
        return names;
    }

    /** {@code canonical} (a BERT name) in this family's names, with the prefix. */
    String rename(String canonical) {
        String name = "." + canonical + ".";
        if (name.startsWith(".bert.")) {
            name = "." + prefix + name.substring(".bert".length());
        }
        for (Rename r : renames) {
            name = name.replace("." + r.from + ".", "." + r.to + ".");
        }
        return name.substring(1, name.length() - 1);
    }

    /**
     * Why a checkpoint's names are ambiguous, or null: its encoder's weights both with the prefix and
     * without ({@code roberta.embeddings...} and {@code embeddings...}), so which is the encoder is a guess.
     */
    String ambiguousPrefix(java.util.Collection<String> names) {
        String word = rename("bert.embeddings.word_embeddings.weight");
        String bare = word.substring(prefix.length() + 1);
        if (names.contains(word) && names.contains(bare)) {
            return "the weights hold the encoder twice, with the '" + prefix + ".' prefix and without (" + word + " and " + bare
                    + "): keep one";
        }
        return null;
    }

    /** Matches a checkpoint name of one encoder layer, group 1 its number (with or without the prefix). */
    Pattern layerPattern() {
        return Pattern.compile("(?:" + Pattern.quote(prefix + ".") + ")?" + Pattern.quote(layers + ".") + "(\\d{1,6})\\.");
    }
}
