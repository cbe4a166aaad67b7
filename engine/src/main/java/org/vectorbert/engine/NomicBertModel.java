package org.vectorbert.engine;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.NomicBertConfig;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * NomicBERT ({@code model_type: nomic_bert}: nomic-embed-text v1 and v1.5, nomic-bert-2048), built natively as the hub
 * code's {@code NomicBertModel} is, on {@link PostNormEncoder}: {@code embeddings} (word and token type) through
 * {@code emb_ln}, post-LN {@code encoder.layers.N} with a fused {@code attn.Wqkv}, rotary positions (dynamically NTK-scaled
 * past max_trained_positions, from the padded batch length, as the hub code does) and a SwiGLU ({@code mlp.fc12} the
 * gate, through SiLU; {@code fc11} linear). {@code NomicBertForPreTraining} adds {@code bert.} and the MLM head
 * {@code cls.predictions}. Interleaved or partial rotary positions are run by reordering each head's query and key
 * columns at load (scores are unchanged), so a variant model's queries and keys, as the explorer shows them, are in
 * that order.
 */
final class NomicBertModel {
    /** The hub code it implements: nomic-bert-2048's, as other repositories name it and as nomic-bert-2048 names its own. */
    static final List<String> HUB_CLASSES = List.of(
            "nomic-ai/nomic-bert-2048--modeling_hf_nomic_bert.NomicBertModel",
            "nomic-ai/nomic-bert-2048--modeling_hf_nomic_bert.NomicBertForPreTraining",
            "modeling_hf_nomic_bert.NomicBertModel", "modeling_hf_nomic_bert.NomicBertForPreTraining");

    private NomicBertModel() {}

    /** Opens a NomicBERT model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, NomicBertConfig::parse, (files, c, root) -> {
            Scope bert = files.find("bert.embeddings.word_embeddings.weight").isPresent() ? root.child("bert") : root;
            int h = c.hiddenSize();
            Tensor wordsTensor = bert.tensor("embeddings.word_embeddings.weight", c.vocabSize(), h);
            PackedMatrix words = bert.packed(wordsTensor, null, Precision.F32);
            float[] types = c.hasTokenTypes() ? bert.matrix("embeddings.token_type_embeddings.weight", c.typeVocabSize(), h) : null;
            PostNormLayer[] layers = new PostNormLayer[c.numHiddenLayers()];
            Parallel.forRange(layers.length, 1, (from, to) -> {
                for (int l = from; l < to; l++) {
                    layers[l] = layer(bert.child("encoder.layers." + l), c);
                }
            });
            Map<HeadKind, Head> heads = new EnumMap<>(HeadKind.class);
            if (headsIn(files, c).contains(HeadKind.MASKED_LM)) {
                heads.put(HeadKind.MASKED_LM, masked(root.child("cls.predictions"), c, words, wordsTensor));
            }
            return new PostNormEncoder(new PostNormEncoder.Parts("NomicBERT", c, directory, precision, words, types,
                    LayerNorm.load(bert.child("emb_ln"), h, c.layerNormEps()), List.of(layers), frequencies(c), null, heads, null));
        });
    }

    private static PostNormLayer layer(Scope scope, NomicBertConfig c) {
        int h = c.hiddenSize();
        int d = c.headSize();
        int inner = c.innerSize();
        Scope attn = scope.child("attn");
        Tensor w = attn.tensor("Wqkv.weight", 3L * h, h);
        Tensor b = c.qkvBias() ? attn.tensor("Wqkv.bias", 3L * h) : null;
        int[] order = rotaryOrder(d, c.rotaryDim(), c.rotaryInterleaved());
        PackedMatrix[] qkv = new PackedMatrix[3];
        for (int i = 0; i < 3; i++) {
            Tensor wi = ModernBertAttention.rows(w, (long) i * h, h);
            Tensor bi = b == null ? null : ModernBertAttention.rows(b, (long) i * h, h);
            if (order != null && i < 2) {
                wi = permuted(wi, order);
                bi = bi == null ? null : permuted(bi, order);
            }
            qkv[i] = attn.packed(wi, bi, attn.precision());
        }
        Scope mlp = scope.child("mlp");
        GatedFeedForward ff = new GatedFeedForward(mlp.child("fc12").linear(h, inner, c.fc1Bias()),
                mlp.child("fc11").linear(h, inner, c.fc1Bias()), mlp.child("fc2").linear(inner, h, c.fc2Bias()), Activation.SILU);
        return new PostNormLayer(qkv[0], qkv[1], qkv[2], attn.child("out_proj").linear(h, h, c.qkvBias()),
                LayerNorm.load(scope.child("norm1"), h, c.layerNormEps()), ff, LayerNorm.load(scope.child("norm2"), h, c.layerNormEps()),
                c.numAttentionHeads(), d);
    }

    /**
     * The order of a head's query and key columns under which NeoX-style rotation of the whole head (pairs (i, i + d/2))
     * is the model's rotation: the rotating pairs first ((2i, 2i+1) interleaved, else (i, i + r/2)), then the columns that
     * pass through, paired with each other under frequency 0. Null when that is the order already.
     */
    static int[] rotaryOrder(int d, int r, boolean interleaved) {
        if (r == d && !interleaved) {
            return null;
        }
        int half = d / 2;
        int[] order = new int[d];
        for (int i = 0; i < r / 2; i++) {
            order[i] = interleaved ? 2 * i : i;
            order[half + i] = interleaved ? 2 * i + 1 : r / 2 + i;
        }
        int rest = (d - r) / 2;
        for (int j = 0; j < rest; j++) {
            order[r / 2 + j] = r + j;
            order[half + r / 2 + j] = r + rest + j;
        }
        return order;
    }

