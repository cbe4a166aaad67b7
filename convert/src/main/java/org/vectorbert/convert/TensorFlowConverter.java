package org.vectorbert.convert;

import java.nio.file.Path;
import org.vectorbert.loader.ModelConverter;
import org.vectorbert.loader.ModelResolver;

/** {@link TfImport} as a {@link ModelConverter}, so {@code --model} takes TensorFlow checkpoints. */
public final class TensorFlowConverter implements ModelConverter {
    /** For {@link java.util.ServiceLoader}. */
    public TensorFlowConverter() {}

    @Override
    public String kind() {
        return "TensorFlow checkpoint";
    }

    @Override
    public String marks() {
        return "bert_model.ckpt.index, variables/variables.index or a checkpoint's .index";
    }

    @Override
    public boolean accepts(Path path) {
        return TfImport.isCheckpoint(path);
    }

    @Override
    public void convert(Path source, Path target, ModelResolver.Listener listener) {
        TfImport.convert(source, target, (done, total) -> listener.progress("converting", done, total));
    }
}
