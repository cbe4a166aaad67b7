package org.vectorbert.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.server.ServerTest.JSON;
import static org.vectorbert.server.ServerTest.get;
import static org.vectorbert.server.ServerTest.post;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.QuestionAnswerer;
import org.vectorbert.engine.Reranker;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.engine.TokenClassifier;
import org.vectorbert.engine.ZeroShotClassifier;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * TEI's /rerank and /predict, and the Inference API-style /token-classification and /question-answering, over HTTP
 * (java.net.http against the running Jetty server), answered as the library answers.
 */
class TaskRoutesTest {
    static Path work;
    static EmbeddingServer reranking;
    static EmbeddingServer classifying;
    static Reranker reranker;
    static TextClassifier classifier;
    static EmbeddingServer tagging;
    static EmbeddingServer answering;
    static TokenClassifier tagger;
    static QuestionAnswerer answerer;

    @BeforeAll
    static void start() throws IOException {
        work = Files.createTempDirectory("task-routes");
        Path rerankModel = TinyTaskModels.sequenceClassifier(work.resolve("reranker"), List.of("LABEL_0"), "");
        Path classifierModel = TinyTaskModels.sequenceClassifier(work.resolve("classifier"), List.of("NEG", "NEU", "POS"), "");
        reranker = Reranker.load(rerankModel.toString());
        classifier = TextClassifier.load(classifierModel.toString());
        reranking = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        reranking.ready(Models.of("reranker", Embeddings.load(rerankModel.toString())));
        classifying = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        classifying.ready(Models.of("classifier", Embeddings.load(classifierModel.toString())));
        Path taggerModel = TinyTaskModels.tokenClassifier(work.resolve("tagger"), List.of("O", "B-PER", "I-PER", "B-LOC", "I-LOC"));
        Path answererModel = TinyTaskModels.questionAnswerer(work.resolve("answerer"));
        tagger = TokenClassifier.load(taggerModel.toString());
        answerer = QuestionAnswerer.load(answererModel.toString());
        tagging = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        tagging.ready(Models.of("tagger", Embeddings.load(taggerModel.toString())));
        answering = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        answering.ready(Models.of("answerer", Embeddings.load(answererModel.toString())));
    }

