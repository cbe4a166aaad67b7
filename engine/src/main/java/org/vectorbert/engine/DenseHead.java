package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.loader.Family;
import org.vectorbert.loader.LoaderException;

/**
 * A head of linear layers, each followed by its activation, read at chosen rows: the sequence
 * classifiers (BERT's pooler and {@code classifier}; RoBERTa's {@code classifier.dense}, tanh,
 * {@code classifier.out_proj}; DistilBERT's {@code pre_classifier}, ReLU, {@code classifier};
 * ELECTRA's {@code classifier.dense}, GELU, {@code classifier.out_proj}), the token classifier
 * ({@code classifier}) and extractive QA's {@code qa_outputs} (start and end logits).
 *
 * @param layers      the linear layers, in order
 * @param activations after each: "tanh", "relu", "gelu" or "none"
 */
record DenseHead(List<PackedMatrix> layers, List<String> activations) implements Head {
    /**
     * The layers {@code dense} under {@code root}, all {@code hidden} wide but the last, which gives {@code outputs}
     * numbers ({@code what} says why that many, in a message when the checkpoint's last layer gives another count).
     */
    static DenseHead load(Scope root, List<Family.Dense> dense, int hidden, int outputs, String what) {
        List<PackedMatrix> layers = new ArrayList<>();
        List<String> activations = new ArrayList<>();
        for (int i = 0; i < dense.size(); i++) {
            Scope s = root.child(dense.get(i).name());
            boolean last = i == dense.size() - 1;
            if (last) {
                var w = s.checkpoint().find(s.name("weight"));
                if (w.isPresent() && w.get().shape().length == 2 && w.get().shape()[0] != outputs) {
                    throw new LoaderException(s.checkpoint().directory() + ": " + w.get().name() + " gives " + w.get().shape()[0]
                            + " outputs but " + what);
                }
            }
            layers.add(s.linear(hidden, last ? outputs : hidden));
            activations.add(dense.get(i).activation());
        }
        return new DenseHead(List.copyOf(layers), List.copyOf(activations));
    }

    @Override
    public int width() {
        return layers.getLast().out;
    }

    @Override
    public float[] forward(float[] x, int[] rows) {
        float[] h = Head.gather(x, rows, layers.getFirst().in);
        for (int i = 0; i < layers.size(); i++) {
            PackedMatrix m = layers.get(i);
            float[] out = new float[rows.length * m.out];
            m.apply(h, rows.length, out);
            switch (activations.get(i)) {
                case "tanh" -> Kernels.tanh(out, 0, out.length);
                case "relu" -> Kernels.activate(Activation.RELU, out, out.length);
                case "gelu" -> Kernels.activate(Activation.GELU, out, out.length);
                case "none" -> { }
                default -> throw new EngineException("unknown activation " + activations.get(i));
            }
            h = out;
        }
        return h;
    }

    @Override
    public long bytes() {
        return layers.stream().mapToLong(PackedMatrix::bytes).sum();
    }
}
