package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.loader.SentenceTransformersConfig;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFile;
import org.vectorbert.loader.TensorFiles;

/**
 * sentence-transformers' Dense modules after the pooling (EmbeddingGemma's 2_Dense and 3_Dense): each
 * activation(linear(x)) on the pooled vector, in modules.json's order, before the Matryoshka cut and the normalisation.
 *
 * @param layers each module's {@code linear}, packed in float32
 * @param tanh   per module, whether tanh follows (else the identity)
 */
record DenseModules(List<PackedMatrix> layers, List<Boolean> tanh) {
    static final DenseModules NONE = new DenseModules(List.of(), List.of());

    /** The modules {@code declared} names, the first taking vectors of {@code width}; shapes checked by name. */
    static DenseModules load(List<SentenceTransformersConfig.Dense> declared, int width) {
        List<PackedMatrix> layers = new ArrayList<>();
        List<Boolean> tanh = new ArrayList<>();
        int in = width;
        for (SentenceTransformersConfig.Dense d : declared) {
            if (d.in() != in) {
                throw new EngineException("Dense module '" + d.name() + "' takes vectors of " + d.in() + " (in_features), but the one before"
                        + " it gives " + in);
            }
            try (TensorFile file = TensorFile.open(d.weights())) {
                Tensor w = TensorFiles.checked(d.weights(), file.tensor("linear.weight"), d.out(), d.in());
                Tensor b = d.bias() ? TensorFiles.checked(d.weights(), file.tensor("linear.bias"), d.out()) : null;
                layers.add(PackedMatrix.pack(w, b, Precision.F32));
            }
            tanh.add(d.tanh());
            in = d.out();
        }
        return new DenseModules(layers, tanh);
    }

    /** {@return the width of what comes out: the last module's out_features, or {@code width} without modules} */
    int width(int width) {
        return layers.isEmpty() ? width : layers.getLast().out;
    }

    /** The modules over one pooled vector. */
    float[] apply(float[] x) {
        for (int i = 0; i < layers.size(); i++) {
            float[] y = new float[layers.get(i).out];
            layers.get(i).apply(x, 1, y);
            if (tanh.get(i)) {
                Kernels.tanh(y, 0, y.length);
            }
            x = y;
        }
        return x;
    }

    long bytes() {
        return layers.stream().mapToLong(PackedMatrix::bytes).sum();
    }
}
