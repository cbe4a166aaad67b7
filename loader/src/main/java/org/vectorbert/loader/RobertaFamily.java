package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.vectorbert.loader.Family.Rename;

/**
 * {@code model_type} {@code roberta}, {@code xlm-roberta} and {@code camembert} (transformers'
 * {@code modeling_roberta.py}; XLM-R and CamemBERT are the same model under the same {@code roberta.}
 * prefix): BERT's encoder and keys, with two differences. Position ids start at
 * {@code pad_token_id + 1} and skip padding ({@code create_position_ids_from_input_ids}), which is why
 * {@code max_position_embeddings} is 514 for 512 tokens; and the MLM head ({@code lm_head}: dense,
 * GELU, {@code layer_norm}, decoder) applies GELU whatever {@code hidden_act} says.
 */
final class RobertaFamily {
    private RobertaFamily() {}

    static final Family FAMILY = new Family("RoBERTa", List.of("roberta", "xlm-roberta", "camembert"), "roberta", List.of(
            new Rename("cls.predictions.transform.dense", "lm_head.dense"),
            new Rename("cls.predictions.transform.LayerNorm", "lm_head.layer_norm"),
            new Rename("cls.predictions.decoder", "lm_head.decoder"),
            new Rename("cls.predictions", "lm_head")), "encoder.layer",
            List.of(new Family.Dense("classifier.dense", "tanh"), new Family.Dense("classifier.out_proj", "none")), RobertaFamily::config);

    /** RobertaConfig's defaults where they differ from BERT's: the vocabulary and the padding id. */
    private static final BertConfig DEFAULTS = new BertConfig(50265, 768, 12, 12, 3072, "gelu", 1e-12, 512, 2, 1, "absolute",
            "roberta", List.of(), false, false);

    static BertConfig config(JsonNode node, String source) {
        BertConfig c = BertConfig.parse(node, source, DEFAULTS);
        c = c.withFamilySwitches(c.hiddenSize(), true, "gelu");
        c.validate(source);
        return c;
    }
}
