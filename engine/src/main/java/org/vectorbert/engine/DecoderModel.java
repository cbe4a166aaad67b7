package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.ModelConfig;

/**
 * A decoder-shaped embedder's frame (Qwen3's {@code Qwen3Model}, Gemma 3's {@code Gemma3TextModel}): the word embeddings
 * (scaled, in Gemma), {@link DecoderLayer}s, a final RMSNorm, and the heads the checkpoint has. Each architecture's loader
 * ({@link Qwen3Model}, {@link Gemma3Model}) reads its own names into {@link Parts}. Each sequence's positions count from
 * its first real token (the pass holds no padding), as text-embeddings-inference does; a left-padded transformers batch
 * differs only by the rounding of its float32 angles. Thread-safe: a pass keeps its buffers to itself.
 */
final class DecoderModel implements Encoder {
    /**
     * What an architecture's loader reads.
     *
     * @param name       the architecture, for messages
     * @param config     the validated configuration
     * @param directory  the model directory
     * @param precision  how the matrices are held
     * @param words      the word embeddings, float32
     * @param embedScale what each looked-up row is multiplied by (Gemma's √hidden; 1 for none)
     * @param layers     the layers
     * @param finalNorm  the norm after the last layer
     * @param thetas     the rotary bases the layers' tables are made from, by {@link DecoderLayer#table()}
     * @param heads      the heads
     */
    record Parts(String name, ModelConfig config, Path directory, Precision precision, PackedMatrix words, float embedScale,
                 List<DecoderLayer> layers, RmsNorm finalNorm, double[] thetas, Map<HeadKind, Head> heads) {}

    private final Parts parts;
    private final ModelConfig config;
    private final SlowPathCheck slowPathCheck = new SlowPathCheck();
    private final SlowPathCheck.Probe probe;           // the first layer's o_proj and MLP; a LayerNorm of its width
    private final AtomicReference<Rotary[]> rotary = new AtomicReference<>();
    private final AtomicReference<Workspace> spare = new AtomicReference<>();

    DecoderModel(Parts parts) {
        this.parts = parts;
        this.config = parts.config();
        DecoderLayer first = parts.layers().getFirst();
        probe = new SlowPathCheck.Probe(first.output(), new LayerNorm(parts.finalNorm().weight(), new float[config.hiddenSize()],
                parts.finalNorm().eps()), first.mlp().inner(), first.mlp().activation());
    }

    /** The word embeddings (tied) or lm_head at the rows asked: next-token logits. */
    record LogitsHead(PackedMatrix matrix, boolean tied) implements Head {
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

    @Override
    public ModelConfig config() {
        return config;
    }

    @Override
    public Path directory() {
        return parts.directory();
    }

    @Override
    public Precision precision() {
        return parts.precision();
    }

    @Override
    public long weightBytes() {
        return parts.words().bytes() + parts.finalNorm().bytes() + parts.layers().stream().mapToLong(DecoderLayer::bytes).sum()
                + parts.heads().values().stream().mapToLong(Head::bytes).sum();
    }

    @Override
    public Set<HeadKind> heads() {
        return Collections.unmodifiableSet(parts.heads().keySet());
    }

    @Override
    public Labels labels() {
        return null;
    }

    @Override
    public void requireHead(HeadKind kind, String consequence) {
        if (!parts.heads().containsKey(kind)) {
            throw new EngineException(parts.directory() + " has no " + kind.title() + " head (config.json's architectures "
                    + config.architectures() + (kind == HeadKind.MASKED_LM && config.causal()
                            ? "; " + parts.name() + " is a causal model, with no masked-LM head" : "") + ")" + consequence);
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

    /** The rotary tables for {@code length} positions, one per base: the last ones made, when they are long enough. */
    private Rotary[] rotary(int length) {
        Rotary[] r = rotary.get();
        int d = config.headSize();
        if (r == null || r[0].cos().length < length * d / 2) {
            int positions = Math.max(length, Math.min(512, config.maxTokens()));
            r = new Rotary[parts.thetas().length];
            for (int i = 0; i < r.length; i++) {
                r[i] = Rotary.of(parts.thetas()[i], d, positions);
            }
            rotary.set(r);
        }
        return r;
    }

    private <T> T forward(Batch batch, Request request, RowLayout layout, Function<Output, T> reader) {
        Passes.check(this, batch, request);
        DecoderLayer first = parts.layers().getFirst();
        int hidden = config.hiddenSize();
        if (request.queriesAndKeys() && (first.kvHeads() != first.heads() || first.heads() * first.headSize() != hidden)) {
            throw new EngineException("queries and keys are kept only for heads as wide as the hidden state, one key/value head each"
                    + " (here " + first.heads() + " query heads of " + first.headSize() + ", " + first.kvHeads() + " key/value heads, hidden "
                    + hidden + ")");
        }
        int width = Math.max(hidden, first.heads() * first.headSize());
        Rotary[] tables = rotary(batch.length());
        PackedMatrix words = parts.words();
        return Passes.run(this, spare, batch, layout.rows(), width, 2 * first.mlp().inner(), ws -> {
            float[] x = ws.x;
            for (int b = 0; b < batch.size(); b++) {
                for (int i = 0; i < layout.lengths()[b]; i++) {
                    words.copyRow(batch.ids()[b * batch.length() + i], x, (layout.starts()[b] + i) * hidden);
                }
            }
            if (parts.embedScale() != 1f) {
                for (int i = 0; i < layout.rows() * hidden; i++) {
                    x[i] *= parts.embedScale();
                }
            }
            ws.maskPadding(batch, layout);
            LayerOutputs kept = new LayerOutputs(request, batch, config.numAttentionHeads(), layout.rows() * hidden);
            kept.state(x);
            for (DecoderLayer layer : parts.layers()) {
                layer.forward(x, layout, ws, tables[layer.table()], kept.probabilities());
                kept.queriesAndKeys(ws);
                kept.state(x);
            }
            parts.finalNorm().apply(x, layout.rows(), x);
            kept.replaceLastState(x);
            if (!layout.isPadded(batch)) {
                layout.unpack(x, batch, hidden);
            }
            T result = reader.apply(kept.output(x, (kind, rows) -> parts.heads().get(kind).forward(x, rows)));
            slowPathCheck.passDone(probe, config.headSize(), layout.rows(), layout.longest());
            return result;
        });
    }
}
