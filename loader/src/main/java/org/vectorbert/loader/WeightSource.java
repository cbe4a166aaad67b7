package org.vectorbert.loader;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * An opened checkpoint's tensors by name, whatever architecture reads them: what the engine's blocks and its packed-weights
 * cache need. {@link BertCheckpoint} finds BERT's names through a family's renames; {@link TensorFiles} takes names as the
 * files spell them.
 */
public interface WeightSource {
    /** {@return the model directory} */
    Path directory();

    /** {@return the files the weights are read from (safetensors or PyTorch)} A packed copy of them is checked against these. */
    List<Path> weightFiles();

    /**
     * The weight named {@code name}.
     *
     * @param name the weight's name
     * @return the tensor, or empty when the checkpoint has none
     */
    Optional<Tensor> find(String name);

    /**
     * The weight {@code name} with exactly {@code shape}, as float32 or convertible to it; otherwise an error naming the
     * tensor, the expected and the found shape.
     *
     * @param name  the weight's name
     * @param shape the shape expected
     * @return the tensor
     * @throws LoaderException if it is missing, of another shape or not a float type
     */
    Tensor require(String name, long... shape);
}
