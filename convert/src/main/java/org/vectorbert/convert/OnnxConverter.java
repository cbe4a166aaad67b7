package org.vectorbert.convert;

import java.nio.file.Path;
import org.vectorbert.loader.ModelConverter;
import org.vectorbert.loader.ModelResolver;

/** {@link OnnxImport} as a {@link ModelConverter}, so {@code --model} takes BERT-family ONNX exports and langchain4j jars. */
public final class OnnxConverter implements ModelConverter {
    /** For {@link java.util.ServiceLoader}. */
    public OnnxConverter() {}

    @Override
    public String kind() {
        return "ONNX export";
    }

    @Override
    public String marks() {
        return ".onnx file with a tokenizer.json beside it, onnx/model.onnx, or jar holding them";
    }

    @Override
    public boolean accepts(Path path) {
        return OnnxImport.isOnnx(path);
    }

    @Override
    public void check(Path source) {
        OnnxImport.check(source);
    }

    /** 2: a langchain4j jar's pooling read from its model class (a table guessed before), and langchain4j.json written. */
    @Override
    public String version() {
        return "2";
    }

    @Override
    public void convert(Path source, Path target, ModelResolver.Listener listener) {
        OnnxImport.convert(source, target, listener);
    }
}
