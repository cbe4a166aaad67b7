package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Truncation;

/**
 * Texts to vectors, one per text: the model's token vectors pooled ({@link Pooling}) and, when
 * asked, scaled to unit length. Texts given together run in one forward pass. Thread-safe.
 *
 * <pre>{@code
 * Embeddings embeddings = Embeddings.load();                  // bert-base-uncased; or load("org/name")
 * float[] v = embeddings.embed("A sentence.");
 * List<float[]> vs = embeddings.with(EmbeddingOptions.defaults().withPooling(Pooling.MEAN).withNormalize(true))
 *         .embed(List.of("One.", "Two."));
 * }</pre>
 */
public final class Embeddings {
    private final BertModel model;
    private final BertTokenizer tokenizer;
    /** With the model's declarations filled in: no null field. */
    private final EmbeddingOptions options;

    private Embeddings(BertModel model, BertTokenizer tokenizer, EmbeddingOptions options) {
        this.model = model;
        this.tokenizer = tokenizer;
        this.options = options;
    }

    /** The default model, bert-base-uncased (made on first use), with its own settings. */
    public static Embeddings load() {
        return load(null, EmbeddingOptions.defaults());
    }

    /**
     * The model {@code model} names (a directory, a TensorFlow checkpoint, or a Hugging Face id such
     * as {@code google-bert/bert-base-uncased@main}, resolved as {@link ModelResolver} describes), with
     * its own settings.
     */
    public static Embeddings load(String model) {
        return load(model, EmbeddingOptions.defaults());
    }

    /** The model {@code model} names (null for the default), with {@code options}. */
    public static Embeddings load(String model, EmbeddingOptions options) {
        return ModelLoading.load(model, options.precision(), (m, t) -> of(m, t, options));
    }

    /** A pipeline over a model and tokenizer already loaded (several pipelines may share them). */
    public static Embeddings of(BertModel model, BertTokenizer tokenizer, EmbeddingOptions options) {
        return new Embeddings(model, tokenizer, options.withPrecision(model.precision()).resolved());
    }

    /** The same model with other pooling, normalisation or truncation; the precision stays the loaded model's. */
    public Embeddings with(EmbeddingOptions other) {
        return of(model, tokenizer, other);
    }

    /** One text's vector. */
    public float[] embed(String text) {
        return embed(List.of(text)).getFirst();
    }

    /** One vector per text, in order, from one forward pass. */
    public List<float[]> embed(List<String> texts) {
        return run(texts, null).stream().map(Result::pooled).toList();
    }

    /** The length of the vectors: the model's hidden size. */
    public int dimension() {
        return model.config().hiddenSize();
    }

    /** The options in effect, with the model's declarations filled in. */
    public EmbeddingOptions options() {
        return options;
    }

    /** The encoder. */
    public BertModel model() {
        return model;
    }

    /** The tokenizer texts go through. */
    public BertTokenizer tokenizer() {
        return tokenizer;
    }

    /**
     * Everything about one text from one forward pass.
     *
     * @param ids          its token ids
     * @param pooled       its vector (pooled as the options say, normalised if they say so)
     * @param tokenVectors every token's vector, [length, hidden] row-major, or null unless asked
     * @param attentions   [layer][head][query][key], or null unless asked
     */
    public record Result(int[] ids, float[] pooled, float[] tokenVectors, float[][][][] attentions) {}

    /** What {@link #run} gives beyond each text's ids and vector. */
    public enum Include {
        /** Every token's vector (the last hidden state, without padding). */
        TOKEN_VECTORS,
        /** Every layer's attention probabilities. */
        ATTENTIONS
    }

