package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.ModelConfig;

/**
 * A post-LN encoder with positions in its attention and gated feed-forwards, the frame NomicBERT ({@link NomicBertModel}),
 * GTE ({@link GteModel}) and JinaBERT ({@link JinaBertModel}) are built in: embeddings (word, plus token type when the model
 * has a table) through a LayerNorm, then {@link PostNormLayer}s; no final norm. Each architecture loads the parts from its
 * own names and gives either the rotary frequencies for a padded batch length (the scaled rotary bases depend on it) or
 * a bias on the scores (ALiBi). Thread-safe.
 */
final class PostNormEncoder implements Encoder {
    /**
     * What an architecture loads.
     *
     * @param name          for messages ("NomicBERT")
     * @param config        the validated configuration
     * @param directory     the model directory
     * @param precision     how the matrices are held
     * @param words         the word embeddings, float32
     * @param types         the token type embeddings [types, hidden], or null without a table
     * @param embeddingNorm the embeddings' LayerNorm
     * @param layers        the layers
     * @param frequencies   the rotary inverse frequencies (one per pair of a head's columns) for a padded batch length, or
     *                      null without rotary positions
     * @param bias          a bias on each head's scores by the key's distance from the query, or null
     * @param heads         the heads the checkpoint has
     * @param labels        the classifier's labels, or null
     */
    record Parts(String name, ModelConfig config, Path directory, Precision precision, PackedMatrix words, float[] types,
                 LayerNorm embeddingNorm, List<PostNormLayer> layers, IntFunction<float[]> frequencies, RelativePositionBias bias,
                 Map<HeadKind, Head> heads, Labels labels) {
        Parts {
            layers = List.copyOf(layers);
            Map<HeadKind, Head> copy = new EnumMap<>(HeadKind.class);
            copy.putAll(heads);
            heads = Collections.unmodifiableMap(copy);
        }
    }

    /** A rotary table and the frequencies it was made from. */
    private record Table(float[] frequencies, Rotary rotary, int positions) {}

    private final Parts parts;
    private final int hidden;
    private final SlowPathCheck slowPathCheck = new SlowPathCheck();
    private final AtomicReference<Workspace> spare = new AtomicReference<>();
    private final AtomicReference<Table> table = new AtomicReference<>();

    PostNormEncoder(Parts parts) {
        this.parts = parts;
        this.hidden = parts.config().hiddenSize();
    }

    @Override
    public ModelConfig config() {
        return parts.config();
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
        return parts.words().bytes() + 4L * (parts.types() == null ? 0 : parts.types().length) + parts.embeddingNorm().bytes()
                + (parts.bias() == null ? 0 : 4L * parts.bias().rows().length)
                + parts.layers().stream().mapToLong(PostNormLayer::bytes).sum() + parts.heads().values().stream().mapToLong(Head::bytes).sum();
    }

    @Override
    public Set<HeadKind> heads() {
        return parts.heads().keySet();
    }

    @Override
    public Labels labels() {
        return parts.labels();
    }

    @Override
    public void requireHead(HeadKind kind, String consequence) {
        if (!parts.heads().containsKey(kind)) {
            throw new EngineException(parts.directory() + " has no " + kind.title() + " head (a " + parts.name()
                    + " checkpoint; config.json's architectures " + parts.config().architectures() + ")" + consequence);
        }
    }

    @Override
    public Output forward(Batch batch, Request request) {
        return forward(batch, request, RowLayout.padded(batch), out -> Passes.copied(out, hidden));
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

    /** The rotary table of a padded batch of {@code length}: the last one made, when its frequencies and length fit. */
    private Rotary rotary(int length) {
        if (parts.frequencies() == null) {
            return null;
        }
        float[] frequencies = parts.frequencies().apply(length);
        Table t = table.get();
        if (t == null || t.positions() < length || !Arrays.equals(t.frequencies(), frequencies)) {
            int positions = Math.max(length, Math.min(512, parts.config().maxTokens()));
            t = new Table(frequencies, Rotary.of(frequencies, positions, 0), positions);
            table.set(t);
        }
        return t.rotary();
    }

    private <T> T forward(Batch batch, Request request, RowLayout layout, Function<Output, T> reader) {
        Passes.check(this, batch, request);
        Rotary rotary = rotary(batch.length());
        int heads = parts.config().numAttentionHeads();
        PostNormLayer first = parts.layers().getFirst();
        return Passes.run(this, spare, batch, layout.rows(), hidden, 2 * first.mlp().inner(), ws -> {
            float[] x = ws.x;
            float[] types = parts.types();
            for (int b = 0; b < batch.size(); b++) {
                for (int i = 0; i < layout.lengths()[b]; i++) {
                    int at = (layout.starts()[b] + i) * hidden;
                    parts.words().copyRow(batch.ids()[b * batch.length() + i], x, at);
                    if (types != null) {
                        int from = batch.typeIds()[b * batch.length() + i] * hidden;
                        for (int c = 0; c < hidden; c++) {
                            x[at + c] += types[from + c];
                        }
                    }
                }
            }
            parts.embeddingNorm().apply(x, layout.rows(), x);
            ws.maskPadding(batch, layout);
            LayerOutputs kept = new LayerOutputs(request, batch, heads, layout.rows() * hidden);
            kept.state(x);
            for (PostNormLayer layer : parts.layers()) {
                layer.forward(x, layout, ws, rotary, parts.bias(), kept.probabilities());
                kept.queriesAndKeys(ws);
                kept.state(x);
            }
            if (!layout.isPadded(batch)) {
                layout.unpack(x, batch, hidden);
            }
            T result = reader.apply(kept.output(x, (kind, rows) -> parts.heads().get(kind).forward(x, rows)));
            slowPathCheck.passDone(new SlowPathCheck.Probe(first.output(), first.attnNorm(), first.mlp().inner(),
                    first.mlp().activation()), parts.config().headSize(), layout.rows(), layout.longest());
            return result;
        });
    }
}
