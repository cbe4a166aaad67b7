package org.vectorbert.loader;

import java.nio.file.Path;
import java.util.Map;

/** One mapped file of weights: a safetensors file ({@link SafetensorsFile}) or torch.save's zip ({@link PytorchFile}). */
public sealed interface TensorFile extends AutoCloseable permits SafetensorsFile, PytorchFile {
    /**
     * Maps {@code file}: safetensors by its {@code .safetensors} name, otherwise torch.save's zip.
     *
     * @param file the weight file
     * @return the mapped file; close it to unmap
     * @throws LoaderException if it is missing or malformed
     */
    static TensorFile open(Path file) {
        return file.getFileName().toString().endsWith(".safetensors") ? SafetensorsFile.open(file) : PytorchFile.open(file);
    }

    /** {@return the file} */
    Path path();

    /** {@return the tensors in the file's order, by name} */
    Map<String, Tensor> tensors();

    /**
     * One tensor.
     *
     * @param name its name
     * @return the tensor
     * @throws LoaderException if the file has none of that name
     */
    default Tensor tensor(String name) {
        Tensor t = tensors().get(name);
        if (t == null) {
            throw new LoaderException(path() + " has no tensor '" + name + "'");
        }
        return t;
    }

    /** Unmaps the file; tensors from it must not be used afterwards. */
    @Override
    void close();
}
