/**
 * vectorbert serve: embeddings and fill-mask over HTTP in the shapes of Hugging Face's
 * text-embeddings-inference (TEI), OpenAI's embeddings API and Hugging Face's inference API, with
 * requests from many clients batched together. Only the API package is exported.
 */
module org.vectorbert.server {
    requires transitive org.vectorbert.engine;
    requires org.vectorbert.explorer;
    requires org.eclipse.jetty.server;
    requires com.fasterxml.jackson.databind;
    requires io.prometheus.metrics.core;
    requires io.prometheus.metrics.model;
    requires io.prometheus.writer.text;

    exports org.vectorbert.server;
}
