/**
 * Turning checkpoints vectorbert does not read directly into Hugging Face model directories
 * (TensorFlow checkpoints, ONNX exports), and the default model made from one; plugged into the
 * loader's model resolution.
 */
module org.vectorbert.convert {
    requires transitive org.vectorbert.loader;

    exports org.vectorbert.convert;

    provides org.vectorbert.loader.ModelConverter
            with org.vectorbert.convert.TensorFlowConverter, org.vectorbert.convert.OnnxConverter;
    provides org.vectorbert.loader.DefaultModelSource with org.vectorbert.convert.DefaultModel;
}
