package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.WeightNames;

/**
 * A BERT encoder with its optional heads. Post-LN (BERT) or pre-LN layers, as the config declares.
 * The weights are copied once out of the validated, memory-mapped checkpoint into float32 arrays
 * (the kernels run about twice as fast on arrays as on mapped segments), matrices re-laid in
 * panels for the broadcast-FMA kernel ({@link PackedMatrix}), and the file is unmapped, so the
 * weights are resident once. Thread-safe: a forward pass keeps its working buffers to itself.
 */
public final class BertModel implements AutoCloseable {
    /** One encoder layer's weights, named as Hugging Face names them. */
    record Layer(PackedMatrix query, PackedMatrix key, PackedMatrix value, PackedMatrix attentionOut,
                 float[] attentionNorm, float[] attentionNormBias, PackedMatrix intermediate, PackedMatrix output,
                 float[] outputNorm, float[] outputNormBias) {}

    /** The masked-language-model head: transform (dense, activation, LayerNorm), then the decoder. */
    record MlmHead(PackedMatrix transform, float[] norm, float[] normBias, float[] decoder, float[] decoderBias,
                   PackedMatrix packedDecoder) {}

    private final Path directory;
    private final BertConfig config;
    private final Precision precision;
    /** Why fill-mask cannot work with this model, or null when the MLM head is complete. */
    private final String mlmHeadProblem;
    private final Activation activation;
    private final float[] wordEmbeddings;
    private final float[] positionEmbeddings;
    private final float[] typeEmbeddings;
    private final float[] embeddingNorm;
    private final float[] embeddingNormBias;
    private final List<Layer> layers;
    private final float[] finalNorm;
    private final float[] finalNormBias;
    private final PackedMatrix pooler;
    private final MlmHead mlm;
    /** One pass's buffers kept for the next (a second concurrent pass makes its own). */
    private final AtomicReference<Workspace> spare = new AtomicReference<>();

    private BertModel(BertCheckpoint checkpoint, Precision precision) {
        this.directory = checkpoint.directory();
        this.config = checkpoint.config();
        this.precision = precision;
        this.activation = Activation.of(config);
        Map<String, Tensor> w = checkpoint.checkedWeights();
        String problem = null;
        try {
            checkpoint.requireMlmHead();
        } catch (org.vectorbert.loader.LoaderException e) {
            problem = e.getMessage();
        }
        this.mlmHeadProblem = problem;
        wordEmbeddings = f32(w, WeightNames.WORD_EMBEDDINGS);
        positionEmbeddings = f32(w, "bert.embeddings.position_embeddings.weight");
        typeEmbeddings = f32(w, "bert.embeddings.token_type_embeddings.weight");
        embeddingNorm = f32(w, "bert.embeddings.LayerNorm.weight");
        embeddingNormBias = f32(w, "bert.embeddings.LayerNorm.bias");
        // Copying and packing 340 MB of layer weights is most of a load: spread the layers over the pool.
        Layer[] loaded = new Layer[config.numHiddenLayers()];
        Parallel.forRange(loaded.length, 1, (from, to) -> {
            for (int l = from; l < to; l++) {
                loaded[l] = layer(w, l, precision);
            }
        });
        layers = List.of(loaded);
        finalNorm = f32(w, "bert.encoder.final_layer_norm.weight");
        finalNormBias = f32(w, "bert.encoder.final_layer_norm.bias");
        pooler = dense(w, "bert.pooler.dense", precision);
        // In float32 a tied decoder is the word-embedding tensor itself: share its array rather than copy
        // 94 MB again. In bfloat16 it is packed (47 MB), so a query reads half the bytes there too.
        Tensor decoderWeight = w.get(WeightNames.MLM_DECODER);
        boolean bf16 = precision == Precision.BF16;
        float[] decoder = bf16 ? null : decoderWeight == w.get(WeightNames.WORD_EMBEDDINGS) ? wordEmbeddings
                : f32(w, WeightNames.MLM_DECODER);
        mlm = w.containsKey(WeightNames.MLM_BIAS)
                ? new MlmHead(dense(w, "cls.predictions.transform.dense", precision),
                        f32(w, "cls.predictions.transform.LayerNorm.weight"), f32(w, "cls.predictions.transform.LayerNorm.bias"),
                        decoder, f32(w, WeightNames.MLM_BIAS),
                        bf16 && decoderWeight != null ? PackedMatrix.pack(decoderWeight, w.get(WeightNames.MLM_BIAS), precision) : null)
                : null;
    }

