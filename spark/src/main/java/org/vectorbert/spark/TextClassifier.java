package org.vectorbert.spark;

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
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructType;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.Precision;
import org.vectorbert.engine.ZeroShotClassifier;

/**
 * A Spark ML {@link Transformer} that labels a text column with a sequence-classification model,
 * as the library's {@code TextClassifier} (transformers' text-classification pipeline) does: a label
 * column (the best label) and a score column. With {@link #pairCol} each row's two texts are
 * classified as a pair, which scores query-passage pairs with a cross-encoder reranker (one label:
 * the sigmoid of its logit, or the logit with {@code functionToApply} "none"). A null text gives a
 * null label and score. With {@link #candidateLabels} set, an NLI model classifies zero-shot, as the library's
 * {@code ZeroShotClassifier} (transformers' zero-shot-classification pipeline) does: the best candidate and its score.
 * Models load once per executor JVM and rows are grouped by length into forward passes, as {@link TextEmbedder} does.
 */
public final class TextClassifier extends Transformer implements DefaultParamsWritable {
    private static final long serialVersionUID = 1L;

    /** The stage's identifier, kept when it is saved. */
    private final String uid;
    /** Param: the text column (string). */
    private final Param<String> inputCol;
    /** Param: a second text column: each row classified as the pair (inputCol, pairCol). */
    private final Param<String> pairCol;
    /** Param: the label column added (string). */
    private final Param<String> labelCol;
    /** Param: the score column added (float). */
    private final Param<String> scoreCol;
    /** Param: a sequence-classification model, as vectorbert's --model names it. */
    private final Param<String> model;
    /** Param: softmax, sigmoid or none (unset: as the pipeline picks it). */
    private final Param<String> functionToApply;
    /** Param: cut inputs longer than the model takes (longest first), else fail. */
    private final BooleanParam truncate;
    /** Param: f32 (exact) or bf16 (weight matrices at half the bytes). */
    private final Param<String> precision;
    /** Param: rows of a partition read at a time and grouped by length. */
    private final IntParam rowsPerBatch;
    /** Param: zero-shot classification's candidate labels, comma-separated (unset: the model's own labels). */
    private final Param<String> candidateLabels;
    /** Param: with candidateLabels, each label scored on its own (entailment against contradiction). */
    private final BooleanParam multiLabel;
    /** Param: with candidateLabels, the hypothesis made of each label, {} where it goes. */
    private final Param<String> hypothesisTemplate;

    /** A stage with a new uid and every param at its default. */
    public TextClassifier() {
        this(Identifiable$.MODULE$.randomUID("vectorbert-classifier"));
    }

    /**
     * Spark ML's persistence makes one with the saved uid.
     *
     * @param uid the stage's uid
     */
    public TextClassifier(String uid) {
        this.uid = uid;
        inputCol = new Param<>(this, "inputCol", "the text column (string)");
        pairCol = new Param<>(this, "pairCol", "a second text column: each row classified as the pair (inputCol, pairCol)");
        labelCol = new Param<>(this, "labelCol", "the label column added (string)");
        scoreCol = new Param<>(this, "scoreCol", "the score column added (float)");
        model = new Param<>(this, "model", "a sequence-classification model, as vectorbert's --model names it");
        functionToApply = new Param<>(this, "functionToApply", "softmax, sigmoid or none (unset: as the pipeline picks it)");
        truncate = new BooleanParam(this, "truncate", "cut inputs longer than the model takes (longest first), else fail");
        precision = new Param<>(this, "precision", "f32 (exact) or bf16 (weight matrices at half the bytes)");
        rowsPerBatch = new IntParam(this, "rowsPerBatch", "rows of a partition read at a time and grouped by length");
        candidateLabels = new Param<>(this, "candidateLabels", "zero-shot classification's candidate labels, comma-separated"
                + " (unset: the model's own labels)");
        multiLabel = new BooleanParam(this, "multiLabel", "with candidateLabels, each label scored on its own (entailment against"
                + " contradiction)");
        hypothesisTemplate = new Param<>(this, "hypothesisTemplate", "with candidateLabels, the hypothesis made of each label, {} where it"
                + " goes");
        setDefault(multiLabel, false);
        setDefault(hypothesisTemplate, ZeroShotClassifier.DEFAULT_TEMPLATE);
        setDefault(inputCol, "text");
        setDefault(labelCol, "label");
        setDefault(scoreCol, "score");
        setDefault(truncate, false);
        setDefault(precision, "f32");
        setDefault(rowsPerBatch, 2048);
    }

