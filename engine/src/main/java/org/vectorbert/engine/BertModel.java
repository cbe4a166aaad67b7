package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Labels;
import org.vectorbert.tokenizer.Tokenizer;

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
public final class BertModel {
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
            kind.find(root, config, embeddings).ifPresentOrElse(h -> heads.put(kind, h),
                    () -> missingHeads.put(kind, directory + " has no " + kind.title() + " head (missing "
                            + String.join(", ", kind.missing(root)) + ")"));
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
            if (kind.isIn(root)) {
                found.add(kind);
            }
        }
        return found;
    }

    /** {@return how the weight matrices are held} */
    public Precision precision() {
        return precision;
    }

    /** {@return bytes of weights the model holds in memory (a tied decoder counted once)} */
    public long weightBytes() {
        return embeddings.bytes() + encoder.bytes() + heads.values().stream().mapToLong(Head::bytes).sum();
    }

    /** {@return the validated configuration the weights were checked against} */
    public BertConfig config() {
        return config;
    }

    /** {@return the model directory the weights came from} */
    public Path directory() {
        return directory;
    }

    /**
     * Bits per vector of this JVM's kernels (128, 256 or 512): the machine's preferred shape, or
     * {@code -Dvectorbert.vector.bits}. The packed weights' layout depends on it; {@code vectorbert --version} prints it.
     *
     * @return the bits per vector
     */
    public static int vectorBits() {
        return Lanes.BITS;
    }

    /** {@return whether the checkpoint has the pooler ({@code bert.pooler.dense})} */
    public boolean hasPooler() {
        return heads.containsKey(HeadKind.POOLER);
    }

    /** {@return whether the checkpoint has a complete masked-language-model head ({@code cls.predictions} or the family's)} */
    public boolean hasMlmHead() {
        return heads.containsKey(HeadKind.MASKED_LM);
    }

    /** {@return config.json's labels of the classifier's outputs ({@code id2label}, {@code problem_type}); null without a classifier} */
    public Labels labels() {
        return labels;
    }

    /** {@return the heads the checkpoint has} */
    public Set<HeadKind> heads() {
        return Collections.unmodifiableSet(heads.keySet());
    }

    /**
     * Refuses a tokenizer whose ids run past the word embeddings: a token the weights have no row for
     * would fail deep in a forward pass, or (as a fill-mask target) index past the scores.
     */
    void requireFits(Tokenizer tokenizer) {
        tokenizerMismatch(tokenizer, config).ifPresent(why -> {
            throw new EngineException(why + " (" + directory + "): the tokenizer files do not belong to these weights");
        });
    }

    /**
     * Why {@code tokenizer} does not fit weights with {@code config}'s vocabulary, or empty: its ids must not run past
     * the word embeddings. The one check behind loading a model and {@code vectorbert inspect}'s problems.
     *
     * @param tokenizer the tokenizer
     * @param config    the weights' configuration
     * @return the reason, one sentence
     */
    public static Optional<String> tokenizerMismatch(Tokenizer tokenizer, BertConfig config) {
        int tokens = tokenizer.vocabSize();
        return tokens > config.vocabSize()
                ? Optional.of("the tokenizer's vocabulary has " + tokens + " tokens but the model's word embeddings have "
                        + config.vocabSize() + " rows (vocab_size)")
                : Optional.empty();
    }

    /** Throws, naming what is missing, when the model has no masked-language-model head. */
    void requireMlmHead() {
        // An ELECTRA discriminator never has one: its masked LM is the generator, another model of the same checkpoint.
        boolean discriminator = config.architectures().contains("ElectraForPreTraining");
        requireHead(HeadKind.MASKED_LM, ": it can give embeddings but not fill-mask" + (discriminator ? " (it is an ELECTRA"
                + " discriminator; fill-mask needs its generator: a *-generator model, or vectorbert convert --from-tf CHECKPOINT"
                + " --electra-generator)" : ""));
    }

    /** Throws, naming what is missing and then {@code consequence}, when the model lacks {@code kind}. */
    void requireHead(HeadKind kind, String consequence) {
        if (!heads.containsKey(kind)) {
            throw new EngineException(missingHeads.get(kind) + consequence);
        }
    }

    /**
     * What a forward pass should return beyond the last hidden state.
     *
     * @param heads           the heads to run, each at the rows of the batch given (row = sequence · length +
     *                        position); null rows mean the first token of each sequence
     * @param readRows        the rows of the batch at which the caller reads the last hidden state, beside the heads'
     *                        rows, or null for every row (see {@link #lastHiddenStateOnlyAt})
     * @param allHiddenStates whether to keep every layer's output
     * @param attentions      whether to keep each layer's attention probabilities
     * @param queriesAndKeys  whether to keep each layer's queries and keys
     */
    public record Request(boolean allHiddenStates, boolean attentions, boolean queriesAndKeys, Map<HeadKind, int[]> heads,
                          int[] readRows) {
        /** Copies the heads' map and the rows. */
        public Request {
            Map<HeadKind, int[]> copy = new EnumMap<>(HeadKind.class);
            copy.putAll(heads);
            heads = Collections.unmodifiableMap(copy);
            readRows = readRows == null ? null : readRows.clone();
        }

        /** {@return the last hidden state only: the cheapest request} */
        public static Request lastHiddenState() {
            return new Request(false, false, false, Map.of(), null);
        }

        /**
         * The caller reads the last hidden state at these rows of the batch alone (row = sequence · length + position),
         * beside the heads' rows: none for a fill-mask or a classifier, each [CLS] for [CLS] pooling. The last layer then
         * computes only those rows (the same floats as in the whole pass), and every other row of the output's last
         * hidden state is NaN. Ignored when the request keeps anything per layer, or asks for a padding position.
         *
         * @param rows rows of the batch (row = sequence · length + position)
         * @return a new request
         */
        public Request lastHiddenStateOnlyAt(int... rows) {
            return new Request(allHiddenStates, attentions, queriesAndKeys, heads, rows);
        }

        /**
         * Also every layer's output, embeddings first, as transformers' {@code hidden_states}.
         *
         * @return a new request
         */
        public Request withAllHiddenStates() {
            return new Request(true, attentions, queriesAndKeys, heads, readRows);
        }

        /**
         * Also each layer's attention probabilities.
         *
         * @return a new request
         */
        public Request withAttentions() {
            return new Request(allHiddenStates, true, queriesAndKeys, heads, readRows);
        }

        /**
         * Also each layer's queries and keys, after the projection (bias included) and before the
         * scores: what bertviz's neuron view shows.
         *
         * @return a new request
         */
        public Request withQueriesAndKeys() {
            return new Request(allHiddenStates, attentions, true, heads, readRows);
        }

        /**
         * Also the head {@code kind} at these rows of the batch (row = sequence · length + position); null for each
         * sequence's first token.
         *
         * @param kind the head
         * @param rows rows of the batch, or null for each sequence's first token
         * @return a new request
         */
        public Request withHead(HeadKind kind, int[] rows) {
            Map<HeadKind, int[]> more = new EnumMap<>(HeadKind.class);
            more.putAll(heads);
            more.put(kind, rows == null ? null : rows.clone());
            return new Request(allHiddenStates, attentions, queriesAndKeys, more, readRows);
        }

        /**
         * Also the pooler output, tanh(W·h[CLS] + b), per sequence.
         *
         * @return a new request
         */
        public Request withPooled() {
            return withHead(HeadKind.POOLER, null);
        }

        /**
         * MLM logits at these rows of the batch (row = sequence · length + position).
         *
         * @param rows rows of the batch (row = sequence · length + position)
         * @return a new request
         */
        public Request withMlmLogitsAt(int... rows) {
            return withHead(HeadKind.MASKED_LM, rows);
        }
    }

    /**
     * The results of a forward pass; arrays are row-major.
     *
     * @param lastHiddenState [size, length, hidden]
     * @param hiddenStates    embedding output and every layer's output, each [size, length, hidden]; empty unless asked
     * @param attentions      per layer, probabilities [size, heads, length, length]; empty unless asked
     * @param queries         per layer, [size, length, hidden] with head h in columns h·d .. h·d + d - 1; empty
     *                        unless asked
     * @param keys            per layer, laid out as queries; empty unless asked
     * @param heads           each head asked for: [rows asked, the head's width]
     * @param batch           the batch the pass ran over
     */
    public record Output(Batch batch, float[] lastHiddenState, List<float[]> hiddenStates, List<float[]> attentions,
                         List<float[]> queries, List<float[]> keys, Map<HeadKind, float[]> heads) {
        /** {@return the pooler output, [size, hidden], or null unless asked} */
        public float[] pooled() {
            return heads.get(HeadKind.POOLER);
        }

        /** {@return MLM logits, [rows asked, vocab], or null unless asked} */
        public float[] mlmLogits() {
            return heads.get(HeadKind.MASKED_LM);
        }
    }

    /**
     * Runs the encoder, and the heads asked for, over a batch. Padded positions hold what transformers computes there
     * (their queries attend to the real keys).
     *
     * @param batch   token ids, padded to one length
     * @param request what to return beyond the last hidden state
     * @return the results
     */
    public Output forward(Batch batch, Request request) {
        return forward(batch, request, RowLayout.padded(batch), out -> new Output(batch,
                Arrays.copyOf(out.lastHiddenState(), batch.rows() * config.hiddenSize()),
                out.hiddenStates(), out.attentions(), out.queries(), out.keys(), out.heads()));
    }

    /**
     * Runs the encoder over a batch and hands the output to {@code reader}, whose last hidden state is
     * the pass's own buffer: valid only inside {@code reader}, and possibly longer than the batch needs.
     * The pipelines read what they need from it, so a steady stream of batches allocates no hidden
     * state: a new array of several MB per batch goes straight to the old generation and grows the heap.
     *
     * <p>For the pipelines, which read real positions only: the pass computes no padding ({@link RowLayout#packed}),
     * and the padded rows of the last hidden state are zeros; a request for all hidden states, attentions or queries
     * and keys gets the padded layout, as {@link #forward(Batch, Request)} does.
     */
    <T> T forward(Batch batch, Request request, Function<Output, T> reader) {
        boolean perLayer = request.allHiddenStates() || request.attentions() || request.queriesAndKeys();
        return forward(batch, request, perLayer ? RowLayout.padded(batch) : RowLayout.packed(batch), reader);
    }

    private <T> T forward(Batch batch, Request request, RowLayout layout, Function<Output, T> reader) {
        check(batch, request);
        boolean plain = PlainKernels.begin(layout.rows());
        if (!plain) {
            KernelCompilation.ensure();    // the vector kernels run: their directive must be in place (once per JVM)
        }
        Workspace ws = spare.getAndSet(null);
        if (ws == null || !ws.fits(batch)) {
            ws = new Workspace(batch, config);
        }
        try {
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
            request.heads().forEach((kind, rows) -> headOutputs.put(kind, heads.get(kind).forward(x, rows == null ? firstRows(batch) : rows)));
            T result = reader.apply(new Output(batch, x, List.copyOf(hiddenStates), List.copyOf(attentions), List.copyOf(queries),
                    List.copyOf(keys), Collections.unmodifiableMap(headOutputs)));
            slowPathCheck.passDone(firstLayer(), config.headSize(), layout.rows(), layout.longest());
            return result;
        } finally {
            if (plain && !PlainKernels.EVERY_PASS) {
                PlainKernels.end();
                KernelCompilation.start();     // for the next pass, which runs the vector kernels; a one-shot command has exited by then
            }
            spare.set(ws);
        }
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
            int[] more = headRows == null ? firstRows(batch) : headRows;
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

    /** The first token's row of each sequence of {@code batch}. */
    static int[] firstRows(Batch batch) {
        int[] rows = new int[batch.size()];
        for (int b = 0; b < rows.length; b++) {
            rows[b] = b * batch.length();
        }
        return rows;
    }

    /** The first encoder layer: the weights {@link SlowPathCheck} times the kernels with. */
    BertLayer firstLayer() {
        return encoder.layers().getFirst();
    }

    private void check(Batch batch, Request request) {
        if (batch.length() > config.maxTokens()) {
            throw new EngineException("a sequence of " + batch.length() + " tokens is longer than the model's maximum of "
                    + config.maxTokens() + " positions; truncate it to " + config.maxTokens() + " tokens");
        }
        for (int i = 0; i < batch.ids().length; i++) {
            int id = batch.ids()[i];
            if (id < 0 || id >= config.vocabSize()) {
                throw new EngineException("token id " + id + " is outside the model's vocabulary (0.." + (config.vocabSize() - 1) + ")");
            }
            int type = batch.typeIds()[i];
            if (config.hasTokenTypes() && (type < 0 || type >= config.typeVocabSize())) {
                throw new EngineException("token type id " + type + " is outside 0.." + (config.typeVocabSize() - 1));
            }
        }
        for (int row : request.readRows() == null ? new int[0] : request.readRows()) {
            if (row < 0 || row >= batch.rows()) {
                throw new EngineException("last hidden state row " + row + " is outside the batch");
            }
        }
        request.heads().forEach((kind, rows) -> {
            requireHead(kind, kind == HeadKind.POOLER ? ": use cls or mean pooling" : "");
            for (int row : rows == null ? new int[0] : rows) {
                if (row < 0 || row >= batch.rows()) {
                    throw new EngineException(kind.title() + " row " + row + " is outside the batch");
                }
            }
        });
    }
}
