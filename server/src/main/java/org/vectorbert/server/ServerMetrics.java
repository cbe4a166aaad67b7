package org.vectorbert.server;

import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The server's Prometheus metrics, under TEI's {@code te_} prefix: requests by route and outcome,
 * their durations, and the batcher's queue, batch sizes and tokens, and time spent tokenizing,
 * queued and in inference. Each server has its own registry.
 */
final class ServerMetrics {
    private static final double[] SECONDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4, 5, 7.5, 10,
        15, 20, 30, 60};

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final Counter requests = Counter.builder().name("te_request").help("Requests received, by route")
            .labelNames("method").register(registry);
    private final Counter successes = Counter.builder().name("te_request_success").help("Requests answered with 2xx, by route")
            .labelNames("method").register(registry);
    private final Counter failures = Counter.builder().name("te_request_failure")
            .help("Requests answered with an error, by route and TEI error type").labelNames("method", "err").register(registry);
    private final Histogram requestDuration = Histogram.builder().name("te_request_duration_seconds")
            .help("Time from a successful request's arrival to its answer, by route").labelNames("method").classicOnly()
            .classicUpperBounds(SECONDS).register(registry);
    final Histogram tokenization = Histogram.builder().name("te_request_tokenization_duration_seconds")
            .help("Time spent tokenizing a request's texts").classicOnly().classicUpperBounds(SECONDS).register(registry);
    final Histogram queue = Histogram.builder().name("te_request_queue_duration_seconds")
            .help("Time a request's texts waited before their first forward pass").classicOnly().classicUpperBounds(SECONDS)
            .register(registry);
    final Histogram inference = Histogram.builder().name("te_batch_inference_duration_seconds")
            .help("Time of one forward pass").classicOnly().classicUpperBounds(SECONDS).register(registry);
    final Histogram batchSize = Histogram.builder().name("te_batch_size").help("Texts in one forward pass").classicOnly()
            .classicExponentialUpperBounds(1, 2, 12).register(registry);
    final Histogram batchTokens = Histogram.builder().name("te_batch_tokens").help("Tokens in one forward pass (its texts' real tokens: a pass computes no padding)")
            .classicOnly().classicExponentialUpperBounds(16, 2, 12).register(registry);
    final Gauge queueSize = Gauge.builder().name("te_queue_size").help("Texts waiting for a forward pass").register(registry);
    final Counter dropped = Counter.builder().name("te_request_dropped")
            .help("Requests dropped from the queue because their client went away").register(registry);

    void request(String route) {
        requests.labelValues(route).inc();
    }

    void answered(String route, int status, String errorType, long startNanos) {
        if (status < 400) {
            successes.labelValues(route).inc();
            // Successes only: a 429 answered in a millisecond says nothing of how long admitted requests take.
            requestDuration.labelValues(route).observe((System.nanoTime() - startNanos) / 1e9);
        } else {
            failures.labelValues(route, errorType).inc();
        }
    }

    /** Everything, in Prometheus' text format (version 0.0.4). */
    byte[] scrape() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            PrometheusTextFormatWriter.create().write(out, registry.scrape());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static String contentType() {
        return PrometheusTextFormatWriter.CONTENT_TYPE;
    }
}
