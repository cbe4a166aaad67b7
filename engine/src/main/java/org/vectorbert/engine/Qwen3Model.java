package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.Qwen3Config;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * Qwen3 ({@code model_type: qwen3}: Qwen3-Embedding and Qwen3-Reranker), built as transformers' {@code Qwen3Model} is:
 * {@code embed_tokens}, pre-norm causal {@link Qwen3Layer}s with grouped-query attention, the final {@code norm}. A saved
 * {@code Qwen3Model} (the embedders) names its weights without a prefix, {@code Qwen3ForCausalLM} (the reranker) under
 * {@code model.}, with {@code lm_head} or, tied, the word embeddings as its head. Each sequence's positions count from its
 * first real token (the pass holds no padding), as text-embeddings-inference does; a left-padded transformers batch differs
 * only by the rounding of its float32 angles. Thread-safe: a pass keeps its buffers to itself.
 */
final class Qwen3Model implements Encoder {
    private final Path directory;
    private final Qwen3Config config;
    private final Precision precision;
    private final PackedMatrix words;                  // embed_tokens, float32
    private final List<Qwen3Layer> layers;
    private final RmsNorm finalNorm;
    private final Map<HeadKind, Head> heads;
    private final SlowPathCheck slowPathCheck = new SlowPathCheck();
    private final SlowPathCheck.Probe probe;           // the first layer's o_proj and MLP; a LayerNorm of its width
    private final AtomicReference<Rotary> rotary = new AtomicReference<>();
    private final AtomicReference<Workspace> spare = new AtomicReference<>();

    private Qwen3Model(TensorFiles files, Qwen3Config config, Precision precision, Scope root) {
        this.directory = files.directory();
        this.config = config;
        this.precision = precision;
        Scope model = prefixed(files) ? root.child("model") : root;
        int h = config.hiddenSize();
        Tensor wordsTensor = model.tensor("embed_tokens.weight", config.vocabSize(), h);
        words = model.packed(wordsTensor, null, Precision.F32);
        Qwen3Layer[] loaded = new Qwen3Layer[config.numHiddenLayers()];
        Parallel.forRange(loaded.length, 1, (from, to) -> {
            for (int l = from; l < to; l++) {
                loaded[l] = Qwen3Layer.load(model.child("layers." + l), config);
            }
        });
        layers = List.of(loaded);
        finalNorm = RmsNorm.load(model.child("norm"), h, config.rmsNormEps());
        Qwen3Layer first = layers.getFirst();
        probe = new SlowPathCheck.Probe(first.output(), new LayerNorm(finalNorm.weight(), new float[h], finalNorm.eps()),
                first.mlp().inner(), first.mlp().activation());
        heads = new EnumMap<>(HeadKind.class);
        if (headsIn(files, config).contains(HeadKind.CAUSAL_LM)) {
            boolean tied = config.tieWordEmbeddings() && !root.has("lm_head.weight");
            PackedMatrix lm = tied ? words : root.child("lm_head").linear(h, config.vocabSize(), false);
            heads.put(HeadKind.CAUSAL_LM, new LogitsHead(lm, tied));
        }
    }

    /** The word embeddings (tied) or lm_head at the rows asked: next-token logits. */
    private record LogitsHead(PackedMatrix matrix, boolean tied) implements Head {
        @Override
        public int width() {
            return matrix.out;
        }

        @Override
        public float[] forward(float[] x, int[] rows) {
            float[] logits = new float[rows.length * matrix.out];
            matrix.apply(Head.gather(x, rows, matrix.in), rows.length, logits);
            return logits;
        }

        @Override
        public long bytes() {
            return tied ? 0 : matrix.bytes();
        }
    }

    private static boolean prefixed(TensorFiles files) {
        return files.find("model.embed_tokens.weight").isPresent();
    }

