package org.vectorbert.loader;

import java.util.List;

/** {@code model_type} {@code bert}: BERT's own names and keys, what the engine's blocks are named after. */
final class BertFamily {
    private BertFamily() {}

    static final Family FAMILY = new Family("BERT", List.of("bert"), "bert", List.of(), "encoder.layer",
            List.of(new Family.Dense("bert.pooler.dense", "tanh"), new Family.Dense("classifier", "none")), BertConfig::parse);
}