    /**
     * Several texts (or pairs, {@code [CLS] text [SEP] pair [SEP]}, when {@code pairs} is not null)
     * padded into one forward pass, one {@link Result} each, in order, with what {@code include} asks.
     */
    public List<Result> run(List<String> texts, List<String> pairs, Include... include) {
        boolean tokenVectors = List.of(include).contains(Include.TOKEN_VECTORS);
        boolean attentions = List.of(include).contains(Include.ATTENTIONS);
        List<Encoding> encodings = encode(texts, pairs);
        Batch batch = Batch.of(encodings.stream().map(Encoding::ids).toList(), encodings.stream().map(Encoding::typeIds).toList(),
                tokenizer.padTokenId());
        BertModel.Request request = BertModel.Request.lastHiddenState();
        request = options.pooling() == Pooling.POOLER ? request.withPooled() : request;
        request = attentions ? request.withAttentions() : request;
        BertModel.Output out = model.forward(batch, request);
        List<Result> results = new ArrayList<>();
        for (int b = 0; b < batch.size(); b++) {
            results.add(new Result(encodings.get(b).ids(), pooled(out, b), tokenVectors ? tokenVectors(out, b) : null,
                    attentions ? attentions(out, b) : null));
        }
        return results;
    }

    private List<Encoding> encode(List<String> texts, List<String> pairs) {
        int max = Math.min(model.config().maxPositionEmbeddings(), tokenizer.config().modelMaxLength());
        EncodeOptions encodeOptions = options.truncate()
                ? EncodeOptions.defaults().withTruncation(Truncation.LONGEST_FIRST).withMaxLength(max)
                : EncodeOptions.defaults();
        List<Encoding> encodings = tokenizer.encodeBatch(texts, pairs, encodeOptions.withPadding(Padding.NONE));
        for (int i = 0; i < encodings.size(); i++) {
            if (encodings.get(i).length() > max) {
                throw new TextTooLongException(texts.get(i), encodings.get(i).length(), max);
            }
        }
        return encodings;
    }

    private int hidden() {
        return model.config().hiddenSize();
    }

    /** Sequence b's token vectors, without the padding. */
    private float[] tokenVectors(BertModel.Output out, int b) {
        int n = out.batch().lengths()[b];
        float[] v = new float[n * hidden()];
        System.arraycopy(out.lastHiddenState(), b * out.batch().length() * hidden(), v, 0, n * hidden());
        return v;
    }

    /** Sequence b's vector, pooled and normalised as the options say. */
    private float[] pooled(BertModel.Output out, int b) {
        int hidden = hidden();
        Batch batch = out.batch();
        float[] v = new float[hidden];
        switch (options.pooling()) {
            case CLS -> System.arraycopy(out.lastHiddenState(), b * batch.length() * hidden, v, 0, hidden);
            case POOLER -> System.arraycopy(out.pooled(), b * hidden, v, 0, hidden);
            case MEAN -> {
                int n = batch.lengths()[b];
                for (int t = 0; t < n; t++) {
                    int off = (b * batch.length() + t) * hidden;
                    for (int i = 0; i < hidden; i++) {
                        v[i] += out.lastHiddenState()[off + i];
                    }
                }
                for (int i = 0; i < hidden; i++) {
                    v[i] /= n;
                }
            }
        }
        return options.normalize() ? l2Normalize(v) : v;
    }

    /** Sequence b's probabilities; the batch is padded to its length, so its rows and keys are read as such. */
    private float[][][][] attentions(BertModel.Output out, int b) {
        int length = out.batch().length();
        int n = out.batch().lengths()[b];
        int heads = model.config().numAttentionHeads();
        float[][][][] result = new float[out.attentions().size()][heads][n][n];
        for (int l = 0; l < result.length; l++) {
            float[] p = out.attentions().get(l);
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < n; i++) {
                    System.arraycopy(p, ((b * heads + h) * length + i) * length, result[l][h][i], 0, n);
                }
            }
        }
        return result;
    }

    static float[] l2Normalize(float[] v) {
        double norm = 0;
        for (float x : v) {
            norm += (double) x * x;
        }
        norm = Math.sqrt(norm);
        if (norm > 0) {
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) (v[i] / norm);
            }
        }
        return v;
    }
}
