package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Truncation;

/**
 * Text to vectors: token vectors (the last hidden state) or one pooled vector per text, optionally
 * L2-normalised. Batches are padded together and run in one forward pass. Thread-safe.
 *
 * <pre>{@code
 * try (Embeddings embeddings = Embeddings.load()) {   // or load("org/name"), load(Path.of("model-dir"), false)
 *     float[] v = embeddings.embed("A sentence.", Embeddings.Pooling.MEAN, true);
 * }
 * }</pre>
 */
public final class Embeddings implements AutoCloseable {
    /** How token vectors become one vector. */
    public enum Pooling {
        /** The [CLS] token's vector. */
        CLS,
        /** The mean over real tokens ([CLS] and [SEP] included, padding not), as sentence-transformers does. */
        MEAN,
        /** BERT's pooler: tanh(W·h[CLS] + b). */
        POOLER
    }

    /** One text's token ids and their vectors ([length, hidden], row-major). */
    public record TokenVectors(int[] ids, float[] vectors, int hidden) {}

    private final BertModel model;
    private final BertTokenizer tokenizer;
    private final boolean truncate;

    /**
     * @param truncate cut texts to the model's maximum length instead of refusing them
     */
    public Embeddings(BertModel model, BertTokenizer tokenizer, boolean truncate) {
        this.model = model;
        this.tokenizer = tokenizer;
        this.truncate = truncate;
    }

    /** The default model, bert-base-uncased, made on first use; overlong texts are refused. */
    public static Embeddings load() {
        return load(ModelResolver.resolve(null, Library.listener()), false);
    }

    /**
     * The model {@code model} names (a directory, a TensorFlow checkpoint, or a Hugging Face id),
     * resolved as {@link ModelResolver} describes; overlong texts are refused.
     */
    public static Embeddings load(String model) {
        return load(ModelResolver.resolve(model, Library.listener()), false);
    }

    /**
     * @param directory a Hugging Face model directory
     * @param truncate  cut texts to the model's maximum length instead of refusing them
     */
    public static Embeddings load(Path directory, boolean truncate) {
        return load(directory, truncate, Precision.F32);
    }

    /**
     * @param directory a Hugging Face model directory
     * @param truncate  cut texts to the model's maximum length instead of refusing them
     * @param precision how the weight matrices are held ({@link Precision#F32} unless speed matters more than digits)
     */
    public static Embeddings load(Path directory, boolean truncate, Precision precision) {
        return Library.load(directory, precision, (model, tokenizer) -> new Embeddings(model, tokenizer, truncate));
    }

    /** A Hugging Face model directory; overlong texts are refused. */
    public static Embeddings load(Path directory) {
        return load(directory, false);
    }

    /** The encoder. */
    public BertModel model() {
        return model;
    }

    /** One text's pooled vector, L2-normalised when {@code normalize}. */
    public float[] embed(String text, Pooling pooling, boolean normalize) {
        return embedBatch(List.of(text), null, pooling, normalize).getFirst();
    }

    /** One pair's pooled vector ({@code [CLS] first [SEP] second [SEP]}), L2-normalised when {@code normalize}. */
    public float[] embed(String first, String second, Pooling pooling, boolean normalize) {
        return embedBatch(List.of(first), List.of(second), pooling, normalize).getFirst();
    }

    /** One pooled vector per text, in one forward pass. */
    public List<float[]> embedBatch(List<String> texts, Pooling pooling, boolean normalize) {
        return embedBatch(texts, null, pooling, normalize);
    }

    /** One pooled vector per text (or pair, when {@code seconds} is not null), in one forward pass. */
    public List<float[]> embedBatch(List<String> firsts, List<String> seconds, Pooling pooling, boolean normalize) {
        Pass pass = run(firsts, seconds, request(pooling, false));
        List<float[]> vectors = new ArrayList<>();
        for (int b = 0; b < pass.batch().size(); b++) {
            vectors.add(pass.pooled(b, pooling, normalize));
        }
        return vectors;
    }

    /** The last hidden state of each text, with its ids. */
    public List<TokenVectors> tokenVectors(List<String> firsts, List<String> seconds) {
        Pass pass = run(firsts, seconds, BertModel.Request.lastHiddenState());
        List<TokenVectors> result = new ArrayList<>();
        for (int b = 0; b < pass.batch().size(); b++) {
            result.add(pass.tokenVectors(b));
        }
        return result;
    }

