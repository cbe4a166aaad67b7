package org.vectorbert.engine;

import java.util.Arrays;
import java.util.List;
import org.vectorbert.loader.BertConfig;

/**
 * {@code bert.encoder}: the layers in order, and a pre-LN encoder's {@code final_layer_norm} after the last. MPNet's
 * {@code relative_attention_bias}, when the config has one, is read here and shared by every layer's attention.
 *
 * @param layers         layer.0 .. layer.(num_hidden_layers - 1)
 * @param finalLayerNorm final_layer_norm [hidden], or null (BERT has none)
 */
record BertEncoder(List<BertLayer> layers, LayerNorm finalLayerNorm) {
    static BertEncoder load(Scope scope, BertConfig c) {
        // Copying and packing a base model's 340 MB of layer weights is most of a load: the layers load in parallel.
        BertLayer[] layers = new BertLayer[c.numHiddenLayers()];
        RelativePositionBias bias = c.relativeAttentionBuckets() > 0 ? RelativePositionBias.load(scope, c) : null;
        Parallel.forRange(layers.length, 1, (from, to) -> {
            for (int l = from; l < to; l++) {
                layers[l] = BertLayer.load(scope.child("layer." + l), c, bias);
            }
        });
        return new BertEncoder(List.of(layers), c.finalLayerNorm() ? LayerNorm.load(scope.child("final_layer_norm"), c.hiddenSize(), c.layerNormEps()) : null);
    }

    /** Where a pass keeps what its request asks of each layer, layer after layer. */
    record Kept(List<float[]> hiddenStates, List<float[]> attentions, List<float[]> queries, List<float[]> keys) {}

    /**
     * Runs every layer over x ([layout.rows(), hidden], the embeddings' output) in place. When asked, keeps each
     * layer's output, attention probabilities, queries and keys (in the padded layout: BertModel packs no pass that asks).
     * With a {@code selection} (never with anything kept per layer), the last layer and the final LayerNorm compute the
     * selected rows alone, and leave the others as the layer before left them.
     */
    void forward(float[] x, Batch batch, RowLayout layout, Workspace ws, Encoder.Request request, Kept kept, RowSelection selection) {
        if (selection != null) {
            List<BertLayer> before = layers.subList(0, layers.size() - 1);
            for (BertLayer layer : before) {
                layer.forward(x, layout, ws, null);
            }
            layers.getLast().forwardAt(x, layout, selection, ws, finalLayerNorm);
            return;
        }
        int positions = layout.rows() * ws.hidden;
        for (BertLayer layer : layers) {
            float[] probabilities = null;
            if (request.attentions()) {
                int heads = layer.attention().heads();
                probabilities = new float[batch.size() * heads * batch.length() * batch.length()];
                kept.attentions().add(probabilities);
            }
            layer.forward(x, layout, ws, probabilities);
            if (request.queriesAndKeys()) {     // the rest of the layer leaves ws.q and ws.k alone
                kept.queries().add(Arrays.copyOf(ws.q, positions));
                kept.keys().add(Arrays.copyOf(ws.k, positions));
            }
            if (request.allHiddenStates()) {
                kept.hiddenStates().add(Arrays.copyOf(x, positions));
            }
        }
        if (finalLayerNorm != null) {
            finalLayerNorm.apply(x, layout.rows(), x);
            if (request.allHiddenStates()) {
                kept.hiddenStates().set(kept.hiddenStates().size() - 1, Arrays.copyOf(x, positions));
            }
        }
    }

    long bytes() {
        return layers.stream().mapToLong(BertLayer::bytes).sum() + (finalLayerNorm == null ? 0 : finalLayerNorm.bytes());
    }
}
