package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * What a request keeps of a pass's layers (hidden states, attention probabilities, queries and keys), collected as the
 * layers run, and the pass's {@link Encoder.Output}: the frame the architectures' encoders share around their layers.
 */
final class LayerOutputs {
    private final Encoder.Request request;
    private final Batch batch;
    private final int positions;
    private final int probabilities;
    private final List<float[]> hiddenStates = new ArrayList<>();
    private final List<float[]> attentions = new ArrayList<>();
    private final List<float[]> queries = new ArrayList<>();
    private final List<float[]> keys = new ArrayList<>();

    /** For {@code request}'s pass over {@code batch}: states of {@code positions} floats, {@code heads} heads a layer. */
    LayerOutputs(Encoder.Request request, Batch batch, int heads, int positions) {
        this.request = request;
        this.batch = batch;
        this.positions = positions;
        this.probabilities = batch.size() * heads * batch.length() * batch.length();
    }

    /** Keeps x, the state before the first layer or after one, when the request keeps hidden states. */
    void state(float[] x) {
        if (request.allHiddenStates()) {
            hiddenStates.add(Arrays.copyOf(x, positions));
        }
    }

    /** Puts x in place of the last state kept: transformers' last hidden state is the one after a final norm. */
    void replaceLastState(float[] x) {
        if (request.allHiddenStates()) {
            hiddenStates.set(hiddenStates.size() - 1, Arrays.copyOf(x, positions));
        }
    }

    /** {@return a layer's probabilities ([size, heads, length, length]) to fill, kept, when the request keeps them; else null} */
    float[] probabilities() {
        if (!request.attentions()) {
            return null;
        }
        float[] p = new float[probabilities];
        attentions.add(p);
        return p;
    }

    /** Keeps a layer's queries and keys (ws.q and ws.k, which the feed-forward leaves alone) when the request keeps them. */
    void queriesAndKeys(Workspace ws) {
        if (request.queriesAndKeys()) {
            queries.add(Arrays.copyOf(ws.q, positions));
            keys.add(Arrays.copyOf(ws.k, positions));
        }
    }

    /**
     * The pass's output: x ([batch rows, hidden], padded layout), what was kept, and each head the request asks for, given by
     * {@code head} at the rows asked (the batch's first rows unless the request names them).
     */
    Encoder.Output output(float[] x, BiFunction<HeadKind, int[], float[]> head) {
        Map<HeadKind, float[]> outputs = new EnumMap<>(HeadKind.class);
        request.heads().forEach((kind, rows) -> outputs.put(kind, head.apply(kind, rows == null ? batch.firstRows() : rows)));
        return new Encoder.Output(batch, x, List.copyOf(hiddenStates), List.copyOf(attentions), List.copyOf(queries), List.copyOf(keys),
                Collections.unmodifiableMap(outputs));
    }
}
