/** Benchmarks that print figures (bench/run); bench-onnx builds on them. */
module org.vectorbert.bench {
    requires transitive org.vectorbert.engine;
    requires jdk.management;
    requires com.fasterxml.jackson.databind;
    requires jdk.incubator.vector;

    exports org.vectorbert.bench;
}
