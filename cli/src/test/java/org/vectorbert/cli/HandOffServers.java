package org.vectorbert.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.server.EmbeddingServer;
import org.vectorbert.server.Models;
import org.vectorbert.server.ServerOptions;

/** The servers of the {@code --server} tests: Jetty in the test JVM, each serving one model, all closed together. */
final class HandOffServers implements AutoCloseable {
    private final List<EmbeddingServer> servers = new ArrayList<>();

    /** A server of {@code model} on a free loopback port that takes at most {@code maxClientBatch} texts a request; its URL. */
    String serve(Path model, int maxClientBatch) {
        return serve(model, ServerOptions.defaults().withPort(0).withMaxClientBatchSize(maxClientBatch));
    }

    /** A server of {@code model} with {@code options}, ready once the model is loaded; its URL. */
    String serve(Path model, ServerOptions options) {
        EmbeddingServer server = EmbeddingServer.start(options);
        servers.add(server);
        server.ready(Models.of(model.toString(), Embeddings.load(model.toString())));
        return server.uri().toString();
    }

    @Override
    public void close() {
        servers.forEach(EmbeddingServer::close);
        servers.clear();
    }
}