    /** Opens a Qwen3 model directory with its matrices held at {@code precision}; the files are closed after. */
    static Encoder load(Path directory, Precision precision) {
        return UsedWeights.load(directory, precision, Qwen3Config::parse, (files, c, root) -> new Qwen3Model(files, c, precision, root));
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

    @Override
    public Qwen3Config config() {
        return config;
    }

    @Override
    public Path directory() {
        return directory;
    }

    @Override
    public Precision precision() {
        return precision;
    }

    @Override
    public long weightBytes() {
        return words.bytes() + finalNorm.bytes() + layers.stream().mapToLong(Qwen3Layer::bytes).sum()
                + heads.values().stream().mapToLong(Head::bytes).sum();
    }

    @Override
    public Set<HeadKind> heads() {
        return Collections.unmodifiableSet(heads.keySet());
    }

    @Override
    public Labels labels() {
        return null;
    }

    @Override
    public void requireHead(HeadKind kind, String consequence) {
        if (!heads.containsKey(kind)) {
            throw new EngineException(directory + " has no " + kind.title() + " head (config.json's architectures "
                    + config.architectures() + (kind == HeadKind.MASKED_LM ? "; Qwen3 is a causal model, with no masked-LM head" : "")
                    + ")" + consequence);
        }
    }

    @Override
    public Output forward(Batch batch, Request request) {
        return forward(batch, request, RowLayout.padded(batch), out -> Passes.copied(out, config.hiddenSize()));
    }

    /**
     * {@inheritDoc}
     *
     * <p>Here the pass computes no padding ({@link RowLayout#packed}) unless the request keeps anything per layer.
     */
    @Override
    public <T> T forward(Batch batch, Request request, Function<Output, T> reader) {
        return forward(batch, request, Passes.layout(batch, request), reader);
    }

    /** The rotary table for {@code length} positions: the last one made, when it is long enough. */
    private Rotary rotary(int length) {
        Rotary r = rotary.get();
        if (r == null || r.cos().length < length * config.headDim() / 2) {
            r = Rotary.of(config.ropeTheta(), config.headDim(), Math.max(length, Math.min(512, config.maxTokens())));
            rotary.set(r);
        }
        return r;
    }

    private <T> T forward(Batch batch, Request request, RowLayout layout, Function<Output, T> reader) {
        Passes.check(this, batch, request);
        if (request.queriesAndKeys() && config.numKeyValueHeads() != config.numAttentionHeads()) {
            throw new EngineException("queries and keys are not kept for grouped-query attention (" + config.numAttentionHeads()
                    + " query heads, " + config.numKeyValueHeads() + " key/value heads)");
        }
        int hidden = config.hiddenSize();
        int width = Math.max(hidden, config.numAttentionHeads() * config.headDim());
        Rotary table = rotary(batch.length());
        return Passes.run(spare, batch, layout.rows(), width, 2 * config.intermediateSize(), ws -> {
            float[] x = ws.x;
            for (int b = 0; b < batch.size(); b++) {
                for (int i = 0; i < layout.lengths()[b]; i++) {
                    words.copyRow(batch.ids()[b * batch.length() + i], x, (layout.starts()[b] + i) * hidden);
                }
            }
            ws.maskPadding(batch, layout);
            LayerOutputs kept = new LayerOutputs(request, batch, config.numAttentionHeads(), layout.rows() * hidden);
            kept.state(x);
            for (Qwen3Layer layer : layers) {
                layer.forward(x, layout, ws, table, kept.probabilities());
                kept.queriesAndKeys(ws);
                kept.state(x);
            }
            finalNorm.apply(x, layout.rows(), x);
            kept.replaceLastState(x);
            if (!layout.isPadded(batch)) {
                layout.unpack(x, batch, hidden);
            }
            T result = reader.apply(kept.output(x, (kind, rows) -> heads.get(kind).forward(x, rows)));
            slowPathCheck.passDone(probe, config.headDim(), layout.rows(), layout.longest());
            return result;
        });
    }
}
