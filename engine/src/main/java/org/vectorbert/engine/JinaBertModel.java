package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vectorbert.loader.Family;
import org.vectorbert.loader.JinaBertConfig;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * JinaBERT v2 (jina-embeddings-v2-base-en, -small-en, -base-de/-es/-zh, jina-reranker-v1: {@code model_type: bert} with
 * {@code auto_map} to jinaai/jina-bert-implementation), built natively as that code's {@code JinaBertModel} is, on
 * {@link PostNormEncoder}: BERT's embeddings without positions, BERT's post-LN attention with ALiBi biases on the
 * scores, and a GLU feed-forward ({@code mlp.gated_layers}: the first half through feed_forward_type's activation, the
 * second linear; then {@code mlp.wo} and {@code mlp.layernorm}). Heads by the weights, not by {@code architectures} (the
 * hub's embedding models say JinaBertForMaskedLM): the pooler, the MLM head, a sequence classifier on the pooler.
 */
final class JinaBertModel {
    /**
     * The hub code it implements: jina-bert-implementation's, as the jina-embeddings-v2 repositories name it, and
     * jina-bert-v2-qk-post-norm's (jina-embeddings-v2-base-code), whose layers the weights' names tell apart.
     */
    static final List<String> HUB_CLASSES = List.of(
            "jinaai/jina-bert-implementation--modeling_bert.JinaBertModel",
            "jinaai/jina-bert-implementation--modeling_bert.JinaBertForMaskedLM",
            "jinaai/jina-bert-implementation--modeling_bert.JinaBertForSequenceClassification",
            "jinaai/jina-bert-v2-qk-post-norm--modeling_bert.JinaBertModel",
            "jinaai/jina-bert-v2-qk-post-norm--modeling_bert.JinaBertForMaskedLM");

    private JinaBertModel() {}

    /** Opens a JinaBERT model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, JinaBertConfig::parse, (files, c, root) -> {
            String prefix = prefix(files);
            Scope bert = prefix.isEmpty() ? root : root.child("bert");
            int h = c.hiddenSize();
            Tensor wordsTensor = bert.tensor("embeddings.word_embeddings.weight", c.vocabSize(), h);
            PackedMatrix words = bert.packed(wordsTensor, null, Precision.F32);
            float[] types = c.hasTokenTypes() ? bert.matrix("embeddings.token_type_embeddings.weight", c.typeVocabSize(), h) : null;
            PostNormLayer[] layers = new PostNormLayer[c.numHiddenLayers()];
            Parallel.forRange(layers.length, 1, (from, to) -> {
                for (int l = from; l < to; l++) {
                    Scope scope = bert.child("encoder.layer." + l);
                    layers[l] = scope.has("attention.self.layer_norm_q.weight") ? qkPostNormLayer(scope, c) : layer(scope, c);
                }
            });
            Map<HeadKind, Head> heads = new EnumMap<>(HeadKind.class);
            Set<HeadKind> kinds = headsIn(files);
            Labels labels = kinds.contains(HeadKind.SEQUENCE_CLASSIFIER) ? files.labels() : null;
            if (kinds.contains(HeadKind.POOLER)) {
                heads.put(HeadKind.POOLER, DenseHead.load(root, List.of(new Family.Dense(prefix + "pooler.dense", "tanh")), h, h,
                        "the pooler gives hidden_size"));
            }
            if (labels != null) {
                heads.put(HeadKind.SEQUENCE_CLASSIFIER, DenseHead.load(root, List.of(new Family.Dense(prefix + "pooler.dense", "tanh"),
                        new Family.Dense("classifier", "none")), h, labels.count(), "config.json's id2label names " + labels.count()));
            }
            if (kinds.contains(HeadKind.MASKED_LM)) {
                heads.put(HeadKind.MASKED_LM, masked(root.child("cls.predictions"), c, words, wordsTensor));
            }
            return new PostNormEncoder(new PostNormEncoder.Parts("JinaBERT", c, directory, precision, words, types,
                    LayerNorm.load(bert.child("embeddings.LayerNorm"), h, c.layerNormEps()), List.of(layers), null,
                    RelativePositionBias.alibi(c.numAttentionHeads(), c.maxTokens()), heads, labels));
        });
    }

    private static String prefix(TensorFiles files) {
        return files.find("bert.embeddings.word_embeddings.weight").isPresent() ? "bert." : "";
    }

    private static PostNormLayer layer(Scope scope, JinaBertConfig c) {
        int h = c.hiddenSize();
        int inner = c.intermediateSize();
        Scope self = scope.child("attention.self");
        Scope gated = scope.child("mlp.gated_layers");
        Tensor w = gated.tensor("weight", 2L * inner, h);
        GatedFeedForward mlp = new GatedFeedForward(gated.packed(ModernBertAttention.rows(w, 0, inner), null, gated.precision()),
                gated.packed(ModernBertAttention.rows(w, inner, inner), null, gated.precision()), scope.child("mlp.wo").linear(inner, h),
                c.feedForwardType().equals("geglu") ? Activation.GELU : Activation.RELU);
        return new PostNormLayer(self.child("query").linear(h, h), self.child("key").linear(h, h), self.child("value").linear(h, h),
                scope.child("attention.output.dense").linear(h, h), LayerNorm.load(scope.child("attention.output.LayerNorm"), h,
                c.layerNormEps()), mlp, LayerNorm.load(scope.child("mlp.layernorm"), h, c.layerNormEps()), c.numAttentionHeads(), c.headSize());
    }

    /**
     * jina-bert-v2-qk-post-norm's layer: LayerNorms over the whole query and key projections ({@code layer_norm_q},
     * {@code layer_norm_k}), {@code layer_norm_1} after the attention block's output and the layer's input are added, and
     * a GLU ({@code mlp.up_gated_layer}: the first half linear, the second through feed_forward_type's activation;
     * {@code mlp.down_layer}) with {@code layer_norm_2}.
     */
    private static PostNormLayer qkPostNormLayer(Scope scope, JinaBertConfig c) {
        int h = c.hiddenSize();
        int inner = c.intermediateSize();
        Scope self = scope.child("attention.self");
        Scope upGated = scope.child("mlp.up_gated_layer");
        Tensor w = upGated.tensor("weight", 2L * inner, h);
        GatedFeedForward mlp = new GatedFeedForward(upGated.packed(ModernBertAttention.rows(w, inner, inner), null, upGated.precision()),
                upGated.packed(ModernBertAttention.rows(w, 0, inner), null, upGated.precision()), scope.child("mlp.down_layer").linear(inner, h),
                c.feedForwardType().equals("geglu") ? Activation.GELU : Activation.RELU);
        double eps = c.layerNormEps();
        return new PostNormLayer(self.child("query").linear(h, h), self.child("key").linear(h, h), self.child("value").linear(h, h),
                scope.child("attention.output.dense").linear(h, h), LayerNorm.load(scope.child("attention.output.LayerNorm"), h, eps), mlp,
                LayerNorm.load(scope.child("layer_norm_2"), h, eps), c.numAttentionHeads(), c.headSize(),
                LayerNorm.load(self.child("layer_norm_q"), h, eps), LayerNorm.load(self.child("layer_norm_k"), h, eps),
                LayerNorm.load(scope.child("layer_norm_1"), h, eps));
    }

    /** BERT's MLM head: LayerNorm(hidden_act(transform.dense(h))), then the decoder tied to the word embeddings, with cls.predictions.bias. */
    private static PredictionHead masked(Scope scope, JinaBertConfig c, PackedMatrix words, Tensor wordsTensor) {
        int h = c.hiddenSize();
        boolean share = scope.precision() == Precision.F32;
        PackedMatrix decoder = share ? words.withBias(scope.vector("bias", c.vocabSize()))
                : scope.packed(wordsTensor, scope.tensor("bias", c.vocabSize()), scope.precision());
        Scope transform = scope.child("transform");
        return new PredictionHead(transform.child("dense").linear(h, h), Activation.of(c.hiddenAct()),
                LayerNorm.load(transform.child("LayerNorm"), h, c.layerNormEps()), decoder, share);
    }

    /** The heads a checkpoint has, by its weights. */
    static Set<HeadKind> headsIn(TensorFiles files) {
        String prefix = prefix(files);
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        if (files.find(prefix + "pooler.dense.weight").isPresent()) {
            found.add(HeadKind.POOLER);
        }
        if (files.find("classifier.weight").isPresent()) {
            found.add(HeadKind.SEQUENCE_CLASSIFIER);
        }
        if (files.find("cls.predictions.transform.dense.weight").isPresent()) {
            found.add(HeadKind.MASKED_LM);
        }
        return found;
    }

    /** What a JinaBERT model directory holds, without loading it ({@link Encoder#inspect}). */
    static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            JinaBertConfig c = JinaBertConfig.parse(files.configJson(), "config.json");
            String shape = String.format("hidden %d, %d heads, %s %d wide, vocab %d, %d positions, post-LN, ALiBi", c.hiddenSize(),
                    c.numAttentionHeads(), c.feedForwardType(), c.intermediateSize(), c.vocabSize(), c.maxPositionEmbeddings());
            String prefix = prefix(files);
            List<String> contradictions = new ArrayList<>();
            Inspection.checkEmbeddings(files, prefix + "embeddings.word_embeddings.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "encoder.layer.", c, contradictions);
            return new Inspection("JinaBERT", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(files), contradictions);
        }
    }
}
