package org.vectorbert.spark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.ml.Transformer;
import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsReadable;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.Precision;

/**
 * A Spark ML {@link Transformer} that adds a column of vectors for a column of texts, with
 * vectorbert in the executors' own JVMs.
 *
 * <p>The vectors are {@code array<float>}: the float32 the model computes, bit for bit (an ML
 * {@code Vector} holds doubles, twice the bytes for no more information), readable from SQL,
 * PySpark and Parquet without Spark ML; {@code org.apache.spark.ml.functions.array_to_vector} turns
 * them into ML vectors where an estimator wants those. A null text gives a null vector; an empty
 * text gives what the library gives it ([CLS] [SEP]'s vector).
 *
 * <p>Each executor JVM loads the model once, shared by its tasks ({@link LoadedModels}); each
 * partition is read {@link #rowsPerBatch} rows at a time, and those texts are grouped by length
 * into forward passes of at most {@link #batchTokens} positions; nothing is collected to the driver.
 */
public final class TextEmbedder extends Transformer implements DefaultParamsWritable {
    private static final long serialVersionUID = 1L;

    /** The stage's identifier, kept when it is saved. */
    private final String uid;
    /** Param: the text column (string). */
    private final Param<String> inputCol;
    /** Param: the vector column added ({@code array<float>}). */
    private final Param<String> outputCol;
    /** Param: the model, as vectorbert's --model names it: a directory every executor sees, a hub id, or empty for the default bert-base-uncased. */
    private final Param<String> model;
    /** Param: cls, mean, max, mean_sqrt_len, lasttoken or pooler, comma-separated (unset: the model's). */
    private final Param<String> pooling;
    /** Param: scale vectors to unit length (unset: the model's). */
    private final BooleanParam normalize;
    /** Param: a prompt the model names, put before every text. */
    private final Param<String> promptName;
    /** Param: cut texts longer than the model takes, else fail (unset: the model's). */
    private final BooleanParam truncate;
    /** Param: f32 (exact) or bf16 (weight matrices at half the bytes). */
    private final Param<String> precision;
    /** Param: positions, padding included, a forward pass may hold. */
    private final IntParam batchTokens;
    /** Param: rows of a partition read at a time and grouped by length. */
    private final IntParam rowsPerBatch;

    /** A stage with a new uid and every param at its default. */
    public TextEmbedder() {
        this(Identifiable$.MODULE$.randomUID("vectorbert"));
    }

    /**
     * Spark ML's persistence makes one with the saved uid.
     *
     * @param uid the stage's uid
     */
    public TextEmbedder(String uid) {
        this.uid = uid;
        inputCol = new Param<>(this, "inputCol", "the text column (string)");
        outputCol = new Param<>(this, "outputCol", "the vector column added (array<float>)");
        model = new Param<>(this, "model", "the model, as vectorbert's --model names it: a directory every executor sees, a hub id,"
                + " or empty for the default bert-base-uncased");
        pooling = new Param<>(this, "pooling", "cls, mean, max, mean_sqrt_len, lasttoken or pooler, comma-separated (unset: the model's)");
        normalize = new BooleanParam(this, "normalize", "scale vectors to unit length (unset: the model's)");
        promptName = new Param<>(this, "promptName", "a prompt the model's config_sentence_transformers.json names, such as query,"
                + " put before every text (unset: the model's default prompt, if any)");
        truncate = new BooleanParam(this, "truncate", "cut texts longer than the model takes, else fail (unset: the model's)");
        precision = new Param<>(this, "precision", "f32 (exact) or bf16 (weight matrices at half the bytes)");
        batchTokens = new IntParam(this, "batchTokens", "positions, padding included, a forward pass may hold");
        rowsPerBatch = new IntParam(this, "rowsPerBatch", "rows of a partition read at a time and grouped by length");
        setDefault(inputCol, "text");
        setDefault(outputCol, "embedding");
        setDefault(model, "");
        setDefault(precision, "f32");
        setDefault(batchTokens, org.vectorbert.engine.EmbeddingOptions.BATCH_TOKENS);
        setDefault(rowsPerBatch, 2048);
    }

