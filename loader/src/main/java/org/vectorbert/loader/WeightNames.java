package org.vectorbert.loader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /** The encoder's weights (embeddings, every layer, and the final norm of a pre-LN encoder) with the shapes the config implies. */
    public static Map<String, long[]> encoder(BertConfig c) {
        long h = c.hiddenSize();
        long i = c.intermediateSize();
        Map<String, long[]> w = new LinkedHashMap<>();
        w.put(WORD_EMBEDDINGS, new long[] {c.vocabSize(), h});
        w.put("bert.embeddings.position_embeddings.weight", new long[] {c.maxPositionEmbeddings(), h});
        w.put("bert.embeddings.token_type_embeddings.weight", new long[] {c.typeVocabSize(), h});
        w.put("bert.embeddings.LayerNorm.weight", new long[] {h});
        w.put("bert.embeddings.LayerNorm.bias", new long[] {h});
        for (int l = 0; l < c.numHiddenLayers(); l++) {
            String p = "bert.encoder.layer." + l + ".";
            for (String m : List.of("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense")) {
                w.put(p + m + ".weight", new long[] {h, h});
                w.put(p + m + ".bias", new long[] {h});
            }
            w.put(p + "attention.output.LayerNorm.weight", new long[] {h});
            w.put(p + "attention.output.LayerNorm.bias", new long[] {h});
            w.put(p + "intermediate.dense.weight", new long[] {i, h});
            w.put(p + "intermediate.dense.bias", new long[] {i});
            w.put(p + "output.dense.weight", new long[] {h, i});
            w.put(p + "output.dense.bias", new long[] {h});
            w.put(p + "output.LayerNorm.weight", new long[] {h});
            w.put(p + "output.LayerNorm.bias", new long[] {h});
        }
        if (c.finalLayerNorm()) {
            w.put("bert.encoder.final_layer_norm.weight", new long[] {h});
            w.put("bert.encoder.final_layer_norm.bias", new long[] {h});
        }
        return w;
    }

    /** The pooler's weights. */
    public static Map<String, long[]> pooler(BertConfig c) {
        long h = c.hiddenSize();
        Map<String, long[]> w = new LinkedHashMap<>();
        w.put("bert.pooler.dense.weight", new long[] {h, h});
        w.put("bert.pooler.dense.bias", new long[] {h});
        return w;
    }

    /** The masked-language-model head's weights (the decoder matrix may be the tied word embeddings). */
    public static Map<String, long[]> mlmHead(BertConfig c) {
        long h = c.hiddenSize();
        Map<String, long[]> w = new LinkedHashMap<>();
        w.put("cls.predictions.transform.dense.weight", new long[] {h, h});
        w.put("cls.predictions.transform.dense.bias", new long[] {h});
        w.put("cls.predictions.transform.LayerNorm.weight", new long[] {h});
        w.put("cls.predictions.transform.LayerNorm.bias", new long[] {h});
        w.put(MLM_DECODER, new long[] {c.vocabSize(), h});
        w.put(MLM_BIAS, new long[] {c.vocabSize()});
        return w;
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
