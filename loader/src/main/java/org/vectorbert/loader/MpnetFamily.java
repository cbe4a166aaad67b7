package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.vectorbert.loader.Family.Rename;

/**
 * {@code model_type} {@code mpnet} (transformers' {@code modeling_mpnet.py}): BERT's post-LN layer under other names
 * ({@code attention.attn.q/k/v/o}, {@code attention.LayerNorm}), RoBERTa's positions and heads, no token types, and a
 * relative position bias: {@code encoder.relative_attention_bias}, one table of T5's bidirectional buckets shared by
 * every layer and added to the scaled scores. Positions skip padding index 1 whatever {@code pad_token_id} says
 * ({@code MPNetEmbeddings} fixes {@code padding_idx = 1}); the MLM head applies GELU whatever {@code hidden_act} says.
 */
final class MpnetFamily {
    private MpnetFamily() {}

    static final Family FAMILY = new Family("MPNet", List.of("mpnet"), "mpnet", List.of(
            new Rename("attention.self.query", "attention.attn.q"),
            new Rename("attention.self.key", "attention.attn.k"),
            new Rename("attention.self.value", "attention.attn.v"),
            new Rename("attention.output.dense", "attention.attn.o"),
            new Rename("attention.output.LayerNorm", "attention.LayerNorm"),
            new Rename("cls.predictions.transform.dense", "lm_head.dense"),
            new Rename("cls.predictions.transform.LayerNorm", "lm_head.layer_norm"),
            new Rename("cls.predictions.decoder", "lm_head.decoder"),
            new Rename("cls.predictions", "lm_head")), "encoder.layer",
            List.of(new Family.Dense("classifier.dense", "tanh"), new Family.Dense("classifier.out_proj", "none")), MpnetFamily::config);

    /** MPNetConfig's defaults: BERT's sizes with MPNet's vocabulary, positions, padding and no token types. */
    private static final BertConfig DEFAULTS = new BertConfig(30527, 768, 12, 12, 3072, "gelu", 1e-12, 514, 0, 1, "absolute",
            "mpnet", List.of(), false, false);

    static BertConfig config(JsonNode node, String source) {
        BertConfig c = BertConfig.parse(node, source, DEFAULTS);
        int buckets = BertConfig.integer(node, "relative_attention_num_buckets", 32, source);
        // compute_position_bias always makes 32 buckets; the key only sizes the table, so a smaller one would be indexed past.
        if (buckets < 32) {
            throw new LoaderException(source + ": relative_attention_num_buckets must be at least 32 (MPNet's buckets), was " + buckets);
        }
        c = c.withFamilySwitches(c.hiddenSize(), true, "gelu").withRelativeAttention(buckets, 0, 1);
        c.validate(source);
        return c;
    }
}
