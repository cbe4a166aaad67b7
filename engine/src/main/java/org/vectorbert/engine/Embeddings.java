package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
 * try (Embeddings embeddings = Embeddings.load(Path.of("bert-base-uncased"))) {
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

    public static Embeddings load(Path directory, boolean truncate) {
        return new Embeddings(BertModel.load(directory), BertTokenizer.fromDirectory(directory), truncate);
    }

    public static Embeddings load(Path directory) {
        return load(directory, false);
    }

    public BertModel model() {
        return model;
    }

    public float[] embed(String text, Pooling pooling, boolean normalize) {
        return embedBatch(List.of(text), null, pooling, normalize).getFirst();
    }

    public float[] embed(String first, String second, Pooling pooling, boolean normalize) {
        return embedBatch(List.of(first), List.of(second), pooling, normalize).getFirst();
    }

    /** One pooled vector per text (or pair, when {@code seconds} is not null), in one forward pass. */
    public List<float[]> embedBatch(List<String> firsts, List<String> seconds, Pooling pooling, boolean normalize) {
        List<Encoding> encodings = encode(firsts, seconds);
        Batch batch = batch(encodings);
        BertModel.Request request = BertModel.Request.lastHiddenState();
        BertModel.Output out = model.forward(batch, pooling == Pooling.POOLER ? request.withPooled() : request);
        int hidden = model.config().hiddenSize();
        List<float[]> vectors = new ArrayList<>();
        for (int b = 0; b < batch.size(); b++) {
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
            vectors.add(normalize ? l2Normalize(v) : v);
        }
        return vectors;
    }

    /** The last hidden state of each text, with its ids; attention probabilities ride along when asked. */
    public List<TokenVectors> tokenVectors(List<String> firsts, List<String> seconds) {
        List<Encoding> encodings = encode(firsts, seconds);
        Batch batch = batch(encodings);
        float[] hiddenState = model.forward(batch, BertModel.Request.lastHiddenState()).lastHiddenState();
        int hidden = model.config().hiddenSize();
        List<TokenVectors> result = new ArrayList<>();
        for (int b = 0; b < batch.size(); b++) {
            int n = batch.lengths()[b];
            float[] v = new float[n * hidden];
            System.arraycopy(hiddenState, b * batch.length() * hidden, v, 0, n * hidden);
            result.add(new TokenVectors(encodings.get(b).ids(), v, hidden));
        }
        return result;
    }

    /** Attention probabilities of one text: [layer][head][query][key]. */
    public float[][][][] attentions(String first, String second) {
        Encoding e = encode(List.of(first), second == null ? null : List.of(second)).getFirst();
        BertModel.Output out = model.forward(Batch.of(e.ids(), e.typeIds()), BertModel.Request.lastHiddenState().withAttentions());
        int heads = model.config().numAttentionHeads();
        int n = e.length();
        float[][][][] result = new float[out.attentions().size()][heads][n][n];
        for (int l = 0; l < result.length; l++) {
            float[] p = out.attentions().get(l);
            for (int h = 0; h < heads; h++) {
                for (int i = 0; i < n; i++) {
                    System.arraycopy(p, (h * n + i) * n, result[l][h][i], 0, n);
                }
            }
        }
        return result;
    }

    private List<Encoding> encode(List<String> firsts, List<String> seconds) {
        int max = Math.min(model.config().maxPositionEmbeddings(), tokenizer.config().modelMaxLength());
        EncodeOptions options = truncate
                ? EncodeOptions.defaults().withTruncation(Truncation.LONGEST_FIRST).withMaxLength(max)
                : EncodeOptions.defaults();
        List<Encoding> encodings = tokenizer.encodeBatch(firsts, seconds, options.withPadding(Padding.NONE));
        for (int i = 0; i < encodings.size(); i++) {
            if (encodings.get(i).length() > max) {
                throw new EngineException("text " + (i + 1) + " is " + encodings.get(i).length() + " tokens, longer than the model's "
                        + max + "; shorten it or let vectorbert truncate it (--truncate)");
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