    /** {@return Spark ML's reader of saved stages} */
    public static MLReader<TextEmbedder> read() {
        return new DefaultParamsReadable<TextEmbedder>() {}.read();
    }

    /**
     * Reads a stage saved with {@code write().save(path)}.
     *
     * @param path where it was saved
     * @return the stage
     */
    public static TextEmbedder load(String path) {
        return read().load(path);
    }

    @Override
    public String uid() {
        return uid;
    }

    /** {@return the {@code inputCol} param: the text column (string)} */
    public Param<String> inputCol() { return inputCol; }
    /** {@return the {@code outputCol} param: the vector column added ({@code array<float>})} */
    public Param<String> outputCol() { return outputCol; }
    /** {@return the {@code model} param: the model, as vectorbert's --model names it: a directory every executor sees, a hub id, or empty for the default bert-base-uncased} */
    public Param<String> model() { return model; }
    /** {@return the {@code pooling} param: cls, mean, max, mean_sqrt_len, lasttoken or pooler, comma-separated (unset: the model's)} */
    public Param<String> pooling() { return pooling; }
    /** {@return the {@code normalize} param: scale vectors to unit length (unset: the model's)} */
    public BooleanParam normalize() { return normalize; }
    /** {@return the {@code promptName} param: a prompt the model names, put before every text (unset: the model's default)} */
    public Param<String> promptName() { return promptName; }
    /** {@return the {@code truncate} param: cut texts longer than the model takes, else fail (unset: the model's)} */
    public BooleanParam truncate() { return truncate; }
    /** {@return the {@code precision} param: f32 (exact) or bf16 (weight matrices at half the bytes)} */
    public Param<String> precision() { return precision; }
    /** {@return the {@code batchTokens} param: positions, padding included, a forward pass may hold} */
    public IntParam batchTokens() { return batchTokens; }
    /** {@return the {@code rowsPerBatch} param: rows of a partition read at a time and grouped by length} */
    public IntParam rowsPerBatch() { return rowsPerBatch; }

    /**
     * Sets {@link #inputCol()}.
     *
     * @param v the text column (string)
     * @return this stage
     */
    public TextEmbedder setInputCol(String v) { set(inputCol, v); return this; }
    /**
     * Sets {@link #outputCol()}.
     *
     * @param v the vector column added ({@code array<float>})
     * @return this stage
     */
    public TextEmbedder setOutputCol(String v) { set(outputCol, v); return this; }
    /**
     * Sets {@link #model()}.
     *
     * @param v the model, as vectorbert's --model names it: a directory every executor sees, a hub id, or empty for the
     *          default bert-base-uncased
     * @return this stage
     */
    public TextEmbedder setModel(String v) { set(model, v); return this; }
    /**
     * Sets {@link #pooling()}.
     *
     * @param v cls, mean, max, mean_sqrt_len, lasttoken or pooler, comma-separated (unset: the model's)
     * @return this stage
     */
    public TextEmbedder setPooling(String v) { set(pooling, v); return this; }
    /**
     * Sets {@link #normalize()}.
     *
     * @param v scale vectors to unit length (unset: the model's)
     * @return this stage
     */
    public TextEmbedder setNormalize(boolean v) { set(normalize, v); return this; }
    /**
     * Sets {@link #promptName()}.
     *
     * @param v a prompt the model's config_sentence_transformers.json names, such as query
     * @return this stage
     */
    public TextEmbedder setPromptName(String v) { set(promptName, v); return this; }
    /**
     * Sets {@link #truncate()}.
     *
     * @param v cut texts longer than the model takes, else fail (unset: the model's)
     * @return this stage
     */
    public TextEmbedder setTruncate(boolean v) { set(truncate, v); return this; }
    /**
     * Sets {@link #precision()}.
     *
     * @param v f32 (exact) or bf16 (weight matrices at half the bytes)
     * @return this stage
     */
    public TextEmbedder setPrecision(String v) { set(precision, v); return this; }
    /**
     * Sets {@link #batchTokens()}.
     *
     * @param v positions, padding included, a forward pass may hold
     * @return this stage
     */
    public TextEmbedder setBatchTokens(int v) { set(batchTokens, v); return this; }
    /**
     * Sets {@link #rowsPerBatch()}.
     *
     * @param v rows of a partition read at a time and grouped by length
     * @return this stage
     */
    public TextEmbedder setRowsPerBatch(int v) { set(rowsPerBatch, v); return this; }

