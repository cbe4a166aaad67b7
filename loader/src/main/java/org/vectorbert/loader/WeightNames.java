package org.vectorbert.loader;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Names of BERT weights: TensorFlow to Hugging Face, and the spellings checkpoints in the wild use. */
public final class WeightNames {
    private WeightNames() {}

    public static final String WORD_EMBEDDINGS = "bert.embeddings.word_embeddings.weight";
    public static final String MLM_DECODER = "cls.predictions.decoder.weight";
    public static final String MLM_BIAS = "cls.predictions.bias";

    private static final Pattern LAYER = Pattern.compile("layer_(\\d+)");

    /** A TensorFlow variable's Hugging Face name, and whether its matrix must be transposed. */
    public record Mapped(String name, boolean transpose) {}

    /**
     * Maps a TensorFlow BERT variable ({@code module/bert/encoder/layer_0/attention/self/query/kernel},
     * {@code bert/...}, {@code cls/...}) to its Hugging Face name; null for variables inference does
     * not use (optimizer slots, step counters).
     */
    public static Mapped fromTensorFlow(String tfName) {
        String n = tfName.startsWith("module/") ? tfName.substring("module/".length()) : tfName;
        if (!(n.startsWith("bert/") || n.startsWith("cls/")) || n.endsWith("/adam_m") || n.endsWith("/adam_v")) {
            return null;
        }
        if (n.equals("cls/predictions/output_bias")) {
            return new Mapped(MLM_BIAS, false);
        }
        if (n.equals("cls/seq_relationship/output_weights")) {
            return new Mapped("cls.seq_relationship.weight", false);
        }
        if (n.equals("cls/seq_relationship/output_bias")) {
            return new Mapped("cls.seq_relationship.bias", false);
        }
        Matcher m = LAYER.matcher(n);
        n = m.replaceAll("layer.$1").replace('/', '.');
        boolean transpose = false;
        if (n.endsWith(".gamma")) {
            n = n.substring(0, n.length() - "gamma".length()) + "weight";
        } else if (n.endsWith(".beta")) {
            n = n.substring(0, n.length() - "beta".length()) + "bias";
        } else if (n.endsWith(".kernel")) {
            n = n.substring(0, n.length() - "kernel".length()) + "weight";
            transpose = true;
        } else if (n.endsWith("_embeddings")) {
            n = n + ".weight";
        }
        return new Mapped(n, transpose);
    }

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
