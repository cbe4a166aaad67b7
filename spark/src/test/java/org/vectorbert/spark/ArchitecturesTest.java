package org.vectorbert.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.vectorbert.loader.SafetensorsFile;

/**
 * TextEmbedder and TextClassifier in Spark local[2] on MPNet, ModernBERT, NomicBERT, GTE and JinaBERT (the PyTorch reference fixtures in engine's
 * test resources): sentence embeddings with a named prompt, and a ModernBERT cross-encoder's scores, as the reference
 * computed them.
 */
@Tag("heavy")
class ArchitecturesTest {
    private static final Path ARCHITECTURES = Path.of(System.getProperty("user.dir"))
            .resolve("../engine/src/test/resources/architectures").normalize();
    private static final ObjectMapper JSON = new ObjectMapper();
    static SparkSession spark;

    @BeforeAll
    static void start() {
        spark = TextEmbedderTest.localSession("local[2]").appName("vectorbert-architectures-test").getOrCreate();
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    @Test
    void sentenceEmbeddingsAreTheReferences() throws IOException {
        for (String fixture : new String[] {"modernbert/modernbert-sentence-mean", "mpnet/mpnet-sentence-mean", "nomicbert/nomicbert-sentence",
            "gte/gte-base-en", "jinabert/jinabert-sentence-mean", "qwen3/qwen3-embedding", "gemma3/embeddinggemma"}) {
            Path dir = ARCHITECTURES.resolve(fixture);
            JsonNode first = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
            // Qwen3's reference ran a left-padded batch, whose shifted positions move the float32 angles by up to 5.5e-6.
            double tolerance = fixture.startsWith("qwen3") ? 1e-4 : 1e-5;
            List<Row> rows = new ArrayList<>();
            for (int s = 0; s < first.get("texts").size(); s++) {
                rows.add(RowFactory.create(s, first.get("texts").get(s).asText()));
            }
            TextEmbedder embedder = new TextEmbedder().setModel(dir.toString());
            if (first.has("prompt_name")) {
                embedder.setPromptName(first.get("prompt_name").asText());
            }
            List<Row> out = embedder.transform(spark.createDataFrame(rows, TextEmbedderTest.SCHEMA).repartition(2)).collectAsList();
            try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
                float[] want = expected.tensor("case0.sentence_embedding").toFloatArray();
                int dim = want.length / rows.size();
                assertEquals(rows.size(), out.size());
                for (Row r : out) {
                    float[] got = TextEmbedderTest.floats(r.getList(r.fieldIndex("embedding")));
                    for (int i = 0; i < dim; i++) {
                        assertEquals(want[r.getInt(0) * dim + i], got[i], tolerance, fixture + " row " + r.getInt(0) + " [" + i + "]");
                    }
                }
            }
        }
    }

    @Test
    void aModernBertCrossEncoderScoresPairsAsTheReference() throws IOException {
        Path dir = ARCHITECTURES.resolve("modernbert/modernbert-rerank");
        JsonNode pairs = JSON.readTree(dir.resolve("inputs.json").toFile()).get(1).get("texts");
        List<Row> rows = new ArrayList<>();
        for (int s = 0; s < pairs.size(); s++) {
            rows.add(RowFactory.create(s, pairs.get(s).get(0).asText(), pairs.get(s).get(1).asText()));
        }
        StructType schema = new StructType().add("id", DataTypes.IntegerType, false).add("query", DataTypes.StringType, true)
                .add("text", DataTypes.StringType, true);
        List<Row> out = new TextClassifier().setModel(dir.toString()).setInputCol("query").setPairCol("text").setScoreCol("relevance")
                .transform(spark.createDataFrame(rows, schema)).collectAsList();
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case1.logits").toFloatArray();
            for (Row r : out) {
                assertEquals(1 / (1 + Math.exp(-logits[r.getInt(0)])), r.getFloat(r.fieldIndex("relevance")), 1e-5, "pair " + r.getInt(0));
            }
        }
    }

    /** A DeBERTa-v3 NLI classifier zero-shot: each row's best candidate and its score, as the pipeline reference gives them. */
    @Test
    void aDebertaNliModelClassifiesZeroShotAsTheReference() throws IOException {
        Path dir = ARCHITECTURES.resolve("deberta/deberta-v3-nli");
        JsonNode single = JSON.readTree(dir.resolve("zeroshot.json").toFile()).get("cases").get(0);
        StructType schema = new StructType().add("text", DataTypes.StringType, true);
        List<Row> out = new TextClassifier().setModel(dir.toString()).setInputCol("text").setLabelCol("topic").setScoreCol("score")
                .setCandidateLabels(String.join(",", JSON.convertValue(single.get("candidate_labels"), String[].class)))
                .transform(spark.createDataFrame(List.of(RowFactory.create(single.get("sequence").asText())), schema)).collectAsList();
        JsonNode want = single.get("output");
        assertEquals(want.get("labels").get(0).asText(), out.getFirst().getString(out.getFirst().fieldIndex("topic")));
        assertEquals(want.get("scores").get(0).asDouble(), out.getFirst().getFloat(out.getFirst().fieldIndex("score")), 1e-4);
    }
}
