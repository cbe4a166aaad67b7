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
import org.vectorbert.loader.DebertaV2Config;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.ModelConfig;

/**
 * DeBERTa-v2 and v3 ({@link DebertaModel} loads it): embeddings (word, plus absolute positions when
 * position_biased_input, plus token types when the model has a table, through embed_proj when embedding_size is not
 * hidden_size) through a LayerNorm, then {@link DebertaLayer}s with the convolution after the first when the model has
 * one; no final norm. Thread-safe.
 */
final class DebertaEncoder implements Encoder {
    /**
     * What the loader reads.
     *
     * @param config        the validated configuration
     * @param directory     the model directory
     * @param precision     how the matrices are held
     * @param words         the word embeddings [vocab, embedding_size], float32
     * @param positions     the absolute position embeddings [max positions, embedding_size], or null
     * @param types         the token type embeddings [types, embedding_size], or null
     * @param embedProj     embed_proj [embedding_size -> hidden], or null
     * @param embeddingNorm the embeddings' LayerNorm
     * @param layers        the layers
     * @param conv          the convolution after the first layer, or null
     * @param heads         the heads the checkpoint has
     * @param labels        the classifier's labels, or null
     */
    record Parts(DebertaV2Config config, Path directory, Precision precision, PackedMatrix words, float[] positions, float[] types,
                 PackedMatrix embedProj, LayerNorm embeddingNorm, List<DebertaLayer> layers, DebertaConv conv,
                 Map<HeadKind, Head> heads, Labels labels) {
        Parts {
            layers = List.copyOf(layers);
            Map<HeadKind, Head> copy = new EnumMap<>(HeadKind.class);
            copy.putAll(heads);
            heads = Collections.unmodifiableMap(copy);
        }
    }

    private final Parts parts;
    private final int hidden;
    private final SlowPathCheck slowPathCheck = new SlowPathCheck();
    private final AtomicReference<Workspace> spare = new AtomicReference<>();

    DebertaEncoder(Parts parts) {
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
        long embeddings = parts.words().bytes() + 4L * (parts.positions() == null ? 0 : parts.positions().length)
                + 4L * (parts.types() == null ? 0 : parts.types().length) + (parts.embedProj() == null ? 0 : parts.embedProj().bytes())
                + parts.embeddingNorm().bytes();
        return embeddings + parts.layers().stream().mapToLong(DebertaLayer::bytes).sum() + (parts.conv() == null ? 0 : parts.conv().bytes())
                + parts.heads().values().stream().mapToLong(Head::bytes).sum();
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
            throw new EngineException(parts.directory() + " has no " + kind.title() + " head (a DeBERTa-v2 checkpoint; config.json's"
                    + " architectures " + parts.config().architectures() + ")" + consequence);
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

    /** Word, position and type embeddings of every real position into x, through embed_proj and the LayerNorm. */
    private void embed(Batch batch, RowLayout layout, float[] x) {
        int width = parts.config().embeddingSize();
        float[] e = parts.embedProj() == null ? x : new float[layout.rows() * width];
        float[] positions = parts.positions();
        float[] types = parts.types();
        for (int b = 0; b < batch.size(); b++) {
            for (int i = 0; i < layout.lengths()[b]; i++) {
                int at = (layout.starts()[b] + i) * width;
                parts.words().copyRow(batch.ids()[b * batch.length() + i], e, at);
                if (positions != null) {
                    for (int c = 0; c < width; c++) {
                        e[at + c] += positions[i * width + c];
                    }
                }
                if (types != null) {
                    int from = batch.typeIds()[b * batch.length() + i] * width;
                    for (int c = 0; c < width; c++) {
                        e[at + c] += types[from + c];
                    }
                }
            }
        }
        if (parts.embedProj() != null) {
            parts.embedProj().apply(e, layout.rows(), x);
        }
        parts.embeddingNorm().apply(x, layout.rows(), x);
    }

    private <T> T forward(Batch batch, Request request, RowLayout layout, Function<Output, T> reader) {
        Passes.check(this, batch, request);
        int heads = parts.config().numAttentionHeads();
        DebertaLayer first = parts.layers().getFirst();
        return Passes.run(this, spare, batch, layout.rows(), hidden, parts.config().intermediateSize(), ws -> {
            float[] x = ws.x;
            embed(batch, layout, x);
            ws.maskPadding(batch, layout);
            float[] embedded = parts.conv() == null ? null : Arrays.copyOf(x, layout.rows() * hidden);
            LayerOutputs kept = new LayerOutputs(request, batch, heads, layout.rows() * hidden);
            kept.state(x);
            for (int l = 0; l < parts.layers().size(); l++) {
                parts.layers().get(l).forward(x, layout, ws, kept.probabilities());
                kept.queriesAndKeys(ws);
                if (l == 0 && embedded != null) {
                    parts.conv().apply(embedded, x, batch, layout, ws);
                }
                kept.state(x);
            }
            if (!layout.isPadded(batch)) {
                layout.unpack(x, batch, hidden);
            }
            T result = reader.apply(kept.output(x, (kind, rows) -> parts.heads().get(kind).forward(x, rows)));
            slowPathCheck.passDone(new SlowPathCheck.Probe(first.attentionOutput().dense(), first.attentionOutput().layerNorm(),
                    parts.config().intermediateSize(), first.activation()), parts.config().headSize(), layout.rows(), layout.longest());
            return result;
        });
    }
}
