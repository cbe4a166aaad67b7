package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.loader.SafetensorsFile;

/**
 * The classifier and reranker pipelines on the family fixtures' sequence classifiers, through a
 * tokenizer that gives the reference cases' ids: scores are the pipeline's function of PyTorch's logits.
 */
class TaskPipelinesTest {
    private static final Map<Integer, String> BERT_SPECIALS = Map.of(0, "[PAD]", 101, "[CLS]", 102, "[SEP]");

    @TempDir
    Path dir;

    /** The fixture's weights and config with a numbered tokenizer beside them. */
    private Path model(String name, String tokenizerJson) throws IOException {
        Path weights = FamilyReferenceTest.resource(name);
        Path model = Files.createDirectories(dir.resolve(name));
        for (String f : List.of("config.json", "model.safetensors")) {
            Files.copy(weights.resolve(f), model.resolve(f));
        }
        Files.writeString(model.resolve("tokenizer.json"), tokenizerJson);
        return model;
    }

    private static float[] expected(String name, String tensor) {
        try (SafetensorsFile f = SafetensorsFile.open(FamilyReferenceTest.resource(name).resolve("expected.safetensors"))) {
            return f.tensor(tensor).toFloatArray();
        }
    }

    private static JsonNode inputs(String name) throws IOException {
        return new ObjectMapper().readTree(FamilyReferenceTest.resource(name).resolve("inputs.json").toFile());
    }

    /** The texts of row {@code row} of a case: the first, and the second of a pair (after the separator), without specials. */
    private static String[] texts(JsonNode c, int row, int sep, int firstSpecials) {
        List<Integer> ids = new ArrayList<>();
        JsonNode mask = c.get("attention_mask").get(row);
        for (int i = 0; i < mask.size() && mask.get(i).asInt() == 1; i++) {
            ids.add(c.get("input_ids").get(row).get(i).asInt());
        }
        int firstSep = ids.indexOf(sep);
        String first = NumberedTokenizer.text(ids.subList(firstSpecials, firstSep).stream().mapToInt(i -> i).toArray(), Map.of());
        int secondFrom = firstSep + 1;
        while (secondFrom < ids.size() && ids.get(secondFrom) == sep) {
            secondFrom++;
        }
        String second = secondFrom >= ids.size() ? null
                : NumberedTokenizer.text(ids.subList(secondFrom, ids.size() - 1).stream().mapToInt(i -> i).toArray(), Map.of());
        return new String[] {first, second};
    }

    private static float sigmoid(float x) {
        return (float) (1 / (1 + Math.exp(-x)));
    }

    @Test
    void aMultiLabelClassifierScoresEveryLabelBySigmoidAsThePipelineDoes() throws IOException {
        String name = "bert-seqcls-multilabel";
        TextClassifier classifier = TextClassifier.load(model(name, NumberedTokenizer.bert(128)).toString());
        assertEquals(List.of("toxic", "obscene", "insult"), classifier.labels().names());
        assertEquals(TextClassifier.Function.SIGMOID, TextClassifier.Function.defaultFor(classifier.labels()));
        JsonNode cases = inputs(name);
        // case2: one text; case1: two pairs.
        String[] single = texts(cases.get(2), 0, 102, 1);
        float[] logits = expected(name, "case2.logits");
        List<TextClassifier.Label> labels = classifier.classify(single[0]);
        checkSorted(labels, classifier.labels().names(), logits, 0, TextClassifier.Function.SIGMOID);
        List<String> firsts = new ArrayList<>();
        List<String> seconds = new ArrayList<>();
        for (int row = 0; row < 2; row++) {
            String[] pair = texts(cases.get(1), row, 102, 1);
            firsts.add(pair[0]);
            seconds.add(pair[1]);
        }
        float[] pairLogits = expected(name, "case1.logits");
        List<TextClassifier.Result> results = classifier.classify(firsts, seconds, TextClassifier.Function.SOFTMAX, 2, false);
        for (int row = 0; row < 2; row++) {
            assertEquals(2, results.get(row).labels().size(), "top_k 2");
            checkSorted(results.get(row).labels(), classifier.labels().names(), pairLogits, row * 3, TextClassifier.Function.SOFTMAX);
        }
        float[] raw = classifier.logits(firsts, seconds, false);
        for (int i = 0; i < raw.length; i++) {
            assertEquals(pairLogits[i], raw[i], 1e-4, "logit " + i);
        }
    }

    /** Labels best first, each score the function of the reference logits for that label. */
    private static void checkSorted(List<TextClassifier.Label> labels, List<String> names, float[] logits, int from,
                                    TextClassifier.Function function) {
        float[] row = Arrays.copyOfRange(logits, from, from + names.size());
        double[] want = new double[row.length];
        double sum = 0;
        for (int i = 0; i < row.length; i++) {
            want[i] = switch (function) {
                case SIGMOID -> sigmoid(row[i]);
                case SOFTMAX -> Math.exp(row[i]);
                case NONE -> row[i];
            };
            sum += want[i];
        }
        for (int k = 0; k < labels.size(); k++) {
            int id = names.indexOf(labels.get(k).label());
            double w = function == TextClassifier.Function.SOFTMAX ? want[id] / sum : want[id];
            assertEquals(w, labels.get(k).score(), 1e-5, labels.get(k).label());
            if (k > 0) {
                assertTrue(labels.get(k - 1).score() >= labels.get(k).score(), "sorted: " + labels);
            }
        }
    }

