package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vectorbert.loader.DebertaV2Config;
import org.vectorbert.loader.Family;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * Loads DeBERTa-v2 and v3 ({@code model_type: deberta-v2}) as transformers' {@code DebertaV2Model} lays it out, under
 * {@code deberta.} (the task classes, and the published v3 checkpoints) or at the root: {@code embeddings}, the
 * relative embeddings {@code encoder.rel_embeddings} with {@code encoder.LayerNorm}, {@code encoder.layer.N} with
 * {@code attention.self.query_proj / key_proj / value_proj} (and {@code pos_key_proj / pos_query_proj} without
 * share_att_key), {@code encoder.conv}. Heads: the sequence classifier ({@code pooler.dense} through pooler_hidden_act,
 * then {@code classifier}), the token classifier, {@code qa_outputs}, and the MLM head ({@code lm_predictions.lm_head},
 * or the legacy {@code cls.predictions}). Weights the model does not run are read past: the position table a
 * position_biased_input false checkpoint still holds, {@code position_ids}, and v3's replaced-token-detection head
 * {@code mask_predictions}.
 */
final class DebertaModel {
    private DebertaModel() {}

    /** Opens a DeBERTa-v2 model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, DebertaV2Config::parse, (files, c, root) -> {
            String prefix = prefix(files);
            Scope base = prefix.isEmpty() ? root : root.child("deberta");
            int h = c.hiddenSize();
            int e = c.embeddingSize();
            Scope emb = base.child("embeddings");
            Tensor wordsTensor = emb.tensor("word_embeddings.weight", c.vocabSize(), e);
            PackedMatrix words = emb.packed(wordsTensor, null, Precision.F32);
            float[] positions = c.positionBiasedInput() ? emb.matrix("position_embeddings.weight", c.maxPositionEmbeddings(), e) : null;
            float[] types = c.hasTokenTypes() ? emb.matrix("token_type_embeddings.weight", c.typeVocabSize(), e) : null;
            PackedMatrix embedProj = e == h ? null : emb.packed(emb.tensor("embed_proj.weight", h, e), null, emb.precision());
            skip(files, root, prefix + "embeddings.position_ids");
            if (!c.positionBiasedInput()) {
                skip(files, root, prefix + "embeddings.position_embeddings.weight");
            }
            Scope encoder = base.child("encoder");
            float[] relative = c.relativeAttention() ? relativeEmbeddings(encoder, c) : null;
            DebertaAttention.RelativeIndex index = c.relativeAttention() ? DebertaAttention.RelativeIndex.of(c) : null;
            DebertaLayer[] layers = new DebertaLayer[c.numHiddenLayers()];
            Parallel.forRange(layers.length, 1, (from, to) -> {
                for (int l = from; l < to; l++) {
                    layers[l] = layer(encoder.child("layer." + l), c, relative, index);
                }
            });
            DebertaConv conv = c.convKernelSize() > 0 ? DebertaConv.load(encoder.child("conv"), h, c.convKernelSize(), c.convGroups(),
                    c.convAct(), c.layerNormEps()) : null;
            Map<HeadKind, Head> heads = new EnumMap<>(HeadKind.class);
            Set<HeadKind> kinds = headsIn(files, c);
            Labels labels = kinds.contains(HeadKind.SEQUENCE_CLASSIFIER) || kinds.contains(HeadKind.TOKEN_CLASSIFIER) ? files.labels() : null;
            String labelsSay = labels == null ? "" : "config.json's id2label names " + labels.count() + " labels";
            for (HeadKind kind : kinds) {
                heads.put(kind, switch (kind) {
                    case SEQUENCE_CLASSIFIER -> DenseHead.load(root, List.of(new Family.Dense("pooler.dense", c.poolerHiddenAct()),
                            new Family.Dense("classifier", "none")), h, labels.count(), labelsSay);
                    case TOKEN_CLASSIFIER -> DenseHead.load(root, List.of(new Family.Dense("classifier", "none")), h, labels.count(), labelsSay);
                    case QUESTION_ANSWERING -> DenseHead.load(root, List.of(new Family.Dense("qa_outputs", "none")), h, 2,
                            "question answering needs 2 (start and end)");
                    case MASKED_LM -> masked(root, files, c, words, wordsTensor);
                    case POOLER -> throw new IllegalStateException("DeBERTa has no pooler of its own");
                    case CAUSAL_LM -> throw new IllegalStateException("DeBERTa is not a causal LM");
                });
            }
            files.tensors().keySet().stream().filter(n -> n.startsWith("mask_predictions.")).forEach(n -> skip(files, root, n));
            if (!kinds.contains(HeadKind.MASKED_LM)) {
                files.tensors().keySet().stream().filter(n -> n.startsWith("lm_predictions.")).forEach(n -> skip(files, root, n));
            }
            return new DebertaEncoder(new DebertaEncoder.Parts(c, directory, precision, words, positions, types, embedProj,
                    LayerNorm.load(emb.child("LayerNorm"), h, c.layerNormEps()), List.of(layers), conv, heads, labels));
        });
    }

    /** The relative embeddings [2·span, hidden], through the encoder's LayerNorm when norm_rel_ebd says layer_norm. */
    private static float[] relativeEmbeddings(Scope encoder, DebertaV2Config c) {
        int rows = 2 * c.relativeSpan();
        float[] relative = encoder.matrix("rel_embeddings.weight", rows, c.hiddenSize());
        if (c.normRelEmbeddings()) {
            LayerNorm.load(encoder.child("LayerNorm"), c.hiddenSize(), c.layerNormEps()).apply(relative, rows, relative);
        }
        return relative;
    }

