package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.Gemma3Config;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * Gemma 3's text model as EmbeddingGemma uses it ({@code model_type: gemma3_text}, {@code use_bidirectional_attention}),
 * built as transformers' {@code Gemma3TextModel} is, on {@link DecoderModel}: {@code embed_tokens} scaled by √hidden (in
 * the weights' dtype), layers with four RMSNorms each ((1 + weight), Gemma's), q_norm / k_norm, grouped-query heads over
 * every key or, in a sliding layer, the keys within sliding_window / 2 on either side, each kind of layer with its own
 * rotary base, a GeGLU (tanh GELU) {@code mlp}, the final {@code norm}. The scores' scale query_pre_attn_scalar^-½ is
 * folded into q_norm. Weights without a prefix (sentence-transformers' save) or under {@code model.}.
 */
final class Gemma3Model {
    private Gemma3Model() {}

    /** Opens a Gemma 3 model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, Gemma3Config::parse, (files, c, root) -> {
            Scope model = prefixed(files) ? root.child("model") : root;
            int h = c.hiddenSize();
            Tensor wordsTensor = model.tensor("embed_tokens.weight", c.vocabSize(), h);
            PackedMatrix words = model.packed(wordsTensor, null, Precision.F32);
            // transformers holds √hidden in float32 and casts it to the weights' dtype: 27.75, not 27.7128, for bf16 weights.
            float scale = (float) Math.sqrt(h);
            if (wordsTensor.dtype() == DType.BF16) {
                scale = Float.intBitsToFloat(PackedMatrix.bf16(scale) << 16);
            }
            DecoderLayer[] layers = new DecoderLayer[c.numHiddenLayers()];
            Parallel.forRange(layers.length, 1, (from, to) -> {
                for (int l = from; l < to; l++) {
                    layers[l] = layer(model.child("layers." + l), c, c.sliding().get(l));
                }
            });
            return new DecoderModel(new DecoderModel.Parts("Gemma 3", c, directory, precision, words, scale, List.of(layers),
                    norm(model.child("norm"), h, c, 1f), new double[] {c.ropeTheta(), c.ropeLocalBaseFreq()}, Map.of()));
        });
    }

    /** Gemma's RMSNorm: the stored weight is an offset from 1, here added (in float32, as transformers computes it) and scaled. */
    private static RmsNorm norm(Scope scope, int width, Gemma3Config c, float scale) {
        float[] w = scope.vector("weight", width);
        for (int i = 0; i < width; i++) {
            w[i] = (1f + w[i]) * scale;
        }
        return new RmsNorm(w, (float) c.rmsNormEps());
    }

    private static DecoderLayer layer(Scope scope, Gemma3Config c, boolean sliding) {
        int h = c.hiddenSize();
        int d = c.headDim();
        int q = c.numAttentionHeads() * d;
        int kv = c.numKeyValueHeads() * d;
        int inner = c.intermediateSize();
        boolean bias = c.attentionBias();
        Scope attn = scope.child("self_attn");
        Scope mlp = scope.child("mlp");
        // The kernel scales scores by 1/√d; Gemma's are scaled by 1/√query_pre_attn_scalar: the queries carry the difference.
        float queryScale = (float) Math.sqrt(d / c.queryPreAttnScalar());
        return new DecoderLayer(norm(scope.child("input_layernorm"), h, c, 1f), attn.child("q_proj").linear(h, q, bias),
                attn.child("k_proj").linear(h, kv, bias), attn.child("v_proj").linear(h, kv, bias), attn.child("o_proj").linear(q, h, bias),
                norm(attn.child("q_norm"), d, c, queryScale), norm(attn.child("k_norm"), d, c, 1f),
                norm(scope.child("post_attention_layernorm"), h, c, 1f), norm(scope.child("pre_feedforward_layernorm"), h, c, 1f),
                new GatedFeedForward(mlp.child("gate_proj").linear(h, inner, false), mlp.child("up_proj").linear(h, inner, false),
                        mlp.child("down_proj").linear(inner, h, false), Activation.of(c.hiddenActivation())),
                norm(scope.child("post_feedforward_layernorm"), h, c, 1f), h, c.numAttentionHeads(), c.numKeyValueHeads(), d,
                sliding ? c.halfWindow() : 0, sliding ? 1 : 0);
    }

    private static boolean prefixed(TensorFiles files) {
        return files.find("model.embed_tokens.weight").isPresent();
    }

    /** What a Gemma 3 model directory holds, without loading it ({@link Encoder#inspect}). */
    static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            Gemma3Config c = Gemma3Config.parse(files.configJson(), "config.json");
            long slidingLayers = c.sliding().stream().filter(s -> s).count();
            String shape = String.format("hidden %d, %d query heads sharing %d key/value heads of %d, GeGLU %d wide (%s), vocab %d, %d"
                            + " positions, pre- and post-norm (RMSNorm), bidirectional, rotary positions (base %s global, %s local), %d of %d"
                            + " layers a window of %d each side", c.hiddenSize(), c.numAttentionHeads(), c.numKeyValueHeads(), c.headDim(),
                    c.intermediateSize(), c.hiddenActivation(), c.vocabSize(), c.maxPositionEmbeddings(), NomicBertModel.number(c.ropeTheta()),
                    NomicBertModel.number(c.ropeLocalBaseFreq()), slidingLayers, c.numHiddenLayers(), c.halfWindow());
            String prefix = prefixed(files) ? "model." : "";
            List<String> contradictions = new ArrayList<>();
            Inspection.checkEmbeddings(files, prefix + "embed_tokens.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "layers.", c, contradictions);
            return new Inspection("Gemma 3", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), Set.of(), contradictions);
        }
    }
}
