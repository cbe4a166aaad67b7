package org.vectorbert.engine;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.vectorbert.loader.ModelConfig;

/**
 * The frame every encoder's pass runs in: the checks of the batch and request, the layout, the plain first pass or the
 * vector kernels' directive, and the working buffers kept for the next pass.
 */
final class Passes {
    private Passes() {}

    /** The layout of a pass whose reader reads what {@code request} asks: no padding computed, unless it keeps anything per layer. */
    static RowLayout layout(Batch batch, Encoder.Request request) {
        boolean perLayer = request.allHiddenStates() || request.attentions() || request.queriesAndKeys();
        return perLayer ? RowLayout.padded(batch) : RowLayout.packed(batch);
    }

    /** {@code out} with a last hidden state of its own, [batch rows, hidden], the pass's buffer left to the next pass. */
    static Encoder.Output copied(Encoder.Output out, int hidden) {
        return new Encoder.Output(out.batch(), Arrays.copyOf(out.lastHiddenState(), out.batch().rows() * hidden), out.hiddenStates(),
                out.attentions(), out.queries(), out.keys(), out.heads());
    }

    /**
     * Runs {@code body} over a workspace for {@code batch} (the one {@code spare} kept, when it fits; else a new one of
     * {@code hidden} and {@code inner} wide rows), with the kernels a pass of {@code rows} rows of {@code encoder} runs: the
     * plain first pass, or the vector kernels with their compiler directive in place (once per JVM). The workspace is kept
     * for the next pass.
     */
    static <T> T run(Encoder encoder, AtomicReference<Workspace> spare, Batch batch, int rows, int hidden, int inner,
                     Function<Workspace, T> body) {
        boolean plain = PlainKernels.begin(rows, encoder.weightBytes() / (encoder.precision() == Precision.F32 ? 4 : 2));
        if (!plain) {
            KernelCompilation.ensure();
        }
        Workspace ws = spare.getAndSet(null);
        if (ws == null || !ws.fits(batch)) {
            ws = new Workspace(batch, hidden, inner);
        }
        try {
            return body.apply(ws);
        } finally {
            if (plain && !PlainKernels.EVERY_PASS) {
                PlainKernels.end();
                KernelCompilation.start();     // for the next pass, which runs the vector kernels; a one-shot command has exited by then
            }
            spare.set(ws);
        }
    }

    /** Throws, naming the first thing that does not fit: a sequence too long, an id or type id out of range, a row outside the batch, a head the model lacks. */
    static void check(Encoder encoder, Batch batch, Encoder.Request request) {
        ModelConfig config = encoder.config();
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
            encoder.requireHead(kind, kind == HeadKind.POOLER ? ": use cls or mean pooling" : "");
            for (int row : rows == null ? new int[0] : rows) {
                if (row < 0 || row >= batch.rows()) {
                    throw new EngineException(kind.title() + " row " + row + " is outside the batch");
                }
            }
        });
    }
}