    /** Marks a tensor the model does not run as read, so the unused-weights check passes it. */
    private static void skip(TensorFiles files, Scope root, String name) {
        files.find(name).ifPresent(t -> root.tensor(name, t.shape()));
    }

    private static String prefix(TensorFiles files) {
        return files.find("deberta.embeddings.word_embeddings.weight").isPresent() ? "deberta." : "";
    }

    private static DebertaLayer layer(Scope scope, DebertaV2Config c, float[] relative, DebertaAttention.RelativeIndex index) {
        int h = c.hiddenSize();
        Scope self = scope.child("attention.self");
        PackedMatrix query = self.child("query_proj").linear(h, h);
        PackedMatrix key = self.child("key_proj").linear(h, h);
        PackedMatrix[] positionKeys = null;
        PackedMatrix[] positionQueries = null;
        double d = c.headSize();
        if (relative != null && c.contentToPosition()) {
            positionKeys = positions(c.shareAttKey() ? key : self.child("pos_key_proj").linear(h, h), relative, c, 1 / Math.sqrt(d));
        }
        if (relative != null && c.positionToContent()) {
            positionQueries = positions(c.shareAttKey() ? query : self.child("pos_query_proj").linear(h, h), relative, c,
                    1 / Math.sqrt(d * c.scaleFactor()));
        }
        return new DebertaLayer(new DebertaAttention(query, key, self.child("value_proj").linear(h, h), positionKeys, positionQueries,
                index, c.numAttentionHeads(), c.headSize(), (float) (1 / Math.sqrt(c.scaleFactor()))),
                new BertLayer.DenseAndNorm(scope.child("attention.output.dense").linear(h, h),
                        LayerNorm.load(scope.child("attention.output.LayerNorm"), h, c.layerNormEps())),
                scope.child("intermediate.dense").linear(h, c.intermediateSize()), Activation.of(c.hiddenAct()),
                new BertLayer.DenseAndNorm(scope.child("output.dense").linear(c.intermediateSize(), h),
                        LayerNorm.load(scope.child("output.LayerNorm"), h, c.layerNormEps())),
                h);
    }

