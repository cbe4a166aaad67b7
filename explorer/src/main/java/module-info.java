/**
 * The attention explorer: a forward pass's attentions, queries and keys as bertviz's head, model and
 * neuron views in one self-contained HTML page, and the head view as a PNG drawn with Java2D.
 */
module org.vectorbert.explorer {
    requires transitive org.vectorbert.engine;
    requires org.vectorbert.common;
    requires com.fasterxml.jackson.databind;
    requires transitive java.desktop;

    exports org.vectorbert.explorer;
}