    /** A projection's rows (or a bias) with each head's rows in {@code order}, float32. */
    private static Tensor permuted(Tensor t, int[] order) {
        float[] in = t.toFloatArray();
        int d = order.length;
        int width = t.shape().length == 2 ? (int) t.shape()[1] : 1;
        float[] out = new float[in.length];
        for (int row = 0; row < in.length / width; row++) {
            int head = row / d;
            System.arraycopy(in, (head * d + order[row % d]) * width, out, row * width, width);
        }
        return new Tensor(t.name() + "[rotary order]", DType.F32, t.shape().clone(), MemorySegment.ofArray(out));
    }

    /** The inverse frequencies of a padded batch of {@code length}: 1/base^(2i/r) for the r/2 rotating pairs, 0 for the rest. */
    private static IntFunction<float[]> frequencies(NomicBertConfig c) {
        int r = c.rotaryDim();
        return length -> {
            float base = (float) c.rotaryBase(length);
            float[] inv = new float[c.headSize() / 2];
            for (int i = 0; i < r / 2; i++) {
                inv[i] = 1f / (float) Math.pow(base, (float) (2 * i) / (float) r);
            }
            return inv;
        };
    }

    /**
     * {@code cls.predictions}: layer_norm(SiLU(transform.dense(h))), then the decoder tied to the word embeddings (a saved
     * copy of it, {@code decoder.weight}, is accepted and not read), biases only with mlp_fc1_bias.
     */
    private static PredictionHead masked(Scope scope, NomicBertConfig c, PackedMatrix words, Tensor wordsTensor) {
        int h = c.hiddenSize();
        if (scope.has("decoder.weight")) {
            scope.tensor("decoder.weight", c.vocabSize(), h);
        }
        float[] bias = c.fc1Bias() ? scope.vector("decoder.bias", c.vocabSize()) : null;
        boolean share = scope.precision() == Precision.F32;
        PackedMatrix decoder = share ? words.withBias(bias)
                : scope.packed(wordsTensor, c.fc1Bias() ? scope.tensor("decoder.bias", c.vocabSize()) : null, scope.precision());
        Scope transform = scope.child("transform");
        return new PredictionHead(transform.child("dense").linear(h, h, c.fc1Bias()), Activation.SILU,
                LayerNorm.load(transform.child("layer_norm"), h, c.layerNormEps()), decoder, share);
    }

    /** The heads a checkpoint has: the MLM head by config.json's architectures or by its weights. */
    static Set<HeadKind> headsIn(TensorFiles files, NomicBertConfig c) {
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        if (c.architectures().contains("NomicBertForPreTraining") || files.find("cls.predictions.transform.dense.weight").isPresent()) {
            found.add(HeadKind.MASKED_LM);
        }
        return found;
    }

    /** What a NomicBERT model directory holds, without loading it ({@link Encoder#inspect}). */
    static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            NomicBertConfig c = NomicBertConfig.parse(files.configJson(), "config.json");
            String shape = String.format("hidden %d, %d heads, SwiGLU %d wide, vocab %d, %d positions, post-LN, rotary positions"
                            + " (base %s, %d of %d columns%s%s)", c.hiddenSize(), c.numAttentionHeads(), c.innerSize(), c.vocabSize(),
                    c.positions(), number(c.rotaryBase()), c.rotaryDim(), c.headSize(), c.rotaryInterleaved() ? ", interleaved" : "",
                    c.scalingFactor() > 0 ? ", dynamic NTK ×" + number(c.scalingFactor()) + " past " + c.maxTrainedPositions() : "");
            String prefix = files.find("bert.embeddings.word_embeddings.weight").isPresent() ? "bert." : "";
            List<String> contradictions = new ArrayList<>();
            Inspection.checkEmbeddings(files, prefix + "embeddings.word_embeddings.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "encoder.layers.", c, contradictions);
            return new Inspection("NomicBERT", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(files, c), contradictions);
        }
    }

    /** A number as config.json writes it: 1000, not 1000.0. */
    static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

}
