package org.vectorbert.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.TinyTaskModels;

/** The classifier transformer in Spark local[2], single texts and query-passage pairs, against the library. */
@Tag("heavy")
class TextClassifierTest {
    static SparkSession spark;
    static Path sentiment;
    static Path reranker;
    static final StructType SCHEMA = new StructType().add("id", DataTypes.IntegerType, false)
            .add("query", DataTypes.StringType, true).add("text", DataTypes.StringType, true);
    static final List<String> WORDS = List.of("paris", "is", "the", "capital", "of", "france", "bananas", "are", "yellow", "berlin",
            "germany", "who", "wrote", "hamlet", "?", ".");

    @TempDir
    static Path work;

    @BeforeAll
    static void start() throws java.io.IOException {
        sentiment = TinyTaskModels.sequenceClassifier(work.resolve("sentiment"), List.of("NEG", "NEU", "POS"), "");
        reranker = TinyTaskModels.sequenceClassifier(work.resolve("reranker"), List.of("LABEL_0"), "");
        spark = TextEmbedderTest.localSession("local[2]").appName("vectorbert-classifier-test").getOrCreate();
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    static Dataset<Row> frame() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            StringBuilder t = new StringBuilder();
            for (int k = 0; k < 3 + i % 9; k++) {
                t.append(k == 0 ? "" : " ").append(WORDS.get((i * 7 + k * 3) % WORDS.size()));
            }
            rows.add(RowFactory.create(i, i % 3 == 0 ? "capital of france" : "who wrote hamlet", i == 5 ? null : t.toString()));
        }
        return spark.createDataFrame(rows, SCHEMA).repartition(3);
    }

    @Test
    void labelsAndScoresAreTheLibrarys() {
        org.vectorbert.engine.TextClassifier library = org.vectorbert.engine.TextClassifier.load(sentiment.toString());
        List<Row> out = new TextClassifier().setModel(sentiment.toString()).setRowsPerBatch(7).transform(frame()).collectAsList();
        assertEquals(60, out.size());
        for (Row r : out) {
            if (r.isNullAt(2)) {
                assertNull(r.get(3), "a null text gives a null label");
                continue;
            }
            var best = library.classify(r.getString(2)).getFirst();
            assertEquals(best.label(), r.getString(3));
            assertEquals(best.score(), r.getFloat(4), 1e-6);
        }
    }

    @Test
    void pairsScoreQueriesAgainstPassagesAsTheReranker() {
        org.vectorbert.engine.Reranker library = org.vectorbert.engine.Reranker.load(reranker.toString());
        List<Row> out = new TextClassifier().setModel(reranker.toString()).setPairCol("text").setInputCol("query")
                .setScoreCol("relevance").transform(frame()).collectAsList();
        for (Row r : out) {
            if (r.isNullAt(2)) {
                assertTrue(r.isNullAt(4));
                continue;
            }
            float want = library.scores(r.getString(1), List.of(r.getString(2)), false)[0];
            assertEquals(want, r.getFloat(r.fieldIndex("relevance")), 1e-6);
        }
    }

    @Test
    void candidateLabelsClassifyZeroShotAsTheLibrary() throws java.io.IOException {
        Path nli = TinyTaskModels.sequenceClassifier(work.resolve("nli"), List.of("entailment", "neutral", "contradiction"), "");
        org.vectorbert.engine.ZeroShotClassifier library = org.vectorbert.engine.ZeroShotClassifier.load(nli.toString());
        List<String> labels = List.of("geography", "literature", "fruit");
        for (boolean multi : new boolean[] {false, true}) {
            List<Row> out = new TextClassifier().setModel(nli.toString()).setCandidateLabels("geography, literature,fruit")
                    .setMultiLabel(multi).setHypothesisTemplate("The topic is {}.").setRowsPerBatch(5).transform(frame()).collectAsList();
            assertEquals(60, out.size());
            for (Row r : out) {
                if (r.isNullAt(2)) {
                    assertNull(r.get(3), "a null text gives a null label");
                    continue;
                }
                var best = library.classify(List.of(r.getString(2)), labels, "The topic is {}.", multi).getFirst().labels().getFirst();
                assertEquals(best.label(), r.getString(3));
                assertEquals(best.score(), r.getFloat(4), 1e-6);
            }
        }
        var noLabels = assertThrows(VectorbertSparkException.class,
                () -> new TextClassifier().setModel(nli.toString()).setCandidateLabels(" , ").transform(frame()));
        assertEquals("param candidateLabels names no label: give them comma-separated", noLabels.getMessage());
        var template = assertThrows(VectorbertSparkException.class, () -> new TextClassifier().setModel(nli.toString())
                .setCandidateLabels("a,b").setHypothesisTemplate("Topic.").transform(frame()));
        assertTrue(template.getMessage().startsWith("param hypothesisTemplate: the hypothesis template \"Topic.\" has no {}"),
                template.getMessage());
    }

    @Test
    void badParametersFailOnTheDriverWithOneLine() {
        var noModel = assertThrows(VectorbertSparkException.class, () -> new TextClassifier().transform(frame()));
        assertEquals("param model is not set: give a sequence-classification model", noModel.getMessage());
        var column = assertThrows(VectorbertSparkException.class, () -> new TextClassifier().setModel(sentiment.toString())
                .setInputCol("body").transform(frame()));
        assertTrue(column.getMessage().startsWith("column 'body' (param inputCol) is not in the data"), column.getMessage());
        var function = assertThrows(VectorbertSparkException.class, () -> new TextClassifier().setModel(sentiment.toString())
                .setFunctionToApply("tanh").transform(frame()));
        assertEquals("function_to_apply must be softmax, sigmoid or none, not 'tanh'", function.getMessage());
    }
}
