package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.vectorbert.loader.Family.Rename;

/**
 * {@code model_type} {@code electra} (transformers' {@code modeling_electra.py}): BERT's encoder under
 * the {@code electra.} prefix, with embeddings {@code embedding_size} wide, projected to the hidden
 * size by {@code electra.embeddings_project} when the two differ (the small and generator models). The
 * discriminator is the encoder; a generator's MLM head ({@code generator_predictions}: dense to the
 * embedding size, GELU whatever {@code hidden_act} says, LayerNorm; {@code generator_lm_head} tied to
 * the word embeddings) serves fill-mask.
 */
final class ElectraFamily {
    private ElectraFamily() {}

    static final Family FAMILY = new Family("ELECTRA", List.of("electra"), "electra", List.of(
            new Rename("cls.predictions.transform", "generator_predictions"),
            new Rename("cls.predictions.decoder", "generator_lm_head"),
            new Rename("cls.predictions", "generator_lm_head")), "encoder.layer",
            List.of(new Family.Dense("classifier.dense", "gelu"), new Family.Dense("classifier.out_proj", "none")), ElectraFamily::config);

    /** ElectraConfig's defaults (the small discriminator's shape). */
    private static final BertConfig DEFAULTS = new BertConfig(30522, 256, 12, 4, 1024, "gelu", 1e-12, 512, 2, 0, "absolute",
            "electra", List.of(), false, false);

    static BertConfig config(JsonNode node, String source) {
        BertConfig c = BertConfig.parse(node, source, DEFAULTS);
        c = c.withFamilySwitches(BertConfig.integer(node, "embedding_size", 128, source), false, "gelu");
        c.validate(source);
        return c;
    }
}