    @AfterAll
    static void stop() throws IOException {
        reranking.stop();
        classifying.stop();
        tagging.stop();
        answering.stop();
        try (var files = Files.walk(work)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void rerankAnswersTeisShapeBestFirst() throws Exception {
        List<String> texts = List.of("paris is the capital of france .", "bananas are yellow .", "berlin is in germany .");
        HttpResponse<String> r = post(reranking, "rerank", "{\"query\": \"capital of france\", \"texts\": "
                + JSON.writeValueAsString(texts) + ", \"return_text\": true}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode ranked = JSON.readTree(r.body());
        List<Reranker.Score> want = reranker.rank("capital of france", texts, false, 3);
        assertEquals(3, ranked.size());
        for (int k = 0; k < 3; k++) {
            assertEquals(want.get(k).index(), ranked.get(k).get("index").asInt());
            assertEquals(want.get(k).score(), ranked.get(k).get("score").floatValue(), 1e-6);
            assertEquals(texts.get(want.get(k).index()), ranked.get(k).get("text").asText());
        }
        JsonNode raw = JSON.readTree(post(reranking, "rerank", "{\"query\": \"capital of france\", \"texts\": "
                + JSON.writeValueAsString(texts) + ", \"raw_scores\": true}").body());
        float[] logits = reranker.scores("capital of france", texts, true);
        assertEquals(logits[raw.get(0).get("index").asInt()], raw.get(0).get("score").floatValue(), 1e-6);
        assertTrue(!raw.get(0).has("text"));

        // Identical texts score alike; TEI lists them last index first.
        JsonNode ties = JSON.readTree(post(reranking, "rerank", "{\"query\": \"q\", \"texts\": [\"a\", \"b\", \"a\"]}").body());
        int first = -1;
        for (JsonNode t : ties) {
            if (t.get("index").asInt() != 1) {
                first = first < 0 ? t.get("index").asInt() : first;
            }
        }
        assertEquals(2, first, ties.toString());

        JsonNode info = JSON.readTree(get(reranking, "info").body());
        assertEquals("LABEL_0", info.get("model_type").get("reranker").get("id2label").get("0").asText());
    }

    @Test
    void zeroShotClassificationAnswersThePipelinesShape() throws Exception {
        Path model = TinyTaskModels.sequenceClassifier(work.resolve("nli"), List.of("contradiction", "entailment", "neutral"), "");
        ZeroShotClassifier library = ZeroShotClassifier.load(model.toString());
        try (EmbeddingServer nli = EmbeddingServer.start(ServerOptions.defaults().withPort(0))) {
            nli.ready(Models.of("nli", Embeddings.load(model.toString())));
            List<String> labels = List.of("geography", "food", "sports");
            JsonNode one = JSON.readTree(post(nli, "zero-shot-classification", "{\"inputs\": \"paris is the capital of france .\","
                    + " \"parameters\": {\"candidate_labels\": \"geography, food, sports\"}}").body());
            assertZeroShot(library.classify("paris is the capital of france .", labels), one);
            HttpResponse<String> r = post(nli, "zero-shot-classification", "{\"inputs\": [\"paris\", \"bananas are yellow .\"],"
                    + " \"parameters\": {\"candidate_labels\": [\"geography\", \"food\", \"sports\"], \"multi_label\": true,"
                    + " \"hypothesis_template\": \"The topic is {}.\"}}");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode many = JSON.readTree(r.body());
            List<ZeroShotClassifier.Result> want = library.classify(List.of("paris", "bananas are yellow ."), labels, "The topic is {}.", true);
            assertEquals(2, many.size());
            for (int i = 0; i < 2; i++) {
                assertZeroShot(want.get(i), many.get(i));
            }
            HttpResponse<String> noLabels = post(nli, "zero-shot-classification", "{\"inputs\": \"paris\"}");
            assertEquals(422, noLabels.statusCode(), noLabels.body());
            HttpResponse<String> badTemplate = post(nli, "zero-shot-classification", "{\"inputs\": \"paris\", \"parameters\":"
                    + " {\"candidate_labels\": [\"a\"], \"hypothesis_template\": \"Topic.\"}}");
            assertEquals(422, badTemplate.statusCode(), badTemplate.body());
        }
        // A classifier without an entailment label cannot do it.
        HttpResponse<String> notNli = post(classifying, "zero-shot-classification", "{\"inputs\": \"paris\", \"parameters\":"
                + " {\"candidate_labels\": [\"a\", \"b\"]}}");
        assertEquals(424, notNli.statusCode(), notNli.body());
        assertTrue(notNli.body().contains("needs an NLI model"), notNli.body());
    }

    private static void assertZeroShot(ZeroShotClassifier.Result want, JsonNode got) {
        assertEquals(want.sequence(), got.get("sequence").asText());
        assertEquals(want.labels().size(), got.get("labels").size());
        for (int k = 0; k < want.labels().size(); k++) {
            assertEquals(want.labels().get(k).label(), got.get("labels").get(k).asText());
            assertEquals(want.labels().get(k).score(), got.get("scores").get(k).floatValue(), 1e-6);
        }
    }

    @Test
    void predictAnswersEveryLabelForATextAPairAndABatch() throws Exception {
        JsonNode one = JSON.readTree(post(classifying, "predict", "{\"inputs\": \"who wrote hamlet ?\"}").body());
        List<TextClassifier.Label> want = classifier.classify("who wrote hamlet ?");
        assertEquals(3, one.size());
        for (int k = 0; k < 3; k++) {
            assertEquals(want.get(k).label(), one.get(k).get("label").asText());
            assertEquals(want.get(k).score(), one.get(k).get("score").floatValue(), 1e-6);
        }
        JsonNode batch = JSON.readTree(post(classifying, "predict",
                "{\"inputs\": [[\"who wrote hamlet ?\"], [\"paris\", \"the capital of france\"]], \"raw_scores\": true}").body());
        assertEquals(2, batch.size());
        float[] logits = classifier.logits(List.of("paris"), List.of("the capital of france"), false);
        JsonNode pair = batch.get(1);
        for (int k = 0; k < 3; k++) {
            int id = classifier.labels().id(pair.get(k).get("label").asText());
            assertEquals(logits[id], pair.get(k).get("score").floatValue(), 1e-5);
        }
        JsonNode info = JSON.readTree(get(classifying, "info").body());
        assertEquals(2, info.get("model_type").get("classifier").get("label2id").get("POS").asInt());
    }

    @Test
    void tokenClassificationAnswersThePipelinesEntities() throws Exception {
        String text = "john lives in london , paris is the capital of france .";
        String longText = (text + " ").repeat(4).strip();
        for (String strategy : List.of("none", "simple", "first", "average", "max")) {
            HttpResponse<String> r = post(tagging, "token-classification", "{\"inputs\": [" + JSON.writeValueAsString(text) + ", "
                    + JSON.writeValueAsString(longText) + "], \"parameters\": {\"aggregation_strategy\": \"" + strategy
                    + "\", \"ignore_labels\": [], \"stride\": 4}}");
            assertEquals(200, r.statusCode(), r.body());
            JsonNode lists = JSON.readTree(r.body());
            List<TokenClassifier.Result> want = tagger.tag(List.of(text, longText), TokenClassifier.Aggregation.parse(strategy),
                    java.util.Set.of(), 4);
            for (int t = 0; t < 2; t++) {
                List<TokenClassifier.Entity> entities = want.get(t).entities();
                assertEquals(entities.size(), lists.get(t).size(), strategy);
                for (int k = 0; k < entities.size(); k++) {
                    JsonNode e = lists.get(t).get(k);
                    assertEquals(entities.get(k).entity(), e.get(strategy.equals("none") ? "entity" : "entity_group").asText());
                    assertEquals(entities.get(k).score(), e.get("score").floatValue(), 1e-6);
                    assertEquals(entities.get(k).start(), e.get("start").asInt());
                    assertEquals(entities.get(k).end(), e.get("end").asInt());
                    assertEquals(entities.get(k).word(), e.get("word").asText());
                }
            }
        }
        JsonNode single = JSON.readTree(post(tagging, "token-classification", "{\"inputs\": " + JSON.writeValueAsString(text) + "}").body());
        assertEquals(tagger.entities(text, TokenClassifier.Aggregation.NONE, java.util.Set.of("O")).size(), single.size());
        assertTrue(single.isEmpty() || single.get(0).has("index"), single.toString());
        assertError(post(tagging, "token-classification", "{\"inputs\": \"x\", \"parameters\": {\"aggregation_strategy\": \"longest\"}}"),
                422, "Validation", "aggregation_strategy` must be none, simple, first, average or max");
        assertError(post(tagging, "token-classification", "{\"parameters\": {}}"), 422, "Validation", "`inputs` is missing");
        assertError(post(classifying, "token-classification", "{\"inputs\": \"x\"}"), 424, "Backend", "not a token classification model");
    }

    @Test
    void questionAnsweringAnswersThePipelinesSpans() throws Exception {
        String context = "paris is the capital of france . berlin is the capital of germany . bananas are yellow . "
                + "shakespeare wrote hamlet . john lives in london .";
        HttpResponse<String> r = post(answering, "question-answering", "{\"inputs\": {\"question\": \"who wrote hamlet ?\", "
                + "\"context\": " + JSON.writeValueAsString(context) + "}}");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode one = JSON.readTree(r.body());
        QuestionAnswerer.Answer want = answerer.answer("who wrote hamlet ?", context, QuestionAnswerer.Options.defaults()).getFirst();
        assertEquals(want.answer(), one.get("answer").asText());
        assertEquals(want.start(), one.get("start").asInt());
        assertEquals(want.end(), one.get("end").asInt());
        assertEquals(want.score(), one.get("score").asDouble(), 1e-12);

        JsonNode batch = JSON.readTree(post(answering, "question-answering", "{\"inputs\": [{\"question\": \"who wrote hamlet ?\", "
                + "\"context\": " + JSON.writeValueAsString(context) + "}, {\"question\": \"where ?\", \"context\": \"john lives in london .\"}], "
                + "\"parameters\": {\"top_k\": 3, \"doc_stride\": 4, \"handle_impossible_answer\": true, \"max_answer_len\": 4}}").body());
        var options = QuestionAnswerer.Options.defaults().withTopK(3).withDocStride(4).withHandleImpossibleAnswer(true).withMaxAnswerLength(4);
        List<QuestionAnswerer.Result> results = answerer.answer(List.of(new QuestionAnswerer.Question("who wrote hamlet ?", context),
                new QuestionAnswerer.Question("where ?", "john lives in london .")), options);
        assertEquals(2, batch.size());
        for (int q = 0; q < 2; q++) {
            assertEquals(results.get(q).answers().size(), batch.get(q).size(), batch.toString());
            for (int k = 0; k < results.get(q).answers().size(); k++) {
                assertEquals(results.get(q).answers().get(k).answer(), batch.get(q).get(k).get("answer").asText());
            }
        }
        assertTrue(results.getFirst().windows() > 1, "the context is read in windows");

        assertError(post(answering, "question-answering", "{\"inputs\": {\"question\": \"q\"}}"), 422, "Validation",
                "must be an object with the strings `question` and `context`");
        assertError(post(answering, "question-answering", "{\"inputs\": {\"question\": \"\", \"context\": \"c\"}}"), 422, "Validation",
                "`inputs.question` is empty");
        assertError(post(answering, "question-answering", "{\"inputs\": {\"question\": " + JSON.writeValueAsString("the capital ".repeat(20))
                + ", \"context\": " + JSON.writeValueAsString(context) + "}}"), 422, "Validation", "leaves no room for the context");
        assertError(post(answering, "question-answering", "{\"inputs\": {\"question\": \"q\", \"context\": \"c\"}, "
                + "\"parameters\": {\"top_k\": 0}}"), 422, "Validation", "top_k must be at least 1");
        assertError(post(answering, "question-answering", "{\"inputs\": {\"question\": \"q\", \"context\": \"c\"}, "
                + "\"parameters\": {\"doc_stride\": 40}}"), 422, "Validation", "doc_stride");
        String many = JSON.writeValueAsString(java.util.Collections.nCopies(10_000, java.util.Map.of("question", "q", "context", "c")));
        assertError(post(answering, "question-answering", "{\"inputs\": " + many + "}"), 422, "Validation", "batch size");
        assertError(post(tagging, "question-answering", "{\"inputs\": {\"question\": \"q\", \"context\": \"c\"}}"), 424, "Backend",
                "not a question answering model");
    }

    @Test
    void concurrentRerankAndPredictRequestsShareThePassesAndGetTheirOwnAnswers() throws Exception {
        List<String> texts = List.of("paris is the capital of france .", "bananas are yellow .", "berlin is in germany .",
                "shakespeare wrote hamlet .", "john lives in london .");
        List<String> queries = List.of("capital of france", "who wrote hamlet ?", "what is yellow ?", "where does john live ?");
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            List<java.util.concurrent.Future<?>> calls = new java.util.ArrayList<>();
            for (int round = 0; round < 6; round++) {
                for (String query : queries) {
                    calls.add(pool.submit(() -> {
                        JsonNode ranked = JSON.readTree(post(reranking, "rerank", "{\"query\": " + JSON.writeValueAsString(query)
                                + ", \"texts\": " + JSON.writeValueAsString(texts) + ", \"raw_scores\": true}").body());
                        float[] want = reranker.scores(query, texts, true);
                        for (JsonNode r : ranked) {
                            assertEquals(want[r.get("index").asInt()], r.get("score").floatValue(), 1e-5f, query);
                        }
                        return null;
                    }));
                    calls.add(pool.submit(() -> {
                        JsonNode labels = JSON.readTree(post(classifying, "predict", "{\"inputs\": [[" + JSON.writeValueAsString(query)
                                + "], [" + JSON.writeValueAsString(query) + ", " + JSON.writeValueAsString(texts.getFirst()) + "]]}").body());
                        List<TextClassifier.Result> want = classifier.classify(List.of(query), List.of(texts.getFirst()),
                                TextClassifier.Function.SOFTMAX, 3, false);
                        assertEquals(want.getFirst().labels().getFirst().label(), labels.get(1).get(0).get("label").asText(), query);
                        assertEquals(want.getFirst().labels().getFirst().score(), labels.get(1).get(0).get("score").floatValue(), 1e-5f);
                        assertEquals(classifier.classify(query).getFirst().score(), labels.get(0).get(0).get("score").floatValue(), 1e-5f);
                        return null;
                    }));
                }
            }
            for (var call : calls) {
                call.get();
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void tokenizeLowerCasesWhenTheSentenceTransformersSettingsSaySo() throws Exception {
        Path model = TinyTaskModels.sequenceClassifier(work.resolve("cased"), List.of("A", "B"), "");
        Files.writeString(model.resolve("tokenizer_config.json"), "{\"do_lower_case\": false}");
        Files.writeString(model.resolve("sentence_bert_config.json"), "{\"max_seq_length\": 32, \"do_lower_case\": true}");
        Files.writeString(model.resolve("modules.json"), "[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", "
                + "\"type\": \"sentence_transformers.models.Transformer\"}]");
        EmbeddingServer cased = EmbeddingServer.start(ServerOptions.defaults().withPort(0));
        try {
            cased.ready(Models.of("cased", Embeddings.load(model.toString())));
            JsonNode tokens = JSON.readTree(post(cased, "tokenize", "{\"inputs\": \"Paris\"}").body()).get(0);
            assertEquals("paris", tokens.get(1).get("text").asText(), tokens.toString());
            assertEquals(Embeddings.load(model.toString()).tokenizer().tokenToId("paris"), tokens.get(1).get("id").asInt());
        } finally {
            cased.stop();
        }
    }

    @Test
    void badRequestsGetTeisErrors() throws Exception {
        assertError(post(classifying, "rerank", "{\"query\": \"q\", \"texts\": [\"a\"]}"), 424, "Backend", "model is not a re-ranker model");
        assertError(post(reranking, "rerank", "{\"query\": \"q\", \"texts\": []}"), 400, "Empty", "`texts` cannot be empty");
        assertError(post(reranking, "rerank", "{\"texts\": [\"a\"]}"), 422, "Validation", "`query` is missing");
        assertError(post(reranking, "predict", "{\"inputs\": [[\"a\", \"b\", \"c\"]]}"), 422, "Validation", "must be a text or a pair");
        assertError(post(classifying, "predict", "{\"inputs\": 3}"), 422, "Validation", "`inputs` must be a text");
        String longText = "the capital of france ".repeat(20);
        assertError(post(reranking, "rerank", "{\"query\": \"q\", \"texts\": [\"" + longText + "\"], \"truncate\": false}"), 422,
                "Validation", "longer than the model's 32");
        assertEquals(200, post(reranking, "rerank", "{\"query\": \"q\", \"texts\": [\"" + longText + "\"], \"truncate\": true}").statusCode());
        String many = JSON.writeValueAsString(java.util.Collections.nCopies(10_000, "a"));
        assertError(post(reranking, "rerank", "{\"query\": \"q\", \"texts\": " + many + "}"), 422, "Validation", "batch size");
    }

    private static void assertError(HttpResponse<String> r, int status, String type, String message) throws IOException {
        assertEquals(status, r.statusCode(), r.body());
        JsonNode body = JSON.readTree(r.body());
        assertEquals(type, body.get("error_type").asText(), r.body());
        assertTrue(body.get("error").asText().contains(message), r.body());
    }
}