    @Test
    void aRegressionHeadGivesItsLogitAndRerankerScoresArePairSigmoids() throws IOException {
        String name = "xlm-roberta-seqcls-regression";
        Path model = model(name, NumberedTokenizer.roberta(150, 0, 2));
        TextClassifier classifier = TextClassifier.load(model.toString());
        assertEquals(TextClassifier.Function.NONE, TextClassifier.Function.defaultFor(classifier.labels()));
        JsonNode cases = inputs(name);
        float[] single = expected(name, "case2.logits");
        assertEquals(single[0], classifier.classify(texts(cases.get(2), 0, 2, 1)[0]).getFirst().score(), 1e-4);

        Reranker reranker = Reranker.of(classifier.model(), classifier.tokenizer());
        float[] pairLogits = expected(name, "case1.logits");
        for (int row = 0; row < 2; row++) {
            String[] pair = texts(cases.get(1), row, 2, 1);
            // The query against three texts: the case's own and two others; the case's score is the reference's.
            List<String> docs = List.of("t5 t6", pair[1], "t7 t8 t9");
            float[] raw = reranker.scores(pair[0], docs, true);
            assertEquals(pairLogits[row], raw[1], 1e-4, "raw score of row " + row);
            float[] scores = reranker.scores(pair[0], docs, false);
            List<Reranker.Score> ranked = reranker.rank(pair[0], docs, false, 2);
            assertEquals(2, ranked.size());
            Integer[] order = IntStream.range(0, 3).boxed().sorted((a, b) -> Float.compare(scores[b], scores[a])).toArray(Integer[]::new);
            assertEquals(List.of(order[0], order[1]), ranked.stream().map(Reranker.Score::index).toList());
            for (int i = 0; i < 3; i++) {
                assertEquals(sigmoid(raw[i]), scores[i], 1e-6);
            }
        }
        assertEquals("there are no texts to rerank", assertThrows(EngineException.class, () -> reranker.rank("q", List.of(), false, 1))
                .getMessage());
    }

    @Test
    void aModelWithoutTheHeadOrWithSeveralLabelsIsRefusedWithWhatItHas() throws IOException {
        Path mlm = model("roberta-mlm", NumberedTokenizer.roberta(160, 0, 2));
        String noHead = assertThrows(EngineException.class, () -> TextClassifier.load(mlm.toString())).getMessage();
        assertEquals(mlm + " has no sequence-classification head (missing classifier.dense.weight, classifier.dense.bias, "
                + "classifier.out_proj.weight, classifier.out_proj.bias): it cannot classify texts or rerank", noHead);
        Path three = model("bert-seqcls-multilabel", NumberedTokenizer.bert(128));
        String notReranker = assertThrows(EngineException.class, () -> Reranker.load(three.toString())).getMessage();
        assertEquals(three + " is not a reranker: its classifier has 3 labels [toxic, obscene, insult], a reranker one score", notReranker);
    }

    @Test
    void anId2labelOfTheWrongSizeIsRefusedNamingBoth() throws IOException {
        Path model = model("roberta-seqcls", NumberedTokenizer.roberta(160, 0, 2));
        ObjectNode config = (ObjectNode) new ObjectMapper().readTree(model.resolve("config.json").toFile());
        config.putObject("id2label").put("0", "A").put("1", "B");
        config.putObject("label2id").put("A", 0).put("B", 1);
        Files.writeString(model.resolve("config.json"), config.toString());
        String e = assertThrows(VectorbertException.class, () -> TextClassifier.load(model.toString())).getMessage();
        assertTrue(e.endsWith("classifier.out_proj.weight gives 3 outputs but config.json's id2label names 2 labels"), e);
    }

    @Test
    void tokenClassificationScoresEachTokenBySoftmaxWithItsSpan() throws IOException {
        String name = "bert-tokcls";
        TokenClassifier ner = TokenClassifier.load(model(name, NumberedTokenizer.bert(128)).toString());
        JsonNode single = inputs(name).get(2);
        String text = texts(single, 0, 102, 1)[0];
        float[] logits = expected(name, "case2.logits");
        int n = ner.labels().count();
        List<TokenClassifier.Entity> tokens = ner.entities(text, TokenClassifier.Aggregation.NONE, java.util.Set.of());
        assertEquals(18, tokens.size(), "every token but [CLS] and [SEP]");
        int at = 0;
        for (int k = 0; k < tokens.size(); k++) {
            TokenClassifier.Entity e = tokens.get(k);
            int position = k + 1;
            float[] row = Arrays.copyOfRange(logits, position * n, (position + 1) * n);
            int best = 0;
            double sum = 0;
            for (int j = 0; j < n; j++) {
                best = row[j] > row[best] ? j : best;
                sum += Math.exp(row[j]);
            }
            assertEquals(ner.labels().names().get(best), e.entity());
            assertEquals(Math.exp(row[best]) / sum, e.score(), 1e-5);
            assertEquals(position, e.index());
            String word = "t" + single.get("input_ids").get(0).get(position).asInt();
            assertEquals(word, e.word());
            assertEquals(text.indexOf(word, at), e.start());
            assertEquals(e.start() + word.length(), e.end());
            at = e.end();
        }
        List<TokenClassifier.Entity> entities = ner.entities(text, TokenClassifier.Aggregation.SIMPLE, java.util.Set.of("O"));
        assertTrue(entities.stream().noneMatch(e -> e.entity().equals("O") || e.entity().startsWith("B-")), entities.toString());
    }
}
