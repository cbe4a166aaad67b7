/**
 * The BERT encoder on the Vector API: the model's blocks and their kernels, and the pipelines a
 * library user calls (Embeddings, FillMask, Encoder). Only the API package is exported.
 */
module org.vectorbert.engine {
    requires transitive org.vectorbert.loader;
    requires transitive org.vectorbert.tokenizer;
    requires jdk.incubator.vector;
    // The DiagnosticCommand MBean, through which KernelCompilation keeps the vector kernels out of C1.
    requires java.management;
    requires jdk.management;

    exports org.vectorbert.engine;
}
