package org.vectorbert.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Set;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.ModelConfig;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;

/**
 * What a model directory holds, read as its architecture reads it but without loading the model: what
 * {@code vectorbert inspect} shows ({@link Encoder#inspect}).
 *
 * @param family         the architecture, or the BERT family ("BERT", "RoBERTa", "MPNet", "ModernBERT")
 * @param config         the validated configuration
 * @param shape          its sizes and how its layers are built, in words ("hidden 768, 12 heads, ..., post-LN")
 * @param configJson     the configuration's keys and values, as the architecture reads them
 * @param tensors        every tensor of the weights, in the checkpoint's order
 * @param heads          the heads the checkpoint has
 * @param contradictions where config.json and the weights disagree, one sentence each: the model will not load
 */
public record Inspection(String family, ModelConfig config, String shape, JsonNode configJson, List<TensorEntry> tensors,
                         Set<HeadKind> heads, List<String> contradictions) {
    /** Copies the lists and the set. */
    public Inspection {
        tensors = List.copyOf(tensors);
        heads = Set.copyOf(heads);
        contradictions = List.copyOf(contradictions);
    }

    /** Notes where the word embeddings {@code name} disagree with config.json's vocab_size or hidden_size. */
    static void checkEmbeddings(TensorFiles files, String name, ModelConfig c, List<String> contradictions) {
        files.find(name).filter(t -> t.shape().length == 2).ifPresent(t -> {
            if (t.shape()[0] != c.vocabSize()) {
                contradictions.add("config.json says vocab_size " + c.vocabSize() + " but " + t.name() + " has " + t.shape()[0] + " rows");
            }
            if (t.shape()[1] != c.hiddenSize()) {
                contradictions.add("config.json says hidden_size " + c.hiddenSize() + " but " + t.name() + " is " + t.shape()[1] + " wide");
            }
        });
    }

    /** Notes when the weights hold another number of layers {@code prefix}N. than config.json's num_hidden_layers. */
    static void checkLayers(TensorFiles files, String prefix, ModelConfig c, List<String> contradictions) {
        long layers = files.tensors().keySet().stream().filter(n -> n.startsWith(prefix) && n.indexOf('.', prefix.length()) > 0)
                .map(n -> n.substring(prefix.length(), n.indexOf('.', prefix.length()))).distinct().count();
        if (layers != c.numHiddenLayers()) {
            contradictions.add("config.json says num_hidden_layers " + c.numHiddenLayers() + " but the weights hold " + layers + " layers");
        }
    }

    /**
     * One tensor of the weights.
     *
     * @param name  its name in the checkpoint
     * @param dtype its element type
     * @param shape its dimensions
     * @param bytes the bytes of its data
     */
    public record TensorEntry(String name, DType dtype, long[] shape, long bytes) {
        /** Copies the shape. */
        public TensorEntry {
            shape = shape.clone();
        }

        static TensorEntry of(Tensor t) {
            return new TensorEntry(t.name(), t.dtype(), t.shape(), t.data().byteSize());
        }

        /** {@return its number of elements} */
        public long elementCount() {
            return Tensor.elementCount(shape);
        }

        /** {@return its dimensions, a copy} */
        @Override
        public long[] shape() {
            return shape.clone();
        }
    }

    /** {@return the number of parameters: every tensor's elements} */
    public long parameterCount() {
        return tensors.stream().mapToLong(TensorEntry::elementCount).sum();
    }

    /** {@return the bytes of every tensor's data} */
    public long byteCount() {
        return tensors.stream().mapToLong(TensorEntry::bytes).sum();
    }
}
