package org.vectorbert.spark;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;

/**
 * A whole job: read a text file (a line per text) or a Parquet dataset, embed a column, write
 * Parquet. With spark-submit it runs on the cluster spark-submit names; alone, in a local session.
 *
 * <pre>
 * spark-submit --class org.vectorbert.spark.EmbedJob vectorbert-spark-all.jar INPUT OUTPUT.parquet [MODEL [COLUMN]]
 * </pre>
 *
 * INPUT ending in {@code .parquet} (or a directory of Parquet files) is read as Parquet and COLUMN
 * (default {@code text}) embedded; anything else is read as text, a line per row, with an {@code id}
 * that follows the lines' order (Spark's monotonically_increasing_id). Input of fewer partitions than
 * cores is spread over every core. Prints the time
 * of each run; {@code -Dvectorbert.rounds=N} repeats the job in the same session (the first loads the
 * model and compiles the kernels; later ones show the steady rate).
 */
public final class EmbedJob {
    private EmbedJob() {}

    /**
     * Runs the job; exits 2 with a usage line when the arguments are wrong.
     *
     * @param args INPUT OUTPUT.parquet [MODEL [COLUMN]]
     */
    public static void main(String[] args) {
        if (args.length < 2 || args.length > 4) {
            System.err.println("usage: EmbedJob INPUT OUTPUT.parquet [MODEL [COLUMN]]");
            System.exit(2);
        }
        long start = System.nanoTime();
        SparkSession.Builder builder = SparkSession.builder().appName("vectorbert-embed");
        if (!System.getProperties().containsKey("spark.master")) {
            builder.master("local[*]").config("spark.ui.enabled", "false");     // run alone: a local session
        }
        SparkSession spark = builder.getOrCreate();
        try {
            boolean parquet = args[0].endsWith(".parquet") || new java.io.File(args[0], "_SUCCESS").exists();
            Dataset<Row> input = parquet ? spark.read().parquet(args[0])
                    : spark.read().text(args[0]).withColumnRenamed("value", "text").withColumn("id", functions.monotonically_increasing_id());
            int cores = spark.sparkContext().defaultParallelism();
            if (input.rdd().getNumPartitions() < cores) {
                // A file smaller than a split is one partition, one task: the other cores would idle.
                input = input.repartition(cores);
            }
            TextEmbedder embedder = new TextEmbedder().setInputCol(args.length > 3 ? args[3] : "text");
            if (args.length > 2 && !args[2].isBlank()) {
                embedder.setModel(args[2]);
            }
            System.out.printf("spark: session ready in %.1f s (%s)%n", (System.nanoTime() - start) / 1e9, spark.sparkContext().master());
            int rounds = Integer.getInteger("vectorbert.rounds", 1);
            for (int r = 1; r <= rounds; r++) {
                long job = System.nanoTime();
                embedder.transform(input).write().mode(SaveMode.Overwrite).parquet(args[1]);
                double seconds = (System.nanoTime() - job) / 1e9;
                long rows = spark.read().parquet(args[1]).count();
                System.out.printf("spark: run %d: %d texts in %.2f s (%.1f texts/s)%n", r, rows, seconds, rows / seconds);
            }
        } finally {
            spark.stop();
        }
    }
}