    /** {@return Spark ML's reader of saved stages} */
    public static MLReader<TextClassifier> read() {
        return new DefaultParamsReadable<TextClassifier>() {}.read();
    }

    /**
     * Reads a stage saved with {@code write().save(path)}.
     *
     * @param path where it was saved
     * @return the stage
     */
    public static TextClassifier load(String path) {
        return read().load(path);
    }

    @Override
    public String uid() {
        return uid;
    }

    // Spark ML finds a stage's params through public methods like these.
    /** {@return the {@code inputCol} param: the text column (string)} */
    public Param<String> inputCol() { return inputCol; }
    /** {@return the {@code pairCol} param: a second text column: each row classified as the pair (inputCol, pairCol)} */
    public Param<String> pairCol() { return pairCol; }
    /** {@return the {@code labelCol} param: the label column added (string)} */
    public Param<String> labelCol() { return labelCol; }
    /** {@return the {@code scoreCol} param: the score column added (float)} */
    public Param<String> scoreCol() { return scoreCol; }
    /** {@return the {@code model} param: a sequence-classification model, as vectorbert's --model names it} */
    public Param<String> model() { return model; }
    /** {@return the {@code functionToApply} param: softmax, sigmoid or none (unset: as the pipeline picks it)} */
    public Param<String> functionToApply() { return functionToApply; }
    /** {@return the {@code truncate} param: cut inputs longer than the model takes (longest first), else fail} */
    public BooleanParam truncate() { return truncate; }
    /** {@return the {@code precision} param: f32 (exact) or bf16 (weight matrices at half the bytes)} */
    public Param<String> precision() { return precision; }
    /** {@return the {@code rowsPerBatch} param: rows of a partition read at a time and grouped by length} */
    public IntParam rowsPerBatch() { return rowsPerBatch; }

    /**
     * Sets {@link #inputCol()}.
     *
     * @param v the text column (string)
     * @return this stage
     */
    public TextClassifier setInputCol(String v) { set(inputCol, v); return this; }
    /**
     * Sets {@link #pairCol()}.
     *
     * @param v a second text column: each row classified as the pair (inputCol, pairCol)
     * @return this stage
     */
    public TextClassifier setPairCol(String v) { set(pairCol, v); return this; }
    /**
     * Sets {@link #labelCol()}.
     *
     * @param v the label column added (string)
     * @return this stage
     */
    public TextClassifier setLabelCol(String v) { set(labelCol, v); return this; }
    /**
     * Sets {@link #scoreCol()}.
     *
     * @param v the score column added (float)
     * @return this stage
     */
    public TextClassifier setScoreCol(String v) { set(scoreCol, v); return this; }
    /**
     * Sets {@link #model()}.
     *
     * @param v a sequence-classification model, as vectorbert's --model names it
     * @return this stage
     */
    public TextClassifier setModel(String v) { set(model, v); return this; }
    /**
     * Sets {@link #functionToApply()}.
     *
     * @param v softmax, sigmoid or none (unset: as the pipeline picks it)
     * @return this stage
     */
    public TextClassifier setFunctionToApply(String v) { set(functionToApply, v); return this; }
    /**
     * Sets {@link #truncate()}.
     *
     * @param v cut inputs longer than the model takes (longest first), else fail
     * @return this stage
     */
    public TextClassifier setTruncate(boolean v) { set(truncate, v); return this; }
    /**
     * Sets {@link #precision()}.
     *
     * @param v f32 (exact) or bf16 (weight matrices at half the bytes)
     * @return this stage
     */
    public TextClassifier setPrecision(String v) { set(precision, v); return this; }
    /**
     * Sets {@link #rowsPerBatch()}.
     *
     * @param v rows of a partition read at a time and grouped by length
     * @return this stage
     */
    public TextClassifier setRowsPerBatch(int v) { set(rowsPerBatch, v); return this; }

