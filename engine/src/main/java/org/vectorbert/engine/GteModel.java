package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.vectorbert.loader.Family;
import org.vectorbert.loader.GteConfig;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * GTE v1.5 ({@code model_type: new}: gte-base-en-v1.5, gte-large-en-v1.5, gte-multilingual-base and its reranker),
 * built natively as the hub code's {@code NewModel} is, on {@link PostNormEncoder}: {@code embeddings} (word, and token
 * type when type_vocab_size is not 0) through {@code embeddings.LayerNorm}, post-LN {@code encoder.layer.N} with a fused
 * {@code attention.qkv_proj}, rotary positions (NTK-scaled at every length when rope_scaling's factor is above 1, as the
 * hub code's cache is) and a gated feed-forward ({@code up_gate_proj}: the up half first, the gate second, through
 * hidden_act). The task classes put it under {@code new.}: {@code NewForSequenceClassification} with
 * {@code new.pooler.dense} (tanh) and {@code classifier}; {@code NewForTokenClassification} with {@code classifier}.
 */
final class GteModel {
    /** The hub code it implements: Alibaba-NLP/new-impl's, as the GTE repositories name it. */
    static final List<String> HUB_CLASSES = List.of(
            "Alibaba-NLP/new-impl--modeling.NewModel",
            "Alibaba-NLP/new-impl--modeling.NewForSequenceClassification",
            "Alibaba-NLP/new-impl--modeling.NewForTokenClassification",
            // snowflake-arctic-embed-m-v2.0 (model_type gte): new-impl's code renamed, the same tensor names
            "modeling_hf_alibaba_nlp_gte.GteModel",
            "Snowflake/snowflake-arctic-embed-m-v2.0--modeling_hf_alibaba_nlp_gte.GteModel");

    private GteModel() {}

