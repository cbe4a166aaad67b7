package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Truncation;

/**
 * The task pipelines against transformers' pipelines as an independent reference computes them
 * (tools/torch-reference/make_pipeline_fixtures.py: a PyTorch forward and the pipelines' post-processing
 * written from their documented behaviour, tokenized by Hugging Face's tokenizers), on small random
 * encoders with calibrated heads over the real all-MiniLM-L6-v2 tokenizer and a trained byte-level BPE
 * (resources/pipelines, its README). Labels, orders, words and offsets must be equal; scores within
 * 1e-5 + 1e-4 relative, as the reference keeps every decision at least 2e-5 away from a tie.
 */
class TaskPipelineParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path temp;

    /** A model directory: the task's config and head shard, the family's encoder shard and tokenizer. */
    private Path model(String task, String family) throws IOException {
        Path root;
        try {
            root = Path.of(TaskPipelineParityTest.class.getResource("/pipelines").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Path dir = Files.createDirectories(temp.resolve(task + "-" + family));
        try (var files = Files.list(root.resolve(task + "-" + family))) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals("cases.jsonl")) {
                    Files.copy(f, dir.resolve(f.getFileName()));
                }
            }
        }
        Files.copy(root.resolve(family + ".encoder.safetensors"), dir.resolve("model-00001-of-00002.safetensors"));
        Files.copy(root.resolve(family + ".tokenizer.json"), dir.resolve("tokenizer.json"));
        return dir;
    }

    private static List<JsonNode> cases(String task, String family) throws IOException {
        List<JsonNode> cases = new ArrayList<>();
        for (String line : Files.readAllLines(resource(task + "-" + family + "/cases.jsonl"))) {
            cases.add(JSON.readTree(line));
        }
        return cases;
    }

    private static Path resource(String name) {
        try {
            return Path.of(TaskPipelineParityTest.class.getResource("/pipelines/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A pipeline's answer for one input, or its list of answers, as a list. */
    private static List<JsonNode> oneOrMany(JsonNode output) {
        List<JsonNode> all = new ArrayList<>();
        if (output.isArray()) {
            output.forEach(all::add);
        } else {
            all.add(output);
        }
        return all;
    }

    private static void assertScore(double expected, double actual, String what) {
        assertEquals(expected, actual, 1e-5 + 1e-4 * Math.abs(expected), what);
    }

    /** transformers' zero-shot-classification pipeline on NLI heads whose entailment label is first, last, in the middle, or one of two. */
    @ParameterizedTest
    @ValueSource(strings = {"zeroshot-bert", "zeroshot-roberta", "zeroshot-middle-bert", "zeroshot-binary-bert"})
    void zeroShotClassificationMatchesThePipeline(String name) throws IOException {
        int dash = name.lastIndexOf('-');
        String task = name.substring(0, dash);
        String family = name.substring(dash + 1);
        ZeroShotClassifier zeroShot = ZeroShotClassifier.load(model(task, family).toString());
        List<JsonNode> cases = cases(task, family);
        assertEquals(40, cases.size());
        for (JsonNode c : cases) {
            String where = name + " #" + c.get("id").asInt();
            List<String> sequences = new ArrayList<>();
            if (c.get("sequence").isTextual()) {
                sequences.add(c.get("sequence").asText());
            } else {
                c.get("sequence").forEach(t -> sequences.add(t.asText()));
            }
            JsonNode given = c.get("candidate_labels");
            List<String> labels = new ArrayList<>();
            if (given.isTextual()) {
                labels.addAll(ZeroShotClassifier.parseLabels(given.asText()));
            } else {
                given.forEach(l -> labels.add(l.asText()));
            }
            String template = c.get("hypothesis_template").asText();
            // The pairs as the pipeline tokenized them: the sequence cut first, the hypothesis whole.
            List<String> premises = new ArrayList<>();
            List<String> hypotheses = new ArrayList<>();
            for (String s : sequences) {
                for (String l : labels) {
                    premises.add(s);
                    hypotheses.add(ZeroShotClassifier.hypothesis(template, l));
                }
            }
            List<Encoding> encodings = zeroShot.classifier().encode(premises, hypotheses, Truncation.ONLY_FIRST);
            for (int i = 0; i < encodings.size(); i++) {
                int[] want = new int[c.get("input_ids").get(i).size()];
                for (int t = 0; t < want.length; t++) {
                    want[t] = c.get("input_ids").get(i).get(t).asInt();
                }
                assertArrayEquals(want, encodings.get(i).ids(), where + " pair " + i);
            }
            List<ZeroShotClassifier.Result> results = zeroShot.classify(sequences, labels, template, c.get("multi_label").asBoolean());
            JsonNode output = c.get("output");
            List<JsonNode> want = oneOrMany(output);
            assertEquals(want.size(), results.size(), where);
            for (int s = 0; s < want.size(); s++) {
                assertEquals(want.get(s).get("sequence").asText(), results.get(s).sequence(), where);
                List<TextClassifier.Label> got = results.get(s).labels();
                assertEquals(want.get(s).get("labels").size(), got.size(), where);
                for (int k = 0; k < got.size(); k++) {
                    assertEquals(want.get(s).get("labels").get(k).asText(), got.get(k).label(), where + " sequence " + s + " rank " + k);
                    assertScore(want.get(s).get("scores").get(k).asDouble(), got.get(k).score(), where + " score " + k);
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"seqcls-bert", "seqcls-roberta", "multilabel-bert"})
    void textClassificationMatchesThePipeline(String name) throws IOException {
        String[] parts = name.split("-");
        TextClassifier classifier = TextClassifier.load(model(parts[0], parts[1]).toString());
        List<JsonNode> cases = cases(parts[0], parts[1]);
        assertTrue(cases.size() >= 300, cases.size() + " cases");
        for (JsonNode c : cases) {
            JsonNode input = c.get("input");
            String text = input.isTextual() ? input.asText() : input.get("text").asText();
            List<String> pair = input.isTextual() ? null : List.of(input.get("text_pair").asText());
            JsonNode kwargs = c.get("kwargs");
            int n = classifier.labels().count();
            int topK = !kwargs.has("top_k") ? 1 : kwargs.get("top_k").isNull() ? n : kwargs.get("top_k").asInt();
            TextClassifier.Function function = kwargs.has("function_to_apply")
                    ? TextClassifier.Function.parse(kwargs.get("function_to_apply").asText())
                    : TextClassifier.Function.defaultFor(classifier.labels());
            boolean truncate = kwargs.path("truncation").asBoolean(false);
            TextClassifier.Result r = classifier.classify(List.of(text), pair, function, topK, truncate).getFirst();
            String where = name + " #" + c.get("id").asInt();
            assertEquals(c.get("n_tokens").asInt(), r.tokens(), where + " tokens");
            float[] logits = classifier.logits(List.of(text), pair, truncate);
            for (int i = 0; i < n; i++) {
                assertEquals(c.get("logits").get(i).asDouble(), logits[i], 1e-4, where + " logit " + i);
            }
            JsonNode output = c.get("output");
            List<JsonNode> want = oneOrMany(output);
            assertEquals(want.size(), r.labels().size(), where + " labels");
            for (int k = 0; k < want.size(); k++) {
                assertEquals(want.get(k).get("label").asText(), r.labels().get(k).label(), where + " label " + k);
                assertScore(want.get(k).get("score").asDouble(), r.labels().get(k).score(), where + " score " + k);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bert", "roberta"})
    void rerankingMatchesCrossEncoderAndTei(String family) throws IOException {
        Reranker reranker = Reranker.load(model("rerank", family).toString());
        List<JsonNode> cases = cases("rerank", family);
        assertTrue(cases.size() >= 100, cases.size() + " queries");
        for (JsonNode c : cases) {
            String where = "rerank-" + family + " #" + c.get("id").asInt();
            List<String> docs = new ArrayList<>();
            c.get("documents").forEach(d -> docs.add(d.asText()));
            String query = c.get("query").asText();
            float[] raw = reranker.scores(query, docs, true);
            float[] scores = reranker.scores(query, docs, false);
            for (int i = 0; i < docs.size(); i++) {
                assertEquals(c.get("logits").get(i).asDouble(), raw[i], 1e-4, where + " logit " + i);
                assertScore(c.get("scores").get(i).asDouble(), scores[i], where + " score " + i);
            }
            // CrossEncoder.rank's order: by score, equal scores (identical documents) in the documents' order.
            List<Reranker.Score> ranked = reranker.rank(query, docs, false, docs.size());
            for (int k = 0; k < docs.size(); k++) {
                assertEquals(c.get("ce_rank").get(k).get("corpus_id").asInt(), ranked.get(k).index(), where + " rank " + k);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bert", "roberta"})
    void tokenClassificationMatchesThePipeline(String family) throws IOException {
        TokenClassifier ner = TokenClassifier.load(model("ner", family).toString());
        List<JsonNode> cases = cases("ner", family);
        int checked = 0;
        int strided = 0;
        for (JsonNode c : cases) {
            int stride = c.get("stride").isNull() ? -1 : c.get("stride").asInt();
            strided += stride >= 0 && c.get("n_tokens").size() > 1 ? 1 : 0;
            String text = c.get("text").asText();
            for (TokenClassifier.Aggregation a : TokenClassifier.Aggregation.values()) {
                String strategy = a.name().toLowerCase(java.util.Locale.ROOT);
                // With a stride the pipeline refuses an explicit "none"; its default (no strategy) is none.
                String key = stride >= 0 && a == TokenClassifier.Aggregation.NONE ? "default" : strategy;
                String where = "ner-" + family + " #" + c.get("id").asInt() + " " + key + " stride " + stride;
                List<TokenClassifier.Entity> got = ner.tag(List.of(text), a, Set.of("O"), stride).getFirst().entities();
                JsonNode want = c.get("outputs").get(key);
                assertEquals(want.size(), got.size(), where + ": " + want + " vs " + got);
                for (int k = 0; k < want.size(); k++) {
                    JsonNode w = want.get(k);
                    TokenClassifier.Entity e = got.get(k);
                    assertEquals(w.has("entity") ? w.get("entity").asText() : w.get("entity_group").asText(), e.entity(), where + " " + k);
                    assertEquals(w.get("word").asText(), e.word(), where + " word " + k);
                    assertEquals(w.get("start").asInt(), e.start(), where + " start " + k);
                    assertEquals(w.get("end").asInt(), e.end(), where + " end " + k);
                    if (w.has("index")) {
                        assertEquals(w.get("index").asInt(), e.index(), where + " index " + k);
                    }
                    assertScore(w.get("score").asDouble(), e.score(), where + " score " + k);
                }
            }
            checked++;
        }
        assertEquals(300, checked);
        assertTrue(strided >= 5, strided + " texts over several windows");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bert", "roberta"})
    void questionAnsweringMatchesThePipeline(String family) throws IOException {
        QuestionAnswerer qa = QuestionAnswerer.load(model("qa", family).toString());
        List<JsonNode> cases = cases("qa", family);
        int windowed = 0;
        for (JsonNode c : cases) {
            JsonNode k = c.get("kwargs");
            QuestionAnswerer.Options options = QuestionAnswerer.Options.defaults()
                    .withTopK(k.path("top_k").asInt(1))
                    .withMaxAnswerLength(k.path("max_answer_len").asInt(15))
                    .withDocStride(k.path("doc_stride").asInt(-1))
                    .withHandleImpossibleAnswer(k.path("handle_impossible_answer").asBoolean(false))
                    .withAlignToWords(k.path("align_to_words").asBoolean(true));
            String where = "qa-" + family + " #" + c.get("id").asInt() + " " + k;
            QuestionAnswerer.Result got = qa.answer(List.of(new QuestionAnswerer.Question(c.get("question").asText(),
                    c.get("context").asText())), options).getFirst();
            assertEquals(c.get("n_windows").asInt(), got.windows(), where + " windows");
            windowed += got.windows() > 1 ? 1 : 0;
            JsonNode output = c.get("output");
            List<JsonNode> want = oneOrMany(output);
            assertEquals(want.size(), got.answers().size(), where + ": " + want + " vs " + got.answers());
            for (int i = 0; i < want.size(); i++) {
                JsonNode w = want.get(i);
                QuestionAnswerer.Answer a = got.answers().get(i);
                assertEquals(w.get("answer").asText(), a.answer(), where + " answer " + i);
                assertEquals(w.get("start").asInt(), a.start(), where + " start " + i);
                assertEquals(w.get("end").asInt(), a.end(), where + " end " + i);
                assertEquals(w.get("score").asDouble(), a.score(), 1e-4 * Math.abs(w.get("score").asDouble()) + 1e-12,
                        where + " score " + i);
            }
        }
        assertEquals(300, cases.size());
        assertTrue(windowed >= 30, windowed + " questions over several windows");
    }
}
