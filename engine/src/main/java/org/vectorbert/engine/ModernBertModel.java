package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModernBertConfig;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;
import org.vectorbert.loader.WeightSource;

/**
 * ModernBERT ({@code model_type: modernbert}), built as transformers' {@code ModernBertModel} and its task classes are:
 * {@code embeddings} (word embeddings, then a LayerNorm), pre-LN {@code layers} with rotary positions and global or
 * windowed attention, {@code final_norm}; then the heads the checkpoint has ({@link PredictionHead}). A saved
 * {@code ModernBertModel} names its weights without a prefix, the task classes under {@code model.}. The matrices are
 * packed and cached as BERT's are ({@link PackedWeights}). Thread-safe: a pass keeps its buffers to itself.
 */
public final class ModernBertModel implements Encoder {
    private final Path directory;
    private final ModernBertConfig config;
    private final Precision precision;
    private final PackedMatrix words;                  // embeddings.tok_embeddings, float32
    private final LayerNorm embeddingNorm;             // embeddings.norm
    private final List<ModernBertLayer> layers;
    private final SlowPathCheck slowPathCheck = new SlowPathCheck();
    private final LayerNorm finalNorm;
    private final Map<HeadKind, Head> heads;
    private final Labels labels;
    private final long sharedBytes;                    // the rotary tables and the window band
    private final AtomicReference<Workspace> spare = new AtomicReference<>();

    private ModernBertModel(TensorFiles files, WeightSource weights, ModernBertConfig config, Precision precision, PackedWeights packed) {
        this.directory = files.directory();
        this.config = config;
        this.precision = precision;
        Scope root = Scope.root(weights, precision, packed);
        Scope model = files.find("model.embeddings.tok_embeddings.weight").isPresent() ? root.child("model") : root;
        Tensor wordsTensor = model.tensor("embeddings.tok_embeddings.weight", config.vocabSize(), config.hiddenSize());
        words = model.packed(wordsTensor, null, Precision.F32);      // looked up, and the tied decoder's panels
        embeddingNorm = norm(model.child("embeddings.norm"), config);
        int d = config.headSize();
        Rotary global = Rotary.of(config.globalRopeTheta(), d, config.maxTokens());
        Rotary local = Rotary.of(config.localRopeTheta(), d, config.maxTokens());
        sharedBytes = global.bytes() + local.bytes();
        ModernBertLayer[] loaded = new ModernBertLayer[config.numHiddenLayers()];
        Parallel.forRange(loaded.length, 1, (from, to) -> {
            for (int l = from; l < to; l++) {
                boolean g = config.isGlobal(l);
                loaded[l] = ModernBertLayer.load(model.child("layers." + l), l, config, g ? global : local, g ? 0 : config.halfWindow());
            }
        });
        layers = List.of(loaded);
        finalNorm = norm(model.child("final_norm"), config);
        heads = new EnumMap<>(HeadKind.class);
        for (HeadKind kind : headsIn(files, config)) {
            heads.put(kind, switch (kind) {
                case MASKED_LM -> PredictionHead.masked(root, config, words, wordsTensor);
                case SEQUENCE_CLASSIFIER, TOKEN_CLASSIFIER -> PredictionHead.classifier(root, config, files.labels().count());
                case QUESTION_ANSWERING -> PredictionHead.classifier(root, config, 2);
                case POOLER -> throw new IllegalStateException("ModernBERT has no pooler");
                case CAUSAL_LM -> throw new IllegalStateException("ModernBERT is not a causal LM");
            });
        }
        labels = heads.containsKey(HeadKind.SEQUENCE_CLASSIFIER) || heads.containsKey(HeadKind.TOKEN_CLASSIFIER) ? files.labels() : null;
    }

    /**
     * Opens a ModernBERT model directory with its matrices held at {@code precision}; the files are closed after.
     *
     * @param directory a Hugging Face model directory
     * @param precision F32 or BF16
     * @return the model
     * @throws LoaderException if config.json is invalid or the weights do not match it (the message names the tensor)
     */
    public static ModernBertModel load(Path directory, Precision precision) {
        PlainKernels.checkVectorModule();
        if (!PlainKernels.firstPassAhead()) {
            KernelCompilation.start();
        }
        try (TensorFiles files = TensorFiles.open(directory)) {
            ModernBertConfig config = ModernBertConfig.parse(files.configJson(), "config.json");
            UsedWeights used = new UsedWeights(files);
            ModernBertModel model = PackedWeights.load(used, precision, PackedWeights.directory(),
                    packed -> new ModernBertModel(files, used, config, precision, packed));
            used.requireAllUsed(files);
            return model;
        }
    }

    /**
     * What a ModernBERT model directory holds, without loading it ({@link Encoder#inspect}): where config.json and the
     * weights disagree on the vocabulary, the width or the number of layers.
     *
     * @param directory a Hugging Face model directory
     * @return what it holds
     */
    public static Inspection inspect(Path directory) {
        try (TensorFiles files = TensorFiles.open(directory)) {
            ModernBertConfig c = ModernBertConfig.parse(files.configJson(), "config.json");
            long globals = c.globalLayers().stream().filter(g -> g).count();
            String shape = String.format("hidden %d, %d heads, intermediate %d (GeGLU), vocab %d, %d positions, %s, pre-LN, rotary"
                            + " positions (base %s global, %s local), %d of %d layers global, the others a window of %d",
                    c.hiddenSize(), c.numAttentionHeads(), c.intermediateSize(), c.vocabSize(), c.maxPositionEmbeddings(),
                    c.hiddenActivation(), number(c.globalRopeTheta()), number(c.localRopeTheta()), globals, c.numHiddenLayers(),
                    c.localAttention());
            List<String> contradictions = new ArrayList<>();
            String prefix = files.find("model.embeddings.tok_embeddings.weight").isPresent() ? "model." : "";
            Inspection.checkEmbeddings(files, prefix + "embeddings.tok_embeddings.weight", c, contradictions);
            Inspection.checkLayers(files, prefix + "layers.", c, contradictions);
            return new Inspection("ModernBERT", c, shape, files.configJson(),
                    files.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(files, c), contradictions);
        }
    }

