package org.vectorbert.loader;

import java.util.ArrayList;
import java.util.List;

/** Names of BERT weights: the spellings checkpoints in the wild use for what Hugging Face names them. */
public final class WeightNames {
    private WeightNames() {}

    public static final String WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight";
    public static final String MLM_DECODER = "cls.predictions.decoder.weight";
    public static final String MLM_BIAS = "cls.predictions.bias";

    /**
     * The names under which a checkpoint may hold the weight Hugging Face calls {@code canonical}:
     * as is, without the {@code bert.} prefix (sentence-transformers), and with the legacy
     * LayerNorm {@code gamma}/{@code beta}.
     */
    public static List<String> spellings(String canonical) {
        List<String> names = new ArrayList<>();
        List<String> bases = new ArrayList<>(List.of(canonical));
        if (canonical.startsWith("bert.")) {
            bases.add(canonical.substring("bert.".length()));
        }
        for (String base : bases) {
            names.add(base);
            if (base.contains("LayerNorm.")) {
                names.add(base.replaceAll("LayerNorm\\.weight$", "LayerNorm.gamma").replaceAll("LayerNorm\\.bias$", "LayerNorm.beta"));
            }
        }
        if (canonical.equals(MLM_BIAS)) {
            names.add("cls.predictions.decoder.bias");
        }
        return names;
    }
}
