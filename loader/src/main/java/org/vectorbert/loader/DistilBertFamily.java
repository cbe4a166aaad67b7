package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.vectorbert.loader.Family.Rename;

/**
 * {@code model_type} {@code distilbert} (transformers' {@code modeling_distilbert.py}): BERT's post-LN
 * encoder under other names ({@code transformer.layer.N.attention.q_lin}, {@code sa_layer_norm},
 * {@code ffn.lin1}, {@code output_layer_norm}), without token types or a pooler, and with keys of its
 * own ({@code dim}, {@code n_layers}, {@code n_heads}, {@code hidden_dim}, {@code activation}; LayerNorm
 * eps fixed at 1e-12). Sinusoidal positions ({@code sinusoidal_pos_embds}) are computed into
 * {@code position_embeddings.weight} when the model is built, and saved there: they are read like
 * learned ones. The MLM head is {@code vocab_transform}, the activation, {@code vocab_layer_norm} and
 * {@code vocab_projector} (tied to the word embeddings).
 */
final class DistilBertFamily {
    private DistilBertFamily() {}

    static final Family FAMILY = new Family("DistilBERT", List.of("distilbert"), "distilbert", List.of(
            new Rename("encoder.layer", "transformer.layer"),
            new Rename("attention.self.query", "attention.q_lin"),
            new Rename("attention.self.key", "attention.k_lin"),
            new Rename("attention.self.value", "attention.v_lin"),
            new Rename("attention.output.dense", "attention.out_lin"),
            new Rename("attention.output.LayerNorm", "sa_layer_norm"),
            new Rename("intermediate.dense", "ffn.lin1"),
            new Rename("output.dense", "ffn.lin2"),
            new Rename("output.LayerNorm", "output_layer_norm"),
            new Rename("cls.predictions.transform.dense", "vocab_transform"),
            new Rename("cls.predictions.transform.LayerNorm", "vocab_layer_norm"),
            new Rename("cls.predictions.decoder", "vocab_projector"),
            new Rename("cls.predictions", "vocab_projector")), "transformer.layer",
            List.of(new Family.Dense("pre_classifier", "relu"), new Family.Dense("classifier", "none")), DistilBertFamily::config);

    static BertConfig config(JsonNode node, String source) {
        if (!node.isObject()) {
            throw new LoaderException(source + ": expected a JSON object");
        }
        java.util.List<String> architectures = new java.util.ArrayList<>();
        node.path("architectures").forEach(a -> architectures.add(a.asText()));
        int dim = BertConfig.integer(node, "dim", 768, source);
        String activation = BertConfig.text(node, "activation", "gelu", source);
        BertConfig c = new BertConfig(
                BertConfig.integer(node, "vocab_size", 30522, source), dim,
                BertConfig.integer(node, "n_layers", 6, source),
                BertConfig.integer(node, "n_heads", 12, source),
                BertConfig.integer(node, "hidden_dim", 4 * 768, source),
                activation, 1e-12,
                BertConfig.integer(node, "max_position_embeddings", 512, source),
                0,
                node.path("pad_token_id").isNull() ? 0 : BertConfig.integer(node, "pad_token_id", 0, source),
                "absolute", "distilbert", architectures, false, false);
        c.validate(source);
        return c;
    }
}
