package org.vectorbert.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
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
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;

/** The transformer in Spark local[2] on the real bert-base-uncased, against the library. */
@Tag("heavy")
class TextEmbedderTest {
    static SparkSession spark;
    static String model;
    static Embeddings library;
    static final StructType SCHEMA = new StructType().add("id", DataTypes.IntegerType, false).add("text", DataTypes.StringType, true);
    static List<String> texts = new ArrayList<>();

    @TempDir
    static Path work;

    @BeforeAll
    static void start() {
        model = RealModels.bertBaseUncased().toString();
        library = Embeddings.load(model, EmbeddingOptions.defaults());
        String words = "the quick brown fox jumps over the lazy dog while a small bird sings in the old oak tree near the river";
        String[] w = words.split(" ");
        for (int i = 0; i < 150; i++) {
            texts.add(String.join(" ", java.util.Arrays.copyOfRange(w, i % 7, Math.min(w.length, i % 7 + 1 + (i * 13) % w.length))) + " " + i);
        }
        texts.add("");
        texts.add(null);
        texts.add("Ünïcödé, CJK 中文 and emoji 🙂");
        spark = localSession("local[2]").appName("vectorbert-test").config("spark.sql.shuffle.partitions", "3").getOrCreate();
    }

    /** A session started by a test: no UI, and the driver on loopback only. */
    static SparkSession.Builder localSession(String master) {
        return SparkSession.builder().master(master).config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1");
    }

    @AfterAll
    static void stop() {
        spark.stop();
    }

