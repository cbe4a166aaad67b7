package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vectorbert.loader.Qwen3Config;
import org.vectorbert.loader.TensorFiles;

/**
 * Qwen3 ({@code model_type: qwen3}: Qwen3-Embedding and Qwen3-Reranker), built as transformers' {@code Qwen3Model} is, on
 * {@link DecoderModel}: {@code embed_tokens}, pre-norm causal layers ({@code input_layernorm}, {@code self_attn} with
 * q_norm / k_norm and grouped-query heads, {@code post_attention_layernorm}, a SwiGLU {@code mlp}), the final {@code norm}.
 * A saved {@code Qwen3Model} (the embedders) names its weights without a prefix, {@code Qwen3ForCausalLM} (the reranker)
 * under {@code model.}, with {@code lm_head} or, tied, the word embeddings as its head.
 */
final class Qwen3Model {
    private Qwen3Model() {}

    /** Opens a Qwen3 model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, Qwen3Config::parse, (files, c, root) -> {
            Scope model = prefixed(files) ? root.child("model") : root;
            int h = c.hiddenSize();
            PackedMatrix words = model.packed(model.tensor("embed_tokens.weight", c.vocabSize(), h), null, Precision.F32);
            DecoderLayer[] layers = new DecoderLayer[c.numHiddenLayers()];
            Parallel.forRange(layers.length, 1, (from, to) -> {
                for (int l = from; l < to; l++) {
                    layers[l] = layer(model.child("layers." + l), c);
                }
            });
            Map<HeadKind, Head> heads = new EnumMap<>(HeadKind.class);
            if (headsIn(files, c).contains(HeadKind.CAUSAL_LM)) {
                boolean tied = c.tieWordEmbeddings() && !root.has("lm_head.weight");
                heads.put(HeadKind.CAUSAL_LM, new DecoderModel.LogitsHead(tied ? words : root.child("lm_head").linear(h, c.vocabSize(), false),
                        tied));
            }
            return new DecoderModel(new DecoderModel.Parts("Qwen3", c, directory, precision, words, 1f, List.of(layers),
                    RmsNorm.load(model.child("norm"), h, c.rmsNormEps()), new double[] {c.ropeTheta()}, heads));
        });
    }

    private static DecoderLayer layer(Scope scope, Qwen3Config c) {
        int h = c.hiddenSize();
        int d = c.headDim();
        int q = c.numAttentionHeads() * d;
        int kv = c.keyValueWidth();
        int inner = c.intermediateSize();
        boolean bias = c.attentionBias();
        double eps = c.rmsNormEps();
        Scope attn = scope.child("self_attn");
        Scope mlp = scope.child("mlp");
        return new DecoderLayer(RmsNorm.load(scope.child("input_layernorm"), h, eps), attn.child("q_proj").linear(h, q, bias),
                attn.child("k_proj").linear(h, kv, bias), attn.child("v_proj").linear(h, kv, bias), attn.child("o_proj").linear(q, h, bias),
                RmsNorm.load(attn.child("q_norm"), d, eps), RmsNorm.load(attn.child("k_norm"), d, eps), null,
                RmsNorm.load(scope.child("post_attention_layernorm"), h, eps),
                new GatedFeedForward(mlp.child("gate_proj").linear(h, inner, false), mlp.child("up_proj").linear(h, inner, false),
                        mlp.child("down_proj").linear(inner, h, false), Activation.of(c.hiddenAct())),
                null, h, c.numAttentionHeads(), c.numKeyValueHeads(), d, AttentionKernel.CAUSAL, 0);
    }

    private static boolean prefixed(TensorFiles files) {
        return files.find("model.embed_tokens.weight").isPresent();
    }

    /** The heads a checkpoint has: a causal LM's, by config.json's architectures or an {@code lm_head} in the weights. */
    static Set<HeadKind> headsIn(TensorFiles files, Qwen3Config c) {
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        if (c.isCausalLm() || files.find("lm_head.weight").isPresent()) {
            found.add(HeadKind.CAUSAL_LM);
        }
        return found;
    }

    /** What a Qwen3 model directory holds, without loading it ({@link Encoder#inspect}). */
    static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            Qwen3Config c = Qwen3Config.parse(files.configJson(), "config.json");
            String shape = String.format("hidden %d, %d query heads sharing %d key/value heads of %d, SwiGLU %d wide, vocab %d,"
                            + " %d positions, pre-norm (RMSNorm), causal, rotary positions (base %s)%s", c.hiddenSize(), c.numAttentionHeads(),
                    c.numKeyValueHeads(), c.headDim(), c.intermediateSize(), c.vocabSize(), c.maxPositionEmbeddings(),
                    NomicBertModel.number(c.ropeTheta()), c.tieWordEmbeddings() ? ", tied word embeddings" : "");
            String prefix = prefixed(files) ? "model." : "";
            List<String> contradictions = new ArrayList<>();
            Inspection.checkEmbeddings(files, prefix + "embed_tokens.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "layers.", c, contradictions);
            return new Inspection("Qwen3", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(files, c), contradictions);
        }
    }
}
