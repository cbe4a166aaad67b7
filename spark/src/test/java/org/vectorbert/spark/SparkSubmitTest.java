package org.vectorbert.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;

/**
 * The README's spark-submit line with the shaded jar: Spark's own entry point (SparkSubmit, what
 * bin/spark-submit runs) in a child JVM whose class path holds Spark and its dependencies but none of
 * vectorbert's classes, so the jar alone must carry them. Runs after package (the jar exists then).
 */
@Tag("heavy")
class SparkSubmitTest {
    @Test
    void embedJobThroughSparkSubmitWithTheShadedJar(@TempDir Path dir) throws Exception {
        Path jar = Path.of(System.getProperty("vectorbert.spark.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " is not built");
        String model = RealModels.bertBaseUncased().toString();
        List<String> texts = List.of("The cat sat on the mat.", "Spark runs vectorbert in the executor's own JVM.", "",
                "A longer line, to give the partition texts of more than one length to group before the forward pass.");
        Files.write(dir.resolve("docs.txt"), texts, StandardCharsets.UTF_8);
        String flags = System.getProperty("vectorbert.spark.flags");
        String sparkOnly = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("vectorbert-")
                        && !entry.endsWith("classes") && !entry.endsWith("classes" + File.separator))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(Arrays.asList(flags.trim().split("\\s+")));
        command.addAll(List.of("-Xmx1g", "-cp", sparkOnly, "org.apache.spark.deploy.SparkSubmit", "--master", "local[2]",
                "--class", "org.vectorbert.spark.EmbedJob",
                "--conf", "spark.driver.extraJavaOptions=" + flags, "--conf", "spark.executor.extraJavaOptions=" + flags,
                "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1", "--conf", "spark.driver.bindAddress=127.0.0.1",
                jar.toString(), "docs.txt", "vectors.parquet", model));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("log").toFile()).start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("spark-submit did not end in 10 minutes");
        }
        String log = Files.readString(dir.resolve("log"));
        assertEquals(0, p.exitValue(), log);
        assertTrue(Files.exists(dir.resolve("vectors.parquet/_SUCCESS")), log);

        Embeddings library = Embeddings.load(model, EmbeddingOptions.defaults());
        SparkSession spark = TextEmbedderTest.localSession("local[1]").appName("vectorbert-read-back").getOrCreate();
        try {
            Map<String, float[]> byText = new HashMap<>();
            for (Row r : spark.read().parquet(dir.resolve("vectors.parquet").toString()).collectAsList()) {
                byText.put(r.getString(r.fieldIndex("text")), TextEmbedderTest.floats(r.getList(r.fieldIndex("embedding"))));
            }
            assertEquals(texts.size(), byText.size(), byText.keySet().toString());
            for (String text : texts) {
                assertArrayEquals(library.embed(text), byText.get(text), text);
            }
        } finally {
            spark.stop();
        }
    }
}
