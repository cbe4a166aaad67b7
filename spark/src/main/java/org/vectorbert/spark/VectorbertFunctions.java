package org.vectorbert.spark;

import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.types.DataTypes;

/**
 * vectorbert as a Spark SQL function, for SQL and PySpark users:
 * {@code VectorbertFunctions.register(spark, "embed", new TextEmbedder().setModel(...))}, then
 * {@code SELECT embed(text) FROM docs}. A function sees one row at a time, so each text is its own
 * forward pass; the {@link TextEmbedder} batches a partition's texts by length and is the faster
 * way to embed a whole table.
 */
public final class VectorbertFunctions {
    private VectorbertFunctions() {}

    /**
     * Registers {@code name(text) -> array<float>} with {@code embedder}'s model and options (its columns are not used).
     *
     * @param spark    the session to register in
     * @param name     the SQL function's name
     * @param embedder its model and options
     */
    public static void register(SparkSession spark, String name, TextEmbedder embedder) {
        EmbedSettings settings = embedder.settings();
        spark.udf().register(name, (UDF1<String, float[]>) text -> text == null ? null : LoadedModels.get(settings).embed(text),
                DataTypes.createArrayType(DataTypes.FloatType, false));
    }
}