    static Dataset<Row> frame() {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            rows.add(RowFactory.create(i, texts.get(i)));
        }
        return spark.createDataFrame(rows, SCHEMA);
    }

    static Map<Integer, float[]> vectors(Dataset<Row> out, String column) {
        Map<Integer, float[]> byId = new HashMap<>();
        for (Row r : out.collectAsList()) {
            int at = r.fieldIndex(column);
            byId.put(r.getInt(0), r.isNullAt(at) ? null : floats(r.getList(at)));
        }
        return byId;
    }

    static float[] floats(List<Object> list) {
        float[] v = new float[list.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (Float) list.get(i);
        }
        return v;
    }

    static void assertLibraryVectors(Map<Integer, float[]> byId) {
        assertEquals(texts.size(), byId.size());
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i) == null) {
                assertNull(byId.get(i), "a null text gives a null vector");
            } else {
                assertArrayEquals(library.embed(texts.get(i)), byId.get(i), "row " + i + ": " + texts.get(i));
            }
        }
    }

    @Test
    void vectorsAreTheLibrarysWhateverThePartitioningAndOrder() {
        TextEmbedder embedder = new TextEmbedder().setModel(model).setRowsPerBatch(40);
        for (int partitions : new int[] {1, 3, 7}) {
            Dataset<Row> shuffled = frame().repartition(partitions).sortWithinPartitions(org.apache.spark.sql.functions.rand(partitions));
            Dataset<Row> out = embedder.transform(shuffled);
            assertEquals("array<float>", out.schema().apply("embedding").dataType().simpleString());
            assertLibraryVectors(vectors(out, "embedding"));
        }
    }

    /** Seven partitions on two task slots start many tasks at once: the JVM loads the model once, and kernels use one core a task. */
    @Test
    void oneLoadPerJvmAndTheTasksCores() {
        int before = LoadedModels.LOADS.get();
        TextEmbedder embedder = new TextEmbedder().setModel(model).setBatchTokens(4095).setRowsPerBatch(10);   // settings no other test uses
        assertLibraryVectors(vectors(embedder.transform(frame().repartition(7)), "embedding"));
        assertEquals(before + 1, LoadedModels.LOADS.get(), "the model was loaded once for all seven tasks");
        assertEquals(1, org.vectorbert.engine.Parallel.threads(), "spark.task.cpus is 1: each task's kernels run on its own core");
    }

    @Test
    void sqlFunction() {
        VectorbertFunctions.register(spark, "embed", new TextEmbedder().setModel(model));
        frame().createOrReplaceTempView("docs");
        assertLibraryVectors(vectors(spark.sql("SELECT id, embed(text) AS v FROM docs"), "v"));
    }

    @Test
    void savesLoadsAndRunsInAPipeline() throws Exception {
        TextEmbedder embedder = new TextEmbedder().setModel(model).setInputCol("text").setOutputCol("vec").setPooling("mean")
                .setNormalize(true);
        String path = work.resolve("embedder").toString();
        embedder.write().overwrite().save(path);
        TextEmbedder loaded = TextEmbedder.load(path);
        assertEquals(embedder.uid(), loaded.uid());
        assertEquals(embedder.settings(), loaded.settings());
        assertEquals("vec", loaded.getOrDefault(loaded.outputCol()));

        PipelineModel fitted = new Pipeline().setStages(new PipelineStage[] {loaded}).fit(frame());
        String pipelinePath = work.resolve("pipeline").toString();
        fitted.write().overwrite().save(pipelinePath);
        Dataset<Row> out = PipelineModel.load(pipelinePath).transform(frame());
        Embeddings mean = Embeddings.load(model, EmbeddingOptions.defaults().withPooling(org.vectorbert.engine.Pooling.MEAN).withNormalize(true));
        Map<Integer, float[]> byId = vectors(out, "vec");
        assertArrayEquals(mean.embed(texts.get(5)), byId.get(5));
    }

    /** A model shipped with the job (addFile, as spark-submit's --files does) is named by its file name. */
    @Test
    void aModelShippedWithTheJobIsFoundByItsName() throws Exception {
        // Under a name nothing else resolves (no directory here, no hub id in any cache): only the shipped copy answers.
        Path shipped = java.nio.file.Files.createDirectories(work.resolve("staging/vectorbert-shipped-model"));
        try (var files = java.nio.file.Files.list(Path.of(model))) {
            for (Path f : files.toList()) {
                java.nio.file.Files.createLink(shipped.resolve(f.getFileName()), f);
            }
        }
        spark.sparkContext().addFile(shipped.toString(), true);
        Dataset<Row> out = new TextEmbedder().setModel("vectorbert-shipped-model").transform(frame().limit(5));
        Map<Integer, float[]> byId = vectors(out, "embedding");
        assertArrayEquals(library.embed(texts.get(3)), byId.get(3));
    }

    @Test
    void writesParquetAndReadsItBack() {
        String path = work.resolve("vectors.parquet").toString();
        new TextEmbedder().setModel(model).transform(frame()).write().mode("overwrite").parquet(path);
        assertLibraryVectors(vectors(spark.read().parquet(path), "embedding"));
    }

    /** The driver sees the directory, so the job starts; the task that cannot load a model from it fails, saying which and where. */
    @Test
    void aModelAnExecutorCannotLoadFailsItsTaskNamingTheModelAndTheExecutor() throws Exception {
        Path notAModel = java.nio.file.Files.createDirectories(work.resolve("not-a-model"));
        Exception e = assertThrows(Exception.class, () -> new TextEmbedder().setModel(notAModel.toString()).transform(frame()).collectAsList());
        StringBuilder chain = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            chain.append(t.getMessage()).append('\n');
        }
        assertTrue(chain.toString().contains("the model '" + notAModel + "' (param model) cannot be loaded on executor driver: "), chain.toString());
    }

    @Test
    void badParamsAndColumnsFailBeforeTheJob() {
        Dataset<Row> numbers = spark.range(3).toDF("text");
        assertEquals("input column 'text' (param inputCol) is bigint, not string",
                assertThrows(VectorbertSparkException.class, () -> new TextEmbedder().setModel(model).transform(numbers)).getMessage());
        assertEquals("input column 'body' (param inputCol) is not in the data: it has id, text", assertThrows(VectorbertSparkException.class,
                () -> new TextEmbedder().setModel(model).setInputCol("body").transform(frame())).getMessage());
        assertTrue(assertThrows(VectorbertSparkException.class, () -> new TextEmbedder().setModel(model).setPooling("average")
                .transform(frame())).getMessage().startsWith("param pooling: "));
        assertTrue(assertThrows(VectorbertSparkException.class, () -> new TextEmbedder().setModel("/no/such/model")
                .transform(frame())).getMessage().startsWith("param model: /no/such/model does not exist on the driver"));
    }
}
