package org.vectorbert.convert;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vectorbert.loader.WeightNames;

/** TensorFlow BERT variable names to Hugging Face's. */
final class TfNames {
    private TfNames() {}

    private static final Pattern LAYER = Pattern.compile("layer_(\\d+)");

    /** A TensorFlow variable's Hugging Face name, and whether its matrix must be transposed. */
    record Mapped(String name, boolean transpose) {}

    /**
     * Maps a TensorFlow BERT variable ({@code module/bert/encoder/layer_0/attention/self/query/kernel},
     * {@code bert/...}, {@code cls/...}) to its Hugging Face name; null for variables inference does
     * not use (optimizer slots, step counters).
     */
    static Mapped fromTensorFlow(String tfName) {
        String n = tfName.startsWith("module/") ? tfName.substring("module/".length()) : tfName;
        if (!(n.startsWith("bert/") || n.startsWith("cls/")) || n.endsWith("/adam_m") || n.endsWith("/adam_v")) {
            return null;
        }
        if (n.equals("cls/predictions/output_bias")) {
            return new Mapped(WeightNames.MLM_BIAS, false);
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
}