    /** Opens a GTE model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, GteConfig::parse, (files, c, root) -> {
            String prefix = prefix(files);
            Scope base = prefix.isEmpty() ? root : root.child("new");
            int h = c.hiddenSize();
            PackedMatrix words = base.packed(base.tensor("embeddings.word_embeddings.weight", c.vocabSize(), h), null, Precision.F32);
            float[] types = c.hasTokenTypes() ? base.matrix("embeddings.token_type_embeddings.weight", c.typeVocabSize(), h) : null;
            PostNormLayer[] layers = new PostNormLayer[c.numHiddenLayers()];
            Parallel.forRange(layers.length, 1, (from, to) -> {
                for (int l = from; l < to; l++) {
                    layers[l] = layer(base.child("encoder.layer." + l), c);
                }
            });
            Map<HeadKind, Head> heads = new EnumMap<>(HeadKind.class);
            Set<HeadKind> kinds = headsIn(files, c);
            Labels labels = kinds.isEmpty() ? null : files.labels();
            if (kinds.contains(HeadKind.SEQUENCE_CLASSIFIER)) {
                heads.put(HeadKind.SEQUENCE_CLASSIFIER, DenseHead.load(root, List.of(new Family.Dense(prefix + "pooler.dense", "tanh"),
                        new Family.Dense("classifier", "none")), h, labels.count(), "config.json's id2label names " + labels.count()));
            } else if (kinds.contains(HeadKind.TOKEN_CLASSIFIER)) {
                heads.put(HeadKind.TOKEN_CLASSIFIER, DenseHead.load(root, List.of(new Family.Dense("classifier", "none")), h,
                        labels.count(), "config.json's id2label names " + labels.count()));
            } else if (files.find("classifier.weight").isPresent()) {     // gte-multilingual-base's untrained classifier
                root.tensor("classifier.weight", files.find("classifier.weight").get().shape());
                root.tensor("classifier.bias", files.find("classifier.bias").map(Tensor::shape).orElse(new long[] {1}));
            }
            return new PostNormEncoder(new PostNormEncoder.Parts("GTE", c, directory, precision, words, types,
                    LayerNorm.load(base.child("embeddings.LayerNorm"), h, c.layerNormEps()), List.of(layers), frequencies(c), null, heads,
                    labels));
        });
    }

    private static String prefix(TensorFiles files) {
        return files.find("new.embeddings.word_embeddings.weight").isPresent() ? "new." : "";
    }

    private static PostNormLayer layer(Scope scope, GteConfig c) {
        int h = c.hiddenSize();
        int inner = c.intermediateSize();
        Scope attn = scope.child("attention");
        Scope qkvScope = attn.child("qkv_proj");
        Tensor w = qkvScope.tensor("weight", 3L * h, h);
        Tensor b = qkvScope.tensor("bias", 3L * h);
        PackedMatrix[] qkv = new PackedMatrix[3];
        for (int i = 0; i < 3; i++) {
            qkv[i] = qkvScope.packed(ModernBertAttention.rows(w, (long) i * h, h), ModernBertAttention.rows(b, (long) i * h, h),
                    qkvScope.precision());
        }
        Scope upGate = scope.child("mlp.up_gate_proj");
        Tensor ug = upGate.tensor("weight", 2L * inner, h);
        GatedFeedForward mlp = new GatedFeedForward(upGate.packed(ModernBertAttention.rows(ug, inner, inner), null, upGate.precision()),
                upGate.packed(ModernBertAttention.rows(ug, 0, inner), null, upGate.precision()),
                scope.child("mlp.down_proj").linear(inner, h), Activation.of(c.hiddenAct()));
        return new PostNormLayer(qkv[0], qkv[1], qkv[2], attn.child("o_proj").linear(h, h),
                LayerNorm.load(scope.child("attn_ln"), h, c.layerNormEps()), mlp, LayerNorm.load(scope.child("mlp_ln"), h, c.layerNormEps()),
                c.numAttentionHeads(), c.headSize());
    }

    /**
     * The inverse frequencies of a padded batch of {@code length}: 1/θ^(2i/d), or NTK-scaled (θ·F)^(−2i/d) / F^(2/d),
     * in float32 as the hub code computes them.
     */
    private static IntFunction<float[]> frequencies(GteConfig c) {
        int d = c.headSize();
        return length -> {
            boolean scaled = c.ntkScaled(length);
            float base = (float) (scaled ? c.ropeTheta() * c.ntkFactor() : c.ropeTheta());
            float divisor = (float) Math.pow(c.ntkFactor(), 2.0 / d);
            float[] inv = new float[d / 2];
            for (int i = 0; i < inv.length; i++) {
                inv[i] = 1f / (float) Math.pow(base, (float) (2 * i) / (float) d);
                if (scaled) {
                    inv[i] = inv[i] / divisor;
                }
            }
            return inv;
        };
    }

    /**
     * The heads a checkpoint has, by config.json's architectures. A token classifier without id2label (gte-multilingual-base
     * ships one, untrained, of one logit) is not a head: that checkpoint is an embedding model.
     */
    static Set<HeadKind> headsIn(TensorFiles files, GteConfig c) {
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        if (c.architectures().contains("NewForSequenceClassification")) {
            found.add(HeadKind.SEQUENCE_CLASSIFIER);
        } else if (c.architectures().contains("NewForTokenClassification") && files.configJson().path("id2label").isObject()) {
            found.add(HeadKind.TOKEN_CLASSIFIER);
        }
        return found;
    }

    /** What a GTE model directory holds, without loading it ({@link Encoder#inspect}). */
    static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            GteConfig c = GteConfig.parse(files.configJson(), "config.json");
            String shape = String.format("hidden %d, %d heads, gated %s %d wide, vocab %d, %d positions, %s, post-LN, rotary positions"
                            + " (base %s%s)", c.hiddenSize(), c.numAttentionHeads(), c.hiddenAct(), c.intermediateSize(), c.vocabSize(),
                    c.maxPositionEmbeddings(), c.hasTokenTypes() ? c.typeVocabSize() + " token types" : "no token types",
                    NomicBertModel.number(c.ropeTheta()), c.ntkFactor() > 0 ? ", NTK ×" + NomicBertModel.number(c.ntkFactor()) : "");
            String prefix = prefix(files);
            List<String> contradictions = new ArrayList<>();
            Inspection.checkEmbeddings(files, prefix + "embeddings.word_embeddings.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "encoder.layer.", c, contradictions);
            return new Inspection("GTE", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(files, c), contradictions);
        }
    }
}