    private static Layer layer(Map<String, Tensor> w, int l, Precision precision) {
        String p = "bert.encoder.layer." + l + ".";
        return new Layer(
                dense(w, p + "attention.self.query", precision), dense(w, p + "attention.self.key", precision),
                dense(w, p + "attention.self.value", precision), dense(w, p + "attention.output.dense", precision),
                f32(w, p + "attention.output.LayerNorm.weight"), f32(w, p + "attention.output.LayerNorm.bias"),
                dense(w, p + "intermediate.dense", precision), dense(w, p + "output.dense", precision),
                f32(w, p + "output.LayerNorm.weight"), f32(w, p + "output.LayerNorm.bias"));
    }

    /** A float32 copy of the weight (F16 and BF16 widened), or null when absent. */
    private static float[] f32(Map<String, Tensor> weights, String name) {
        Tensor t = weights.get(name);
        return t == null ? null : t.toFloatArray();
    }

    /** The dense layer {@code prefix}.weight and .bias packed for the panel kernel, or null when absent. */
    private static PackedMatrix dense(Map<String, Tensor> weights, String prefix, Precision precision) {
        Tensor t = weights.get(prefix + ".weight");
        return t == null ? null : PackedMatrix.pack(t, weights.get(prefix + ".bias"), precision);
    }

    /** Opens a Hugging Face model directory in float32; the checkpoint is unmapped once its weights are copied. */
    public static BertModel load(Path directory) {
        return load(directory, Precision.F32);
    }

    /** Opens a Hugging Face model directory with its matrices held at {@code precision}. */
    public static BertModel load(Path directory, Precision precision) {
        try (BertCheckpoint checkpoint = BertCheckpoint.open(directory)) {
            return new BertModel(checkpoint, precision);
        }
    }

    /** How the weight matrices are held. */
    public Precision precision() {
        return precision;
    }

    /** Bytes of weights the model holds in memory (a tied decoder counted once). */
    public long weightBytes() {
        long bytes = 4L * (wordEmbeddings.length + positionEmbeddings.length + typeEmbeddings.length
                + embeddingNorm.length + embeddingNormBias.length);
        for (Layer l : layers) {
            for (PackedMatrix m : List.of(l.query(), l.key(), l.value(), l.attentionOut(), l.intermediate(), l.output())) {
                bytes += m.bytes();
            }
            bytes += 4L * (l.attentionNorm().length + l.attentionNormBias().length + l.outputNorm().length
                    + l.outputNormBias().length);
        }
        bytes += finalNorm == null ? 0 : 4L * (finalNorm.length + finalNormBias.length);
        bytes += pooler == null ? 0 : pooler.bytes();
        if (mlm != null) {
            bytes += mlm.transform().bytes() + 4L * (mlm.norm().length + mlm.normBias().length + mlm.decoderBias().length);
            bytes += mlm.packedDecoder() != null ? mlm.packedDecoder().bytes()
                    : mlm.decoder() == wordEmbeddings ? 0 : 4L * mlm.decoder().length;
        }
        return bytes;
    }

    /** The validated configuration the weights were checked against. */
    public BertConfig config() {
        return config;
    }

    /** The model directory the weights came from. */
    public Path directory() {
        return directory;
    }

    /** Throws, naming what is missing, when the model has no complete masked-language-model head. */
    public void requireMlmHead() {
        if (mlmHeadProblem != null) {
            throw new EngineException(mlmHeadProblem);
        }
    }

    /** Whether the checkpoint has the pooler ({@code bert.pooler.dense}). */
    public boolean hasPooler() {
        return pooler != null;
    }

    /** Whether the checkpoint has a complete masked-language-model head. */
    public boolean hasMlmHead() {
        return mlm != null;
    }