    /** {@return the {@code candidateLabels} param: zero-shot classification's candidate labels, comma-separated} */
    public Param<String> candidateLabels() { return candidateLabels; }
    /** {@return the {@code multiLabel} param: with candidateLabels, each label scored on its own} */
    public BooleanParam multiLabel() { return multiLabel; }
    /** {@return the {@code hypothesisTemplate} param: with candidateLabels, the hypothesis made of each label} */
    public Param<String> hypothesisTemplate() { return hypothesisTemplate; }
    /**
     * Sets {@link #candidateLabels()}: zero-shot classification with an NLI model.
     *
     * @param v the candidate labels, comma-separated
     * @return this stage
     */
    public TextClassifier setCandidateLabels(String v) { set(candidateLabels, v); return this; }
    /**
     * Sets {@link #multiLabel()}.
     *
     * @param v whether each candidate label is scored on its own
     * @return this stage
     */
    public TextClassifier setMultiLabel(boolean v) { set(multiLabel, v); return this; }
    /**
     * Sets {@link #hypothesisTemplate()}.
     *
     * @param v the hypothesis made of each label, {} where it goes
     * @return this stage
     */
    public TextClassifier setHypothesisTemplate(String v) { set(hypothesisTemplate, v); return this; }

    @Override
    public StructType transformSchema(StructType schema) {
        List<String> fields = Arrays.asList(schema.fieldNames());
        for (Param<String> p : isSet(pairCol) ? List.of(inputCol, pairCol) : List.of(inputCol)) {
            String col = $(p);
            if (!fields.contains(col)) {
                throw new VectorbertSparkException("column '" + col + "' (param " + p.name() + ") is not in the data: it has "
                        + String.join(", ", schema.fieldNames()));
            }
            if (!schema.apply(col).dataType().equals(DataTypes.StringType)) {
                throw new VectorbertSparkException("column '" + col + "' (param " + p.name() + ") is "
                        + schema.apply(col).dataType().simpleString() + ", not string");
            }
        }
        for (Param<String> p : List.of(labelCol, scoreCol)) {
            if (fields.contains($(p))) {
                throw new VectorbertSparkException("output column '" + $(p) + "' (param " + p.name() + ") is already in the data");
            }
        }
        return schema.add($(labelCol), DataTypes.StringType, true, Metadata.empty()).add($(scoreCol), DataTypes.FloatType, true, Metadata.empty());
    }

    @Override
    public Dataset<Row> transform(Dataset<?> dataset) {
        StructType schema = transformSchema(dataset.schema());
        if (!isSet(model) || $(model).isBlank()) {
            throw new VectorbertSparkException("param model is not set: give a sequence-classification model");
        }
        try {
            Precision.parse($(precision));
            if (isSet(functionToApply)) {
                org.vectorbert.engine.TextClassifier.Function.parse($(functionToApply));
            }
        } catch (VectorbertException e) {
            throw new VectorbertSparkException(e.getMessage());
        }
        ZeroShot zeroShot = null;
        if (isSet(candidateLabels)) {
            List<String> labels = ZeroShotClassifier.parseLabels($(candidateLabels));
            if (labels.isEmpty()) {
                throw new VectorbertSparkException("param candidateLabels names no label: give them comma-separated");
            }
            if (isSet(pairCol) || isSet(functionToApply)) {
                throw new VectorbertSparkException("param " + (isSet(pairCol) ? "pairCol" : "functionToApply") + " does not go with"
                        + " candidateLabels: zero-shot pairs each text with each label's hypothesis, scored by entailment");
            }
            try {
                ZeroShotClassifier.hypothesis($(hypothesisTemplate), labels.getFirst());
            } catch (VectorbertException e) {
                throw new VectorbertSparkException("param hypothesisTemplate: " + e.getMessage());
            }
            zeroShot = new ZeroShot(labels, $(hypothesisTemplate), (Boolean) $(multiLabel));
        }
        ZeroShot candidates = zeroShot;
        String m = $(model);
        String p = $(precision);
        String function = isSet(functionToApply) ? $(functionToApply) : null;
        boolean cut = (Boolean) $(truncate);
        int text = dataset.schema().fieldIndex($(inputCol));
        int pair = isSet(pairCol) ? dataset.schema().fieldIndex($(pairCol)) : -1;
        int rows = (Integer) $(rowsPerBatch);
        if (rows <= 0) {
            throw new VectorbertSparkException("param rowsPerBatch must be positive");
        }
        return dataset.toDF().mapPartitions((MapPartitionsFunction<Row, Row>) partition ->
                new BatchedRows(partition, rows, batch -> candidates != null ? zeroShot(batch, m, p, candidates, text)
                        : classified(batch, m, p, function, cut, text, pair)), Encoders.row(schema));
    }

