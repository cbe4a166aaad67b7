package org.vectorbert.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.server.ServerTest.JSON;
import static org.vectorbert.server.ServerTest.floats;
import static org.vectorbert.server.ServerTest.post;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.loader.SafetensorsFile;

/**
 * serve's routes on MPNet, ModernBERT, NomicBERT, GTE, JinaBERT and DeBERTa (the PyTorch reference fixtures in engine's test
 * resources), answered as the reference computed them: sentence embeddings with a prompt, every token's state of a 2,995-token
 * text, a cross-encoder's scores, a classifier's, and zero-shot classification's.
 */
class ArchitectureRoutesTest {
    private static final Path ARCHITECTURES = Path.of(System.getProperty("user.dir"))
            .resolve("../engine/src/test/resources/architectures").normalize();

    @Test
    void embedAndV1EmbeddingsGiveTheReferencesSentenceEmbeddings() throws Exception {
        for (String fixture : new String[] {"modernbert/modernbert-sentence-mean", "mpnet/mpnet-sentence-mean"}) {
            Path dir = ARCHITECTURES.resolve(fixture);
            JsonNode first = cases(dir).get(0);
            String prompt = first.path("prompt_name").asText("");
            try (EmbeddingServer server = serve(dir); SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
                float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
                String body = "{\"inputs\": " + first.get("texts") + (prompt.isEmpty() ? "" : ", \"prompt_name\": \"" + prompt + "\"") + "}";
                HttpResponse<String> r = post(server, "embed", body);
                assertEquals(200, r.statusCode(), r.body());
                JsonNode vectors = JSON.readTree(r.body());
                int dim = want.length / vectors.size();
                for (int s = 0; s < vectors.size(); s++) {
                    assertClose(want, s * dim, floats(vectors.get(s)), 1e-5, fixture + " /embed text " + s);
                }
                if (prompt.isEmpty()) {
                    HttpResponse<String> v1 = post(server, "v1/embeddings", "{\"input\": " + first.get("texts") + ", \"model\": \"m\"}");
                    assertEquals(200, v1.statusCode(), v1.body());
                    JsonNode data = JSON.readTree(v1.body()).get("data");
                    for (int s = 0; s < data.size(); s++) {
                        assertClose(want, s * dim, floats(data.get(s).get("embedding")), 1e-5, fixture + " /v1/embeddings text " + s);
                    }
                }
            }
        }
    }

    /**
     * NomicBERT (nomic-embed-text-v1.5's layout: a prompt, no Normalize module, so "normalize": false gives its own vectors)
     * and GTE's and JinaBERT's (/v1/embeddings), each as the reference computed it.
     */
    @Test
    void nomicBertGteAndJinaBertEmbedAsTheirReferences() throws Exception {
        Path nomic = ARCHITECTURES.resolve("nomicbert/nomicbert-sentence");
        JsonNode query = cases(nomic).get(0);
        try (EmbeddingServer server = serve(nomic); SafetensorsFile expected = SafetensorsFile.open(nomic.resolve("expected.safetensors"))) {
            float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
            HttpResponse<String> r = post(server, "embed", "{\"inputs\": " + query.get("texts") + ", \"prompt_name\": \"search_query\","
                    + " \"normalize\": false}");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode vectors = JSON.readTree(r.body());
            for (int s = 0; s < vectors.size(); s++) {
                assertClose(want, s * 32, floats(vectors.get(s)), 1e-5, "nomicbert /embed text " + s);
            }
        }
        for (String fixture : new String[] {"gte/gte-base-en", "jinabert/jinabert-sentence-mean"}) {
            Path dir = ARCHITECTURES.resolve(fixture);
            JsonNode batch = cases(dir).get(0);
            try (EmbeddingServer server = serve(dir); SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
                float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
                HttpResponse<String> v1 = post(server, "v1/embeddings", "{\"input\": " + batch.get("texts") + ", \"model\": \"m\"}");
                assertEquals(200, v1.statusCode(), v1.body());
                JsonNode data = JSON.readTree(v1.body()).get("data");
                int dim = want.length / data.size();
                for (int s = 0; s < data.size(); s++) {
                    assertClose(want, s * dim, floats(data.get(s).get("embedding")), 1e-5, fixture + " /v1/embeddings text " + s);
                }
            }
        }
    }