    /**
     * The settings executors load the model with, checked on the driver so that a bad parameter
     * fails before the job runs.
     */
    EmbedSettings settings() {
        String m = $(model).isBlank() ? null : $(model);
        EmbedSettings s = new EmbedSettings(m, $(precision), isSet(pooling) ? $(pooling) : null,
                isSet(normalize) ? (Boolean) $(normalize) : null, isSet(truncate) ? (Boolean) $(truncate) : null,
                isSet(promptName) ? $(promptName) : null, (Integer) $(batchTokens));
        try {
            Precision.parse(s.precision());
        } catch (VectorbertException e) {
            throw new VectorbertSparkException("param precision: " + e.getMessage());
        }
        try {
            s.options();
        } catch (VectorbertException e) {
            throw new VectorbertSparkException("param pooling: " + e.getMessage());
        }
        if ((Integer) $(batchTokens) <= 0 || (Integer) $(rowsPerBatch) <= 0) {
            throw new VectorbertSparkException("params batchTokens and rowsPerBatch must be positive");
        }
        if (m != null && (m.startsWith("/") || m.startsWith(".")) && !Files.exists(Path.of(m))) {
            throw new VectorbertSparkException("param model: " + m + " does not exist on the driver; give a directory every executor "
                    + "sees (a shared file system), a file shipped with the job (--files or addFile, then its name), or a hub id");
        }
        return s;
    }

    @Override
    public StructType transformSchema(StructType schema) {
        String in = $(inputCol);
        String out = $(outputCol);
        if (!Arrays.asList(schema.fieldNames()).contains(in)) {
            throw new VectorbertSparkException("input column '" + in + "' (param inputCol) is not in the data: it has "
                    + String.join(", ", schema.fieldNames()));
        }
        if (!schema.apply(in).dataType().equals(DataTypes.StringType)) {
            throw new VectorbertSparkException("input column '" + in + "' (param inputCol) is " + schema.apply(in).dataType().simpleString()
                    + ", not string");
        }
        if (Arrays.asList(schema.fieldNames()).contains(out)) {
            throw new VectorbertSparkException("output column '" + out + "' (param outputCol) is already in the data");
        }
        return schema.add(new StructField(out, DataTypes.createArrayType(DataTypes.FloatType, false), true,
                org.apache.spark.sql.types.Metadata.empty()));
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = transformSchema(dataset.schema());
        EmbedSettings settings = settings();
        int column = dataset.schema().fieldIndex($(inputCol));
        int rows = (Integer) $(rowsPerBatch);
        return dataset.toDF().mapPartitions((MapPartitionsFunction<Row, Row>) partition ->
                new BatchedRows(partition, rows, batch -> embedded(batch, settings, column)), Encoders.row(schema));
    }

    @Override
    public TextEmbedder copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** A batch of a partition's rows with their vectors appended (null for a null text). */
    private static List<Row> embedded(List<Row> in, EmbedSettings settings, int column) {
        List<String> texts = new ArrayList<>(in.size());
        for (Row r : in) {
            if (!r.isNullAt(column)) {
                texts.add(r.getString(column));
            }
        }
        Iterator<float[]> vectors = LoadedModels.get(settings).embed(texts).iterator();
        List<Row> out = new ArrayList<>(in.size());
        for (Row r : in) {
            out.add(BatchedRows.appended(r, r.isNullAt(column) ? null : vectors.next()));
        }
        return out;
    }
}