    @Override
    public TextClassifier copy(ParamMap extra) {
        return defaultCopy(extra);
    }

    /** A batch of a partition's rows with their best label and its score appended (nulls for a null text). */
    private static List<Row> classified(List<Row> in, String model, String precision, String function, boolean truncate, int text,
                                        int pair) {
        List<String> firsts = new ArrayList<>(in.size());
        List<String> seconds = new ArrayList<>(in.size());
        for (Row r : in) {
            if (!missing(r, text, pair)) {
                firsts.add(r.getString(text));
                seconds.add(pair < 0 ? null : r.getString(pair));
            }
        }
        org.vectorbert.engine.TextClassifier classifier = LoadedModels.classifier(model, precision);
        org.vectorbert.engine.TextClassifier.Function f = function == null
                ? org.vectorbert.engine.TextClassifier.Function.defaultFor(classifier.labels())
                : org.vectorbert.engine.TextClassifier.Function.parse(function);
        Iterator<org.vectorbert.engine.TextClassifier.Result> results = classifier.classify(firsts, pair < 0 ? null : seconds, f, 1,
                truncate).iterator();
        List<Row> out = new ArrayList<>(in.size());
        for (Row r : in) {
            var best = missing(r, text, pair) ? null : results.next().labels().getFirst();
            out.add(BatchedRows.appended(r, best == null ? null : best.label(), best == null ? null : best.score()));
        }
        return out;
    }

    /**
     * Zero-shot classification's settings, shipped to executors with each task.
     *
     * @param labels     the candidate labels
     * @param template   the hypothesis template
     * @param multiLabel whether each label is scored on its own
     */
    private record ZeroShot(List<String> labels, String template, boolean multiLabel) implements java.io.Serializable {}

    /** A batch of a partition's rows with their best candidate label and its score appended (nulls for a null text). */
    private static List<Row> zeroShot(List<Row> in, String model, String precision, ZeroShot settings, int text) {
        List<String> texts = new ArrayList<>(in.size());
        for (Row r : in) {
            if (!r.isNullAt(text)) {
                texts.add(r.getString(text));
            }
        }
        ZeroShotClassifier classifier = ZeroShotClassifier.of(LoadedModels.classifier(model, precision));
        Iterator<ZeroShotClassifier.Result> results = classifier.classify(texts, settings.labels(), settings.template(),
                settings.multiLabel()).iterator();
        List<Row> out = new ArrayList<>(in.size());
        for (Row r : in) {
            var best = r.isNullAt(text) ? null : results.next().labels().getFirst();
            out.add(BatchedRows.appended(r, best == null ? null : best.label(), best == null ? null : best.score()));
        }
        return out;
    }

    private static boolean missing(Row r, int text, int pair) {
        return r.isNullAt(text) || pair >= 0 && r.isNullAt(pair);
    }
}