    /** Attention probabilities of one text: [layer][head][query][key]. */
    public float[][][][] attentions(String first, String second) {
        return embedOne(first, second, Pooling.CLS, false, true).attentions();
    }

    /**
     * Everything about one text from a single forward pass.
     *
     * @param tokens     the ids and every token's vector
     * @param pooled     the pooled vector, or null when no pooling was asked
     * @param attentions [layer][head][query][key], or null unless asked
     */
    public record Result(TokenVectors tokens, float[] pooled, float[][][][] attentions) {}

    /**
     * One text (or pair, when {@code second} is not null) in one forward pass: token vectors, the
     * vector pooled with {@code pooling} (none when null), and attentions when asked.
     */
    public Result embedOne(String first, String second, Pooling pooling, boolean normalize, boolean withAttentions) {
        return embedAll(List.of(first), second == null ? null : List.of(second), pooling, normalize, withAttentions).getFirst();
    }

    /**
     * Several texts (or pairs, when {@code seconds} is not null) padded into one forward pass, one
     * {@link Result} each, in order: token vectors, the vector pooled with {@code pooling} (none
     * when null), and attentions when asked.
     */
    public List<Result> embedAll(List<String> firsts, List<String> seconds, Pooling pooling, boolean normalize,
                                 boolean withAttentions) {
        Pass pass = run(firsts, seconds, request(pooling, withAttentions));
        List<Result> results = new ArrayList<>();
        for (int b = 0; b < pass.batch().size(); b++) {
            results.add(new Result(pass.tokenVectors(b), pooling == null ? null : pass.pooled(b, pooling, normalize),
                    withAttentions ? pass.attentions(b) : null));
        }
        return results;
    }

    private static BertModel.Request request(Pooling pooling, boolean withAttentions) {
        BertModel.Request request = BertModel.Request.lastHiddenState();
        request = pooling == Pooling.POOLER ? request.withPooled() : request;
        return withAttentions ? request.withAttentions() : request;
    }

    /** A forward pass over encoded texts, and the views the public methods take of it. */
    private record Pass(List<Encoding> encodings, Batch batch, BertModel.Output out, int hidden, int heads) {
        TokenVectors tokenVectors(int b) {
            int n = batch.lengths()[b];
            float[] v = new float[n * hidden];
            System.arraycopy(out.lastHiddenState(), b * batch.length() * hidden, v, 0, n * hidden);
            return new TokenVectors(encodings.get(b).ids(), v, hidden);
        }

        float[] pooled(int b, Pooling pooling, boolean normalize) {
            float[] v = new float[hidden];
            switch (pooling) {
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
            return normalize ? l2Normalize(v) : v;
        }

        /** Sequence b's probabilities; the batch is padded to its length, so its rows and keys are read as such. */
        float[][][][] attentions(int b) {
            int length = batch.length();
            int n = batch.lengths()[b];
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
    }

    private Pass run(List<String> firsts, List<String> seconds, BertModel.Request request) {
        List<Encoding> encodings = encode(firsts, seconds);
        Batch batch = batch(encodings);
        return new Pass(encodings, batch, model.forward(batch, request), model.config().hiddenSize(),
                model.config().numAttentionHeads());
    }

    private List<Encoding> encode(List<String> firsts, List<String> seconds) {
        int max = Math.min(model.config().maxPositionEmbeddings(), tokenizer.config().modelMaxLength());
        EncodeOptions options = truncate
                ? EncodeOptions.defaults().withTruncation(Truncation.LONGEST_FIRST).withMaxLength(max)
                : EncodeOptions.defaults();
        List<Encoding> encodings = tokenizer.encodeBatch(firsts, seconds, options.withPadding(Padding.NONE));
        for (int i = 0; i < encodings.size(); i++) {
            if (encodings.get(i).length() > max) {
                String text = firsts.get(i);
                throw new EngineException("the text \"" + (text.length() > 40 ? text.substring(0, 40) + "...": text) + "\" is "
                        + encodings.get(i).length() + " tokens, longer than the model's " + max
                        + "; shorten it or let vectorbert truncate it (--truncate)");
            }
        }
        return encodings;
    }

    private Batch batch(List<Encoding> encodings) {
        return Batch.of(encodings.stream().map(Encoding::ids).toList(), encodings.stream().map(Encoding::typeIds).toList(),
                tokenizer.padTokenId());
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

    @Override
    public void close() {
        model.close();
    }
}
