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
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Labels;

/**
 * A BERT encoder with its optional heads, built as Hugging Face's {@code BertForMaskedLM} is:
 * {@code bert.embeddings}, {@code bert.encoder} (post-LN or pre-LN layers, as the config declares),
 * {@code bert.pooler} and {@code cls.predictions} when the checkpoint has them. Each block takes its
 * weights by their checkpoint names, out of the validated, memory-mapped checkpoint: the matrices
 * packed for the kernels (float32 or bfloat16) are mapped read-only from a packed file in the
 * vectorbert cache ({@link PackedWeights}), written once, the vectors copied; the checkpoint is
 * closed after loading, so the weights are resident once. Thread-safe: a forward pass keeps its
 * working buffers to itself.
 */
public final class BertModel implements Encoder {
    private final Path directory;
    private final BertConfig config;
    private final Precision precision;
    private final BertEmbeddings embeddings;           // bert.embeddings
    private final BertEncoder encoder;                 // bert.encoder
    private final Map<HeadKind, Head> heads;           // those the checkpoint has
    /** Why each missing head is missing, for a message. */
    private final Map<HeadKind, String> missingHeads;
    /** config.json's labels of the classifier's outputs, or null when the model has no classifier. */
    private final Labels labels;
    /** One pass's buffers kept for the next (a second concurrent pass makes its own). */
    private final AtomicReference<Workspace> spare = new AtomicReference<>();
    /** Whether the kernels reached C2's speed after warm-up; says so once if not. */
    private final SlowPathCheck slowPathCheck = new SlowPathCheck();

    private BertModel(BertCheckpoint checkpoint, Precision precision, PackedWeights packed) {
        this.directory = checkpoint.directory();
        this.config = checkpoint.config();
        this.precision = precision;
        // A config that names fewer layers than the checkpoint holds would run a different, shallower model
        // without a word (transformers at least warns of unused weights): every disagreement is refused.
        List<String> contradictions = checkpoint.contradictions();
        if (!contradictions.isEmpty()) {
            throw new EngineException(directory + ": " + String.join("; ", contradictions) + " (config.json does not describe these weights)");
        }
        Scope root = Scope.root(checkpoint, precision, packed);
        Scope bert = root.child("bert");
        embeddings = BertEmbeddings.load(bert.child("embeddings"), bert.child("embeddings_project"), config);
        encoder = BertEncoder.load(bert.child("encoder"), config);
        heads = new EnumMap<>(HeadKind.class);
        missingHeads = new EnumMap<>(HeadKind.class);
        for (HeadKind kind : HeadKind.values()) {
            BertHeads.find(kind, checkpoint, root, config, embeddings).ifPresentOrElse(h -> heads.put(kind, h),
                    () -> missingHeads.put(kind, directory + " has no " + kind.title() + " head (missing "
                            + String.join(", ", BertHeads.missing(kind, checkpoint, root)) + ")"));
        }
        labels = heads.containsKey(HeadKind.SEQUENCE_CLASSIFIER) || heads.containsKey(HeadKind.TOKEN_CLASSIFIER)
                ? checkpoint.labels() : null;
    }

    /**
     * Opens a Hugging Face model directory in float32.
     *
     * @param directory a Hugging Face model directory
     * @return the model
     */
    public static BertModel load(Path directory) {
        return load(directory, Precision.F32);
    }

    /**
     * Opens a Hugging Face model directory with its matrices held at {@code precision}; the checkpoint is closed after.
     *
     * @param directory a Hugging Face model directory
     * @param precision F32 or BF16
     * @return the model
     */
    public static BertModel load(Path directory, Precision precision) {
        PlainKernels.checkVectorModule();
        // The vector kernels' compiler directive, if the JVM's first pass will not run plain (PlainKernels): the MBean
        // server it needs starts on a thread of its own while the weights load. Else after that pass (see forward).
        if (!PlainKernels.firstPassAhead()) {
            KernelCompilation.start();
        }
        try (BertCheckpoint checkpoint = BertCheckpoint.open(directory)) {
            // The matrices are mapped from the packed file in the vectorbert cache, packed and written there first if need be.
            return PackedWeights.load(checkpoint, precision, PackedWeights.directory(), packed -> new BertModel(checkpoint, precision, packed));
        }
    }

    /**
     * The heads an opened checkpoint has, decided as loading decides it, without loading.
     *
     * @param checkpoint an opened checkpoint
     * @return its heads
     */
    public static Set<HeadKind> headsIn(BertCheckpoint checkpoint) {
        Scope root = Scope.root(checkpoint, Precision.F32);
        Set<HeadKind> found = EnumSet.noneOf(HeadKind.class);
        for (HeadKind kind : HeadKind.values()) {
            if (BertHeads.isIn(kind, checkpoint, root)) {
                found.add(kind);
            }
        }
        return found;
    }

    /**
     * What a BERT-family model directory holds, without loading it ({@link Encoder#inspect}).
     *
     * @param directory a Hugging Face model directory
     * @return what it holds
     */
    public static Inspection inspect(Path directory) {
        try (BertCheckpoint c = BertCheckpoint.open(directory)) {
            BertConfig k = c.config();
            String shape = String.format("hidden %d%s, %d heads, intermediate %d, vocab %d, %d positions, %s, %s", k.hiddenSize(),
                    k.embeddingSize() == k.hiddenSize() ? "" : " (embeddings " + k.embeddingSize() + ")", k.numAttentionHeads(),
                    k.intermediateSize(), k.vocabSize(), k.maxPositionEmbeddings(), k.hiddenAct(),
                    (k.preLayerNorm() ? "pre-LN" + (k.finalLayerNorm() ? " + final LayerNorm" : "") : "post-LN")
                            + (k.relativeAttentionBuckets() > 0 ? ", relative position bias (" + k.relativeAttentionBuckets() + " buckets)" : ""));
            return new Inspection(c.family().name(), k, shape, k.toJson(),
                    c.tensors().values().stream().map(Inspection.TensorEntry::of).toList(), headsIn(c), c.contradictions());
        }
    }