    /** What a forward pass should return beyond the last hidden state. */
    public record Request(boolean allHiddenStates, boolean attentions, boolean pooled, int[] mlmRows) {
        /** The last hidden state only: the cheapest request. */
        public static Request lastHiddenState() {
            return new Request(false, false, false, new int[0]);
        }

        /** Also every layer's output, embeddings first, as transformers' {@code hidden_states}. */
        public Request withAllHiddenStates() {
            return new Request(true, attentions, pooled, mlmRows);
        }

        /** Also each layer's attention probabilities. */
        public Request withAttentions() {
            return new Request(allHiddenStates, true, pooled, mlmRows);
        }

        /** Also the pooler output, tanh(W·h[CLS] + b), per sequence. */
        public Request withPooled() {
            return new Request(allHiddenStates, attentions, true, mlmRows);
        }

        /** MLM logits at these rows of the batch (row = sequence · length + position). */
        public Request withMlmLogitsAt(int... rows) {
            return new Request(allHiddenStates, attentions, pooled, rows.clone());
        }
    }

    /** A pass's working buffers, sized for a batch (and at least as large as the one it replaces). */
    private static final class Workspace {
        final int rows;
        final int scoreCount;
        final int scratchCount;
        final float[] mask;
        final float[] q;
        final float[] k;
        final float[] v;
        final float[] ctx;
        final float[] t;
        final float[] inner;
        final float[] scores;
        final float[] keysT;

        Workspace(Batch batch, BertConfig c, Workspace old) {
            rows = Math.max(rows(batch), old == null ? 0 : old.rows);
            scoreCount = Math.max(scores(batch, c), old == null ? 0 : old.scoreCount);
            scratchCount = Math.max(scratch(batch, c), old == null ? 0 : old.scratchCount);
            mask = new float[rows];
            q = new float[rows * c.hiddenSize()];
            k = new float[q.length];
            v = new float[q.length];
            ctx = new float[q.length];
            t = new float[q.length];
            inner = new float[rows * c.intermediateSize()];
            scores = new float[scoreCount];
            keysT = new float[scratchCount];
        }

        boolean fits(Batch batch, BertConfig c) {
            return rows(batch) <= rows && scores(batch, c) <= scoreCount && scratch(batch, c) <= scratchCount;
        }

        private static int rows(Batch batch) {
            return batch.size() * batch.length();
        }

        /** Attention probabilities: one seq x seq block per sequence and head. */
        private static int scores(Batch batch, BertConfig c) {
            return batch.size() * c.numAttentionHeads() * batch.length() * batch.length();
        }

        /** Attention scratch: one block per sequence and head. */
        private static int scratch(Batch batch, BertConfig c) {
            return batch.size() * c.numAttentionHeads() * Kernels.attentionScratch(batch.length(), c.headSize());
        }
    }

    /**
     * The results of a forward pass; arrays are row-major.
     *
     * @param lastHiddenState [size, length, hidden]
     * @param hiddenStates    embedding output and every layer's output, each [size, length, hidden]; empty unless asked
     * @param attentions      per layer, probabilities [size, heads, length, length]; empty unless asked
     * @param pooled          [size, hidden], or null unless asked
     * @param mlmLogits       [rows asked, vocab], or null unless asked
     */
    public record Output(Batch batch, float[] lastHiddenState, List<float[]> hiddenStates, List<float[]> attentions,
                         float[] pooled, float[] mlmLogits) {}