    /**
     * bge-m3 (the reference fixture with its two head files): /embed_sparse gives its lexical weights in increasing id order,
     * /embed_multi_vector its ColBERT vectors, /rerank each score mode, combined with the given weights or [1, 1, 1].
     */
    @Test
    void bgeM3sSparseMultiVectorAndScoresAreTheReferences() throws Exception {
        Path dir = ARCHITECTURES.resolve("bgem3/bgem3");
        JsonNode queries = cases(dir).get(0).get("texts");
        JsonNode documents = cases(dir).get(1).get("texts");
        JsonNode lexical = JSON.readTree(dir.resolve("expected_lexical_weights.json").toFile()).get("case0");
        try (EmbeddingServer server = serve(dir); SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            HttpResponse<String> sparse = post(server, "embed_sparse", "{\"inputs\": " + queries + "}");
            assertEquals(200, sparse.statusCode(), sparse.body());
            JsonNode got = JSON.readTree(sparse.body());
            for (int s = 0; s < queries.size(); s++) {
                assertEquals(lexical.get(s).size(), got.get(s).size(), "query " + s);
                int last = -1;
                for (JsonNode entry : got.get(s)) {
                    int id = entry.get("index").asInt();
                    assertTrue(id > last, "increasing ids");
                    last = id;
                    assertEquals(lexical.get(s).get(String.valueOf(id)).floatValue(), entry.get("value").floatValue(), 1e-4, "query " + s);
                }
            }
            HttpResponse<String> multi = post(server, "embed_multi_vector", "{\"inputs\": " + queries + "}");
            assertEquals(200, multi.statusCode(), multi.body());
            JsonNode vectors = JSON.readTree(multi.body());
            for (int s = 0; s < queries.size(); s++) {
                float[] want = expected.tensor("case0.colbert_vecs." + s).toFloatArray();
                assertEquals(want.length / 32, vectors.get(s).size());
                for (int v = 0; v < vectors.get(s).size(); v++) {
                    assertClose(want, v * 32, floats(vectors.get(s).get(v)), 1e-4, "query " + s + " vector " + v);
                }
            }
            for (String[] mode : new String[][] {{"dense", ""}, {"sparse", ""}, {"colbert", ""},
                {"colbert+sparse+dense", ", \"weights\": [0.4, 0.2, 0.4]"}, {"colbert+sparse+dense.default", ""}}) {
                float[] want = expected.tensor("scores." + mode[0]).toFloatArray();
                String name = mode[0].endsWith(".default") ? "" : ", \"mode\": \"" + mode[0] + "\"";
                HttpResponse<String> r = post(server, "rerank", "{\"query\": " + queries.get(1) + ", \"texts\": " + documents + name + mode[1] + "}");
                assertEquals(200, r.statusCode(), r.body());
                for (JsonNode rank : JSON.readTree(r.body())) {
                    assertEquals(want[4 + rank.get("index").asInt()], rank.get("score").floatValue(), 1e-4, mode[0] + " " + rank);
                }
            }
            HttpResponse<String> bad = post(server, "rerank", "{\"query\": \"q\", \"texts\": [\"t\"], \"weights\": [0, 0, 0]}");
            assertEquals(422, bad.statusCode(), bad.body());
            assertTrue(bad.body().contains("`weights` must be three non-negative numbers, not all 0"), bad.body());
        }
        try (EmbeddingServer server = serve(ARCHITECTURES.resolve("gte/gte-base-en"))) {
            HttpResponse<String> r = post(server, "embed_multi_vector", "{\"inputs\": \"paris\"}");
            assertEquals(424, r.statusCode(), r.body());
        }
    }