    /** {@return how the weight matrices are held} */
    @Override
    public Precision precision() {
        return precision;
    }

    /** {@return bytes of weights the model holds in memory (a tied decoder counted once)} */
    @Override
    public long weightBytes() {
        return embeddings.bytes() + encoder.bytes() + heads.values().stream().mapToLong(Head::bytes).sum();
    }

    /** {@return the validated configuration the weights were checked against} */
    @Override
    public BertConfig config() {
        return config;
    }

    /** {@return the model directory the weights came from} */
    @Override
    public Path directory() {
        return directory;
    }

    /** {@return config.json's labels of the classifier's outputs ({@code id2label}, {@code problem_type}); null without a classifier} */
    @Override
    public Labels labels() {
        return labels;
    }

    /** {@return the heads the checkpoint has} */
    @Override
    public Set<HeadKind> heads() {
        return Collections.unmodifiableSet(heads.keySet());
    }

    @Override
    public void requireMlmHead() {
        // An ELECTRA discriminator never has one: its masked LM is the generator, another model of the same checkpoint.
        boolean discriminator = config.architectures().contains("ElectraForPreTraining");
        requireHead(HeadKind.MASKED_LM, ": it can give embeddings but not fill-mask" + (discriminator ? " (it is an ELECTRA"
                + " discriminator; fill-mask needs its generator: a *-generator model, or vectorbert convert --from-tf CHECKPOINT"
                + " --electra-generator)" : ""));
    }

    @Override
    public void requireHead(HeadKind kind, String consequence) {
        if (!heads.containsKey(kind)) {
            throw new EngineException(missingHeads.get(kind) + consequence);
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
        return Passes.run(this, spare, batch, layout.rows(), config.hiddenSize(), config.intermediateSize(), ws -> {
            float[] x = ws.x;
            embeddings.forward(batch, layout, x, ws.t);
            ws.maskPadding(batch, layout);
            List<float[]> hiddenStates = new ArrayList<>();
            List<float[]> attentions = new ArrayList<>();
            List<float[]> queries = new ArrayList<>();
            List<float[]> keys = new ArrayList<>();
            if (request.allHiddenStates()) {
                hiddenStates.add(Arrays.copyOf(x, batch.rows() * config.hiddenSize()));
            }
            int[] read = rowsRead(batch, request);
            RowSelection selection = read == null ? null : RowSelection.of(batch, layout, read);
            encoder.forward(x, batch, layout, ws, request, new BertEncoder.Kept(hiddenStates, attentions, queries, keys), selection);
            if (!layout.isPadded(batch)) {
                layout.unpack(x, batch, config.hiddenSize());
            }
            if (selection != null) {
                unreadToNaN(x, batch, read);
            }
            Map<HeadKind, float[]> headOutputs = new EnumMap<>(HeadKind.class);
            request.heads().forEach((kind, rows) -> headOutputs.put(kind, heads.get(kind).forward(x, rows == null ? batch.firstRows() : rows)));
            T result = reader.apply(new Output(batch, x, List.copyOf(hiddenStates), List.copyOf(attentions), List.copyOf(queries),
                    List.copyOf(keys), Collections.unmodifiableMap(headOutputs)));
            slowPathCheck.passDone(SlowPathCheck.Probe.of(firstLayer()), config.headSize(), layout.rows(), layout.longest());
            return result;
        });
    }

    /**
     * {@code -Dvectorbert.lastLayer=whole}: the last layer computes every row whatever the reader reads, as before
     * {@link RowSelection}; for measuring what the selection saves, side by side.
     */
    private static final boolean WHOLE_LAST_LAYER = "whole".equals(System.getProperty("vectorbert.lastLayer"));

    /**
     * The rows of the batch {@code request}'s reader reads of the last hidden state, its heads' rows included, when the last
     * layer may compute those alone ({@link Request#lastHiddenStateOnlyAt}); else null.
     */
    private static int[] rowsRead(Batch batch, Request request) {
        if (WHOLE_LAST_LAYER || request.readRows() == null || request.allHiddenStates() || request.attentions()
                || request.queriesAndKeys()) {
            return null;
        }
        int[] rows = request.readRows();
        for (int[] headRows : request.heads().values()) {
            int[] more = headRows == null ? batch.firstRows() : headRows;
            int[] both = Arrays.copyOf(rows, rows.length + more.length);
            System.arraycopy(more, 0, both, rows.length, more.length);
            rows = both;
        }
        return rows;
    }

    /**
     * Sets every row of the last hidden state ([batch rows, hidden], padded layout) but those {@code read}, which the last
     * layer alone computed, to NaN: a reader that reads another anyway gets no plausible number.
     */
    private void unreadToNaN(float[] x, Batch batch, int[] read) {
        boolean[] isRead = new boolean[batch.rows()];
        for (int r : read) {
            isRead[r] = true;
        }
        int hidden = config.hiddenSize();
        for (int r = 0; r < isRead.length; r++) {
            if (!isRead[r]) {
                Arrays.fill(x, r * hidden, (r + 1) * hidden, Float.NaN);
            }
        }
    }

    /** The first encoder layer: the weights {@link SlowPathCheck} times the kernels with. */
    BertLayer firstLayer() {
        return encoder.layers().getFirst();
    }
}