    /** Runs the encoder over a batch. */
    public Output forward(Batch batch, Request request) {
        check(batch, request);
        int hidden = config.hiddenSize();
        int rows = batch.size() * batch.length();
        int heads = config.numAttentionHeads();
        int seq = batch.length();
        float[] x = embed(batch);
        // Working buffers, reused by every layer and, through the spare slot, by the next pass:
        // steady-state passes allocate only their outputs.
        Workspace ws = spare.getAndSet(null);
        if (ws == null || !ws.fits(batch, config)) {
            ws = new Workspace(batch, config, ws);
        }
        float[] mask = ws.mask;
        Arrays.fill(mask, 0, rows, 0f);
        for (int b = 0; b < batch.size(); b++) {
            Arrays.fill(mask, b * seq + batch.lengths()[b], (b + 1) * seq, -Float.MAX_VALUE);
        }
        float[] q = ws.q;
        float[] k = ws.k;
        float[] v = ws.v;
        float[] ctx = ws.ctx;
        float[] t = ws.t;
        float[] inner = ws.inner;
        float[] scores = ws.scores;
        float[] keysT = ws.keysT;

        List<float[]> hiddenStates = new ArrayList<>();
        List<float[]> attentions = new ArrayList<>();
        if (request.allHiddenStates()) {
            hiddenStates.add(x.clone());
        }
        for (Layer layer : layers) {
            if (config.preLayerNorm()) {
                Kernels.layerNorm(x, rows, hidden, layer.attentionNorm(), layer.attentionNormBias(), eps(), t);
                attention(t, layer, batch, mask, q, k, v, scores, keysT, ctx);
                Kernels.linear(ctx, rows, layer.attentionOut(), t);
                Kernels.addInPlace(x, 0, t, rows * hidden);
                Kernels.layerNorm(x, rows, hidden, layer.outputNorm(), layer.outputNormBias(), eps(), t);
                feedForward(t, rows, layer, inner, ctx);
                Kernels.addInPlace(x, 0, ctx, rows * hidden);
            } else {
                attention(x, layer, batch, mask, q, k, v, scores, keysT, ctx);
                Kernels.linear(ctx, rows, layer.attentionOut(), t);
                Kernels.addInPlace(t, 0, x, rows * hidden);
                Kernels.layerNorm(t, rows, hidden, layer.attentionNorm(), layer.attentionNormBias(), eps(), x);
                feedForward(x, rows, layer, inner, t);
                Kernels.addInPlace(t, 0, x, rows * hidden);
                Kernels.layerNorm(t, rows, hidden, layer.outputNorm(), layer.outputNormBias(), eps(), x);
            }
            if (request.attentions()) {
                attentions.add(Arrays.copyOf(scores, batch.size() * heads * seq * seq));
            }
            if (request.allHiddenStates()) {
                hiddenStates.add(x.clone());
            }
        }
        if (finalNorm != null) {
            Kernels.layerNorm(x, rows, hidden, finalNorm, finalNormBias, eps(), x);
            if (request.allHiddenStates()) {
                hiddenStates.set(hiddenStates.size() - 1, x.clone());
            }
        }
        spare.set(ws);
        float[] pooled = request.pooled() ? pool(x, batch) : null;
        float[] logits = request.mlmRows().length > 0 ? mlmLogits(x, request.mlmRows()) : null;
        return new Output(batch, x, List.copyOf(hiddenStates), List.copyOf(attentions), pooled, logits);
    }

    private float eps() {
        return (float) config.layerNormEps();
    }

    private void check(Batch batch, Request request) {
        if (batch.length() > config.maxPositionEmbeddings()) {
            throw new EngineException("a sequence of " + batch.length() + " tokens is longer than the model's maximum of "
                    + config.maxPositionEmbeddings() + " positions; truncate it (the tokenizer can: --max-length)");
        }
        for (int i = 0; i < batch.ids().length; i++) {
            int id = batch.ids()[i];
            if (id < 0 || id >= config.vocabSize()) {
                throw new EngineException("token id " + id + " is outside the model's vocabulary (0.." + (config.vocabSize() - 1) + ")");
            }
            int type = batch.typeIds()[i];
            if (type < 0 || type >= config.typeVocabSize()) {
                throw new EngineException("token type id " + type + " is outside 0.." + (config.typeVocabSize() - 1));
            }
        }
        if (request.pooled() && pooler == null) {
            throw new EngineException(directory + " has no pooler (bert.pooler.dense.*): use cls or mean pooling");
        }
        if (request.mlmRows().length > 0) {
            requireMlmHead();
            for (int row : request.mlmRows()) {
                if (row < 0 || row >= batch.size() * batch.length()) {
                    throw new EngineException("MLM row " + row + " is outside the batch");
                }
            }
        }
    }