    /** ModernBERT's 8,192 positions through the server: every token of a 2,995-token text, as the reference computes them. */
    @Test
    void embedAllTakesALongText() throws Exception {
        Path dir = ARCHITECTURES.resolve("modernbert/modernbert-long");
        JsonNode single = cases(dir).get(0);
        try (EmbeddingServer server = serve(dir); SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] want = expected.tensor("case0.last_hidden_state").toFloatArray();
            HttpResponse<String> r = post(server, "embed_all", "{\"inputs\": " + single.get("texts") + "}");
            assertEquals(200, r.statusCode(), r.body().substring(0, Math.min(300, r.body().length())));
            JsonNode tokens = JSON.readTree(r.body()).get(0);
            assertEquals(2995, tokens.size());
            int dim = want.length / tokens.size();
            for (int t = 0; t < tokens.size(); t++) {
                assertClose(want, t * dim, floats(tokens.get(t)), 1e-4, "token " + t);
            }
        }
    }

    @Test
    void rerankAndPredictGiveTheReferencesLogits() throws Exception {
        Path rerank = ARCHITECTURES.resolve("modernbert/modernbert-rerank");
        JsonNode pairs = cases(rerank).get(1).get("texts");
        try (EmbeddingServer server = serve(rerank); SafetensorsFile expected = SafetensorsFile.open(rerank.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case1.logits").toFloatArray();
            for (int s = 0; s < pairs.size(); s++) {
                HttpResponse<String> r = post(server, "rerank", "{\"query\": " + pairs.get(s).get(0) + ", \"texts\": [" + pairs.get(s).get(1)
                        + "], \"raw_scores\": true}");
                assertEquals(200, r.statusCode(), r.body());
                assertEquals(logits[s], JSON.readTree(r.body()).get(0).get("score").floatValue(), 1e-4, "pair " + s);
            }
        }
        Path classifier = ARCHITECTURES.resolve("mpnet/mpnet-seqcls");
        JsonNode texts = cases(classifier).get(0).get("texts");
        try (EmbeddingServer server = serve(classifier);
             SafetensorsFile expected = SafetensorsFile.open(classifier.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case0.logits").toFloatArray();
            HttpResponse<String> r = post(server, "predict", "{\"inputs\": " + texts.get(1) + ", \"raw_scores\": true}");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode labels = JSON.readTree(r.body());
            int n = logits.length / texts.size();
            for (JsonNode label : labels) {
                int id = switch (label.get("label").asText()) {
                    case "negative" -> 0;
                    case "neutral" -> 1;
                    default -> 2;
                };
                assertEquals(logits[n + id], label.get("score").floatValue(), 1e-4, label.toString());
            }
        }
    }

    /**
     * A DeBERTa-v3 NLI classifier (engine's reference fixture): /predict gives the reference's logits for a premise and
     * hypothesis, and /zero-shot-classification the pipeline's labels and scores for each of the reference's calls.
     */
    @Test
    void debertaPredictsAndClassifiesZeroShotAsTheReference() throws Exception {
        Path nli = ARCHITECTURES.resolve("deberta/deberta-v3-nli");
        JsonNode pair = cases(nli).get(1).get("texts").get(0);
        try (EmbeddingServer server = serve(nli); SafetensorsFile expected = SafetensorsFile.open(nli.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case1.logits").toFloatArray();
            HttpResponse<String> r = post(server, "predict", "{\"inputs\": [" + pair.get(0) + ", " + pair.get(1) + "], \"raw_scores\": true}");
            assertEquals(200, r.statusCode(), r.body());
            for (JsonNode label : JSON.readTree(r.body())) {
                int id = switch (label.get("label").asText()) {
                    case "entailment" -> 0;
                    case "neutral" -> 1;
                    default -> 2;
                };
                assertEquals(logits[id], label.get("score").floatValue(), 1e-4, label.toString());
            }
            for (JsonNode c : JSON.readTree(nli.resolve("zeroshot.json").toFile()).get("cases")) {
                String body = "{\"inputs\": " + c.get("sequence") + ", \"parameters\": {\"candidate_labels\": " + c.get("candidate_labels")
                        + ", \"hypothesis_template\": " + c.get("hypothesis_template") + ", \"multi_label\": " + c.get("multi_label") + "}}";
                HttpResponse<String> z = post(server, "zero-shot-classification", body);
                assertEquals(200, z.statusCode(), z.body());
                JsonNode got = JSON.readTree(z.body());
                JsonNode want = c.get("output");
                assertEquals(want.get("labels"), got.get("labels"), z.body());
                for (int i = 0; i < want.get("scores").size(); i++) {
                    assertEquals(want.get("scores").get(i).asDouble(), got.get("scores").get(i).asDouble(), 1e-4, z.body());
                }
            }
        }
    }

    /**
     * Qwen3-Embedding through TEI's /embed with its query prompt and OpenAI's /v1/embeddings with a Matryoshka cut, and
     * Qwen3-Reranker through /rerank: the reference's vectors and yes/no scores.
     */
    @Test
    void qwen3EmbedsAndReranksAsTheReference() throws Exception {
        Path embedder = ARCHITECTURES.resolve("qwen3/qwen3-embedding");
        try (EmbeddingServer server = serve(embedder); SafetensorsFile expected = SafetensorsFile.open(embedder.resolve("expected.safetensors"))) {
            HttpResponse<String> r = post(server, "embed", "{\"inputs\": [\"What is the capital of China?\"], \"prompt_name\": \"query\"}");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode vector = JSON.readTree(r.body()).get(0);
            float[] want = expected.tensor("case2.sentence_embedding").toFloatArray();
            for (int i = 0; i < 64; i++) {
                assertEquals(want[i], vector.get(i).floatValue(), 1e-4, "dimension " + i);
            }
            HttpResponse<String> v1 = post(server, "v1/embeddings", "{\"input\": \"The capital of China is Beijing.\", \"dimensions\": 16}");
            assertEquals(200, v1.statusCode(), v1.body());
            JsonNode cut = JSON.readTree(v1.body()).get("data").get(0).get("embedding");
            float[] want16 = expected.tensor("case3.sentence_embedding_16").toFloatArray();
            assertEquals(16, cut.size());
            for (int i = 0; i < 16; i++) {
                assertEquals(want16[i], cut.get(i).floatValue(), 1e-4, "dimension " + i + " of 16");
            }
        }
        Path reranker = ARCHITECTURES.resolve("qwen3/qwen3-reranker");
        JsonNode pairs = cases(reranker).get(0).get("pairs");
        try (EmbeddingServer server = serve(reranker); SafetensorsFile expected = SafetensorsFile.open(reranker.resolve("expected.safetensors"))) {
            float[] score = expected.tensor("case0.score").toFloatArray();
            HttpResponse<String> r = post(server, "rerank", "{\"query\": " + pairs.get(0).get(0) + ", \"texts\": [" + pairs.get(0).get(1) + ", "
                    + pairs.get(1).get(1) + "]}");
            assertEquals(200, r.statusCode(), r.body());
            for (JsonNode ranked : JSON.readTree(r.body())) {
                assertEquals(score[ranked.get("index").asInt()], ranked.get("score").floatValue(), 1e-4, r.body());
            }
        }
    }

    /** EmbeddingGemma through /v1/embeddings: mean pooling, both Dense modules, normalised, as the reference. */
    @Test
    void embeddingGemmaEmbedsThroughItsDenseModules() throws Exception {
        Path dir = ARCHITECTURES.resolve("gemma3/embeddinggemma");
        try (EmbeddingServer server = serve(dir); SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            JsonNode c = cases(dir).get(0);
            HttpResponse<String> r = post(server, "v1/embeddings", "{\"input\": [" + c.get("texts").get(0) + ", " + c.get("texts").get(1) + "]}");
            assertEquals(200, r.statusCode(), r.body());
            float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
            JsonNode data = JSON.readTree(r.body()).get("data");
            for (int s = 0; s < 2; s++) {
                for (int i = 0; i < 64; i++) {
                    assertEquals(want[s * 64 + i], data.get(s).get("embedding").get(i).floatValue(), 1e-4, "text " + s + " [" + i + "]");
                }
            }
        }
    }

    private static EmbeddingServer serve(Path model) {
        EmbeddingServer server = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        server.ready(Models.of(model.getFileName().toString(), Embeddings.load(model.toString())));
        return server;
    }

    private static JsonNode cases(Path dir) throws IOException {
        return JSON.readTree(dir.resolve("inputs.json").toFile());
    }

    private static void assertClose(float[] want, int from, float[] got, double tolerance, String at) {
        for (int i = 0; i < got.length; i++) {
            assertEquals(want[from + i], got[i], tolerance, at + " [" + i + "]");
        }
    }
}
