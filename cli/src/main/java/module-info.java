/** The vectorbert command (picocli): parsing, formatting and errors over the engine. */
module org.vectorbert.cli {
    requires org.vectorbert.engine;
    requires org.vectorbert.convert;
    requires info.picocli;

    // picocli reads the command classes' annotations and sets their fields.
    opens org.vectorbert.cli to info.picocli;
}