    /** word[id] + position[i] + type[t], then LayerNorm. */
    private float[] embed(Batch batch) {
        int hidden = config.hiddenSize();
        int seq = batch.length();
        float[] x = new float[batch.size() * seq * hidden];
        float[] row = new float[hidden];
        for (int r = 0; r < batch.size() * seq; r++) {
            int off = r * hidden;
            System.arraycopy(wordEmbeddings, batch.ids()[r] * hidden, x, off, hidden);
            System.arraycopy(positionEmbeddings, (r % seq) * hidden, row, 0, hidden);
            Kernels.addInPlace(x, off, row, hidden);
            System.arraycopy(typeEmbeddings, batch.typeIds()[r] * hidden, row, 0, hidden);
            Kernels.addInPlace(x, off, row, hidden);
        }
        Kernels.layerNorm(x, batch.size() * seq, hidden, embeddingNorm, embeddingNormBias, eps(), x);
        return x;
    }

    /** Multi-head self-attention of {@code in}; the context (before the output projection) goes to ctx. */
    private void attention(float[] in, Layer layer, Batch batch, float[] mask, float[] q, float[] k, float[] v,
                           float[] scores, float[] keysT, float[] ctx) {
        int hidden = config.hiddenSize();
        int rows = batch.size() * batch.length();
        Kernels.linear(in, rows, layer.query(), q);
        Kernels.linear(in, rows, layer.key(), k);
        Kernels.linear(in, rows, layer.value(), v);
        int heads = config.numAttentionHeads();
        int headSize = config.headSize();
        int seq = batch.length();
        int scratch = Kernels.attentionScratch(seq, headSize);
        Parallel.forRange(batch.size() * heads, 1, (from, to) -> {
            for (int task = from; task < to; task++) {
                int b = task / heads;
                int h = task % heads;
                Kernels.attentionHead(q, k, v, hidden, b * seq, seq, h * headSize, headSize, mask, b * seq,
                        scores, task * seq * seq, ctx, keysT, task * scratch);
            }
        });
    }

    /** out = W2·act(W1·in + b1) + b2, without the residual. */
    private void feedForward(float[] in, int rows, Layer layer, float[] inner, float[] out) {
        int hidden = config.hiddenSize();
        int size = config.intermediateSize();
        Kernels.linear(in, rows, layer.intermediate(), inner);
        Kernels.activate(activation, inner, rows * size);
        Kernels.linear(inner, rows, layer.output(), out);
    }

    /** tanh(Wp·h[CLS] + bp) for each sequence. */
    private float[] pool(float[] x, Batch batch) {
        int hidden = config.hiddenSize();
        float[] cls = new float[batch.size() * hidden];
        for (int b = 0; b < batch.size(); b++) {
            System.arraycopy(x, b * batch.length() * hidden, cls, b * hidden, hidden);
        }
        float[] pooled = new float[batch.size() * hidden];
        Kernels.linear(cls, batch.size(), pooler, pooled);
        Kernels.tanh(pooled, 0, pooled.length);
        return pooled;
    }

    /** The MLM head at the given rows only: LayerNorm(act(Wt·h + bt)), then ·Eᵀ + bias. */
    private float[] mlmLogits(float[] x, int[] rowsAsked) {
        int hidden = config.hiddenSize();
        int n = rowsAsked.length;
        float[] h = new float[n * hidden];
        for (int i = 0; i < n; i++) {
            System.arraycopy(x, rowsAsked[i] * hidden, h, i * hidden, hidden);
        }
        float[] t = new float[n * hidden];
        Kernels.linear(h, n, mlm.transform(), t);
        Kernels.activate(activation, t, t.length);
        Kernels.layerNorm(t, n, hidden, mlm.norm(), mlm.normBias(), eps(), t);
        float[] logits = new float[n * config.vocabSize()];
        if (mlm.packedDecoder() != null) {
            Kernels.linear(t, n, mlm.packedDecoder(), logits);
        } else {
            Kernels.linear(t, n, hidden, mlm.decoder(), mlm.decoderBias(), config.vocabSize(), logits);
        }
        return logits;
    }

    /** Nothing to release beyond the arrays, which the garbage collector reclaims; kept for try-with-resources. */
    @Override
    public void close() {
    }
}