    /** A rotary base as config.json writes it: 160000, not 160000.0. */
    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    /**
     * The heads a checkpoint has: by config.json's {@code architectures} (the classifier's weights are the same in three
     * classes), else by the weights.
     */
    static Set<HeadKind> headsIn(TensorFiles files, ModernBertConfig config) {
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        for (String a : config.architectures()) {
            switch (a) {
                case "ModernBertForMaskedLM" -> found.add(HeadKind.MASKED_LM);
                case "ModernBertForSequenceClassification" -> found.add(HeadKind.SEQUENCE_CLASSIFIER);
                case "ModernBertForTokenClassification" -> found.add(HeadKind.TOKEN_CLASSIFIER);
                case "ModernBertForQuestionAnswering" -> found.add(HeadKind.QUESTION_ANSWERING);
                default -> { }
            }
        }
        if (found.isEmpty() && files.find("decoder.bias").isPresent()) {
            found.add(HeadKind.MASKED_LM);
        } else if (found.isEmpty() && files.find("classifier.weight").isPresent()) {
            found.add(HeadKind.SEQUENCE_CLASSIFIER);
        }
        return found;
    }

    /** A LayerNorm of ModernBERT's ({@code norm_eps}), with its bias only if {@code norm_bias}. */
    static LayerNorm norm(Scope scope, ModernBertConfig c) {
        int h = c.hiddenSize();
        return new LayerNorm(scope.vector("weight", h), c.normBias() ? scope.vector("bias", h) : new float[h], (float) c.normEps());
    }

    @Override
    public ModernBertConfig config() {
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
        return words.bytes() + embeddingNorm.bytes() + finalNorm.bytes() + sharedBytes
                + layers.stream().mapToLong(ModernBertLayer::bytes).sum() + heads.values().stream().mapToLong(Head::bytes).sum();
    }

    @Override
    public Set<HeadKind> heads() {
        return Collections.unmodifiableSet(heads.keySet());
    }

    @Override
    public Labels labels() {
        return labels;
    }

    @Override
    public void requireHead(HeadKind kind, String consequence) {
        if (!heads.containsKey(kind)) {
            throw new EngineException(directory + " has no " + kind.title() + " head (config.json's architectures "
                    + config.architectures() + ")" + consequence);
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

    private <T> T forward(Batch batch, Request request, RowLayout layout, Function<Output, T> reader) {
        Passes.check(this, batch, request);
        int hidden = config.hiddenSize();
        return Passes.run(this, spare, batch, layout.rows(), config.hiddenSize(), 2 * config.intermediateSize(), ws -> {
            float[] x = ws.x;
            for (int b = 0; b < batch.size(); b++) {
                for (int i = 0; i < layout.lengths()[b]; i++) {
                    words.copyRow(batch.ids()[b * batch.length() + i], x, (layout.starts()[b] + i) * hidden);
                }
            }
            embeddingNorm.apply(x, layout.rows(), x);
            ws.maskPadding(batch, layout);
            LayerOutputs kept = new LayerOutputs(request, batch, config.numAttentionHeads(), layout.rows() * hidden);
            kept.state(x);
            for (ModernBertLayer layer : layers) {
                layer.forward(x, layout, ws, kept.probabilities());
                kept.queriesAndKeys(ws);
                kept.state(x);
            }
            finalNorm.apply(x, layout.rows(), x);
            kept.replaceLastState(x);
            if (!layout.isPadded(batch)) {
                layout.unpack(x, batch, hidden);
            }
            T result = reader.apply(kept.output(x, (kind, rows) -> head(kind, x, batch, rows)));
            ModernBertLayer first = layers.getFirst();
            slowPathCheck.passDone(new SlowPathCheck.Probe(first.attention().output(), first.mlpNorm(), first.mlp().inner(),
                    first.mlp().activation()), config.headSize(), layout.rows(), layout.longest());
            return result;
        });
    }

    /**
     * Head {@code kind} at {@code rows} of x ([batch rows, hidden], padded layout). A sequence classifier with
     * {@code classifier_pooling: mean} reads, for each row asked, the mean of its sequence's real tokens instead.
     */
    private float[] head(HeadKind kind, float[] x, Batch batch, int[] rows) {
        Head head = heads.get(kind);
        if (kind != HeadKind.SEQUENCE_CLASSIFIER || !config.classifierPooling().equals("mean")) {
            return head.forward(x, rows);
        }
        int hidden = config.hiddenSize();
        float[] pooled = new float[rows.length * hidden];
        double[] sum = new double[hidden];
        for (int r = 0; r < rows.length; r++) {
            int b = rows[r] / batch.length();
            int n = batch.lengths()[b];
            Arrays.fill(sum, 0);
            for (int i = 0; i < n; i++) {
                int off = (b * batch.length() + i) * hidden;
                for (int c = 0; c < hidden; c++) {
                    sum[c] += x[off + c];
                }
            }
            for (int c = 0; c < hidden; c++) {
                pooled[r * hidden + c] = (float) (sum[c] / n);
            }
        }
        int[] each = new int[rows.length];
        Arrays.setAll(each, i -> i);
        return head.forward(pooled, each);
    }
}
