package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
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
    private final Optional<BertPooler> pooler;         // bert.pooler
    private final Optional<BertMlmHead> mlmHead;       // cls.predictions
    /** Why fill-mask cannot run, when there is no MLM head. */
    private final String noMlmHead;
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
        embeddings = BertEmbeddings.load(bert.child("embeddings"), config);
        encoder = BertEncoder.load(bert.child("encoder"), config);
        pooler = BertPooler.load(bert.child("pooler"), config);
        Scope cls = root.child("cls.predictions");
        mlmHead = BertMlmHead.load(cls, config, embeddings);
        noMlmHead = mlmHead.isPresent() ? null : directory + " has no masked-language-model head (missing "
                + String.join(", ", BertMlmHead.missing(cls)) + "): it can give embeddings but not fill-mask";
    }

    /** Opens a Hugging Face model directory in float32. */
    public static BertModel load(Path directory) {
        return load(directory, Precision.F32);
    }

    /** Opens a Hugging Face model directory with its matrices held at {@code precision}; the checkpoint is closed after. */
    public static BertModel load(Path directory, Precision precision) {
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
     * Which optional heads an opened checkpoint has, decided as loading decides it, without loading.
     *
     * @param pooler  {@code bert.pooler}
     * @param mlmHead {@code cls.predictions} (fill-mask)
     */
    public record Heads(boolean pooler, boolean mlmHead) {
        public static Heads of(BertCheckpoint checkpoint) {
            Scope root = Scope.root(checkpoint, Precision.F32);
            return new Heads(BertPooler.isIn(root.child("bert.pooler")), BertMlmHead.isIn(root.child("cls.predictions")));
        }
    }

    /** How the weight matrices are held. */
    public Precision precision() {
        return precision;
    }

    /** Bytes of weights the model holds in memory (a tied decoder counted once). */
    public long weightBytes() {
        return embeddings.bytes() + encoder.bytes() + pooler.map(BertPooler::bytes).orElse(0L)
                + mlmHead.map(BertMlmHead::bytes).orElse(0L);
    }

    /** The validated configuration the weights were checked against. */
    public BertConfig config() {
        return config;
    }

    /** The model directory the weights came from. */
    public Path directory() {
        return directory;
    }

    /** Whether the checkpoint has the pooler ({@code bert.pooler.dense}). */
    public boolean hasPooler() {
        return pooler.isPresent();
    }

    /** Whether the checkpoint has a complete masked-language-model head ({@code cls.predictions}). */
    public boolean hasMlmHead() {
        return mlmHead.isPresent();
    }

    /**
     * Refuses a tokenizer whose ids run past the word embeddings: a token the weights have no row for
     * would fail deep in a forward pass, or (as a fill-mask target) index past the scores.
     */
    void requireFits(Tokenizer tokenizer) {
        int tokens = tokenizer.vocabSize();
        if (tokens > config.vocabSize()) {
            throw new EngineException("the tokenizer's vocabulary has " + tokens + " tokens but the model's word embeddings have "
                    + config.vocabSize() + " rows (" + directory + "): the tokenizer files do not belong to these weights");
        }
    }

    /** Throws, naming what is missing, when the model has no masked-language-model head. */
    void requireMlmHead() {
        if (noMlmHead != null) {
            throw new EngineException(noMlmHead);
        }
    }

    /** What a forward pass should return beyond the last hidden state. */
    public record Request(boolean allHiddenStates, boolean attentions, boolean queriesAndKeys, boolean pooled, int[] mlmRows) {
        /** The last hidden state only: the cheapest request. */
        public static Request lastHiddenState() {
            return new Request(false, false, false, false, new int[0]);
        }

        /** Also every layer's output, embeddings first, as transformers' {@code hidden_states}. */
        public Request withAllHiddenStates() {
            return new Request(true, attentions, queriesAndKeys, pooled, mlmRows);
        }

        /** Also each layer's attention probabilities. */
        public Request withAttentions() {
            return new Request(allHiddenStates, true, queriesAndKeys, pooled, mlmRows);
        }

        /**
         * Also each layer's queries and keys, after the projection (bias included) and before the
         * scores: what bertviz's neuron view shows.
         */
        public Request withQueriesAndKeys() {
            return new Request(allHiddenStates, attentions, true, pooled, mlmRows);
        }

        /** Also the pooler output, tanh(W·h[CLS] + b), per sequence. */
        public Request withPooled() {
            return new Request(allHiddenStates, attentions, queriesAndKeys, true, mlmRows);
        }

        /** MLM logits at these rows of the batch (row = sequence · length + position). */
        public Request withMlmLogitsAt(int... rows) {
            return new Request(allHiddenStates, attentions, queriesAndKeys, pooled, rows.clone());
        }
    }

    /**
     * The results of a forward pass; arrays are row-major.
     *
     * @param lastHiddenState [size, length, hidden]
     * @param hiddenStates    embedding output and every layer's output, each [size, length, hidden]; empty unless asked
     * @param attentions      per layer, probabilities [size, heads, length, length]; empty unless asked
     * @param queries         per layer, [size, length, hidden] with head h in columns h·d .. h·d + d - 1; empty unless asked
     * @param keys            per layer, laid out as queries; empty unless asked
     * @param pooled          [size, hidden], or null unless asked
     * @param mlmLogits       [rows asked, vocab], or null unless asked
     */
    public record Output(Batch batch, float[] lastHiddenState, List<float[]> hiddenStates, List<float[]> attentions,
                         List<float[]> queries, List<float[]> keys, float[] pooled, float[] mlmLogits) {}

    /** Runs the encoder, and the heads asked for, over a batch. */
    public Output forward(Batch batch, Request request) {
        return forward(batch, request, out -> new Output(batch, Arrays.copyOf(out.lastHiddenState(), batch.rows() * config.hiddenSize()),
                out.hiddenStates(), out.attentions(), out.queries(), out.keys(), out.pooled(), out.mlmLogits()));
    }

    /**
     * Runs the encoder over a batch and hands the output to {@code reader}, whose last hidden state is
     * the pass's own buffer: valid only inside {@code reader}, and possibly longer than the batch needs.
     * The pipelines read what they need from it, so a steady stream of batches allocates no hidden
     * state: a new 6 to 13 MB array per batch went straight to the old generation and grew the heap.
     */
    <T> T forward(Batch batch, Request request, Function<Output, T> reader) {
        check(batch, request);
        boolean plain = PlainKernels.begin(batch.rows());
        if (!plain) {
            KernelCompilation.ensure();    // the vector kernels run: their directive must be in place (once per JVM)
        }
        Workspace ws = spare.getAndSet(null);
        if (ws == null || !ws.fits(batch)) {
            ws = new Workspace(batch, config);
        }
        try {
            float[] x = ws.x;
            embeddings.forward(batch, x);
            ws.maskPadding(batch);
            List<float[]> hiddenStates = new ArrayList<>();
            List<float[]> attentions = new ArrayList<>();
            List<float[]> queries = new ArrayList<>();
            List<float[]> keys = new ArrayList<>();
            if (request.allHiddenStates()) {
                hiddenStates.add(Arrays.copyOf(x, batch.rows() * config.hiddenSize()));
            }
            encoder.forward(x, batch, ws, request, new BertEncoder.Kept(hiddenStates, attentions, queries, keys));
            float[] pooled = request.pooled() ? pooler.orElseThrow().forward(x, batch) : null;
            float[] logits = request.mlmRows().length > 0 ? mlmHead.orElseThrow().forward(x, request.mlmRows()) : null;
            T result = reader.apply(new Output(batch, x, List.copyOf(hiddenStates), List.copyOf(attentions), List.copyOf(queries),
                    List.copyOf(keys), pooled, logits));
            slowPathCheck.passDone(firstLayer(), config.headSize(), batch.rows(), batch.length());
            return result;
        } finally {
            if (plain) {
                PlainKernels.end();
                KernelCompilation.start();     // for the next pass, which runs the vector kernels; a one-shot command has exited by then
            }
            spare.set(ws);
        }
    }

    /** The first encoder layer: the weights {@link SlowPathCheck} times the kernels with. */
    BertLayer firstLayer() {
        return encoder.layers().getFirst();
    }

    private void check(Batch batch, Request request) {
        if (batch.length() > config.maxPositionEmbeddings()) {
            throw new EngineException("a sequence of " + batch.length() + " tokens is longer than the model's maximum of "
                    + config.maxPositionEmbeddings() + " positions; truncate it to " + config.maxPositionEmbeddings()
                    + " tokens");
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
        if (request.pooled() && pooler.isEmpty()) {
            throw new EngineException(directory + " has no pooler (bert.pooler.dense.*): use cls or mean pooling");
        }
        if (request.mlmRows().length > 0) {
            requireMlmHead();
            for (int row : request.mlmRows()) {
                if (row < 0 || row >= batch.rows()) {
                    throw new EngineException("MLM row " + row + " is outside the batch");
                }
            }
        }
    }
}