    /** The projection of the relative embeddings, times {@code scale}, split by head into [rows, head size] matrices. */
    private static PackedMatrix[] positions(PackedMatrix projection, float[] relative, DebertaV2Config c, double scale) {
        int h = c.hiddenSize();
        int rows = relative.length / h;
        int d = c.headSize();
        float[] projected = new float[rows * h];
        projection.apply(relative, rows, projected);
        PackedMatrix[] heads = new PackedMatrix[c.numAttentionHeads()];
        for (int head = 0; head < heads.length; head++) {
            float[] m = new float[rows * d];
            for (int r = 0; r < rows; r++) {
                for (int k = 0; k < d; k++) {
                    m[r * d + k] = (float) (projected[r * h + head * d + k] * scale);
                }
            }
            heads[head] = PackedMatrix.pack(m, rows, d, null);
        }
        return heads;
    }

    /** The MLM head: dense, hidden_act, LayerNorm, then the word embeddings as the decoder with the head's own bias. */
    private static PredictionHead masked(Scope root, TensorFiles files, DebertaV2Config c, PackedMatrix words, Tensor wordsTensor) {
        int h = c.hiddenSize();
        boolean legacy = files.find("cls.predictions.transform.dense.weight").isPresent();
        Scope head = root.child(legacy ? "cls.predictions.transform" : "lm_predictions.lm_head");
        String biasName = legacy ? "cls.predictions.bias" : "lm_predictions.lm_head.bias";
        if (legacy) {
            skip(files, root, "cls.predictions.decoder.weight");
            skip(files, root, "cls.predictions.decoder.bias");
        }
        float[] bias = root.vector(biasName, c.vocabSize());
        boolean share = root.precision() == Precision.F32;
        PackedMatrix decoder = share ? words.withBias(bias) : root.packed(wordsTensor, root.tensor(biasName, c.vocabSize()), root.precision());
        int e = c.embeddingSize();     // the head narrows the hidden state to the word embeddings' width
        return new PredictionHead(head.child("dense").linear(h, e), Activation.of(c.hiddenAct()),
                LayerNorm.load(head.child("LayerNorm"), e, c.layerNormEps()), decoder, share);
    }

    /** The heads a checkpoint has, by its weights. */
    static Set<HeadKind> headsIn(TensorFiles files, DebertaV2Config c) {
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        if (files.find("pooler.dense.weight").isPresent()) {
            found.add(HeadKind.SEQUENCE_CLASSIFIER);
        } else if (files.find("classifier.weight").isPresent()) {
            found.add(HeadKind.TOKEN_CLASSIFIER);
        }
        if (files.find("qa_outputs.weight").isPresent()) {
            found.add(HeadKind.QUESTION_ANSWERING);
        }
        if (c.architectures().stream().anyMatch(a -> a.endsWith("ForMaskedLM")) && (files.find("lm_predictions.lm_head.dense.weight").isPresent()
                || files.find("cls.predictions.transform.dense.weight").isPresent())) {
            found.add(HeadKind.MASKED_LM);
        }
        return found;
    }

    /** What a DeBERTa-v2 model directory holds, without loading it ({@link Encoder#inspect}). */
    static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            DebertaV2Config c = DebertaV2Config.parse(files.configJson(), "config.json");
            List<String> terms = new ArrayList<>();
            if (c.contentToPosition()) {
                terms.add("c2p");
            }
            if (c.positionToContent()) {
                terms.add("p2c");
            }
            String shape = String.format("hidden %d, %d heads, %s %d wide, vocab %d, %d positions, %s, post-LN, %s%s",
                    c.hiddenSize(), c.numAttentionHeads(), c.hiddenAct(), c.intermediateSize(), c.vocabSize(), c.maxPositionEmbeddings(),
                    c.hasTokenTypes() ? c.typeVocabSize() + " token types" : "no token types",
                    c.relativeAttention() ? "disentangled attention (" + String.join("+", terms) + ", "
                            + (c.positionBuckets() > 0 ? c.positionBuckets() + " log buckets" : "span " + c.maxRelativePositions()) + ")"
                            : "no relative attention",
                    c.convKernelSize() > 0 ? ", a convolution of " + c.convKernelSize() + " after layer 0" : "");
            String prefix = prefix(files);
            List<String> contradictions = new ArrayList<>();
            Inspection.checkEmbeddings(files, prefix + "embeddings.word_embeddings.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "encoder.layer.", c, contradictions);
            return new Inspection("DeBERTa-v2", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(files, c), contradictions);
        }
    }
}
