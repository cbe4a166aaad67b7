/** The vectorbert command (picocli): parsing, formatting and errors over the engine. */
module org.vectorbert.cli {
    requires org.vectorbert.engine;
    requires org.vectorbert.convert;
    requires org.vectorbert.server;
    requires org.vectorbert.explorer;
    // sun.misc.Signal: serve exits 0 after a graceful stop on SIGTERM, which a shutdown hook cannot (the JVM exits 143).
    requires jdk.unsupported;
    requires info.picocli;

    // picocli reads the command classes' annotations and sets their fields.
    opens org.vectorbert.cli to info.picocli;
}
