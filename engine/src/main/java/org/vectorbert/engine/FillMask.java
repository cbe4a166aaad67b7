package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.tokenizer.BertTokenizer;
import org.vectorbert.tokenizer.Encoding;

/**
 * Masked-word prediction with the semantics of Hugging Face's fill-mask pipeline: for each
 * {@code [MASK]} of a text, the top-k tokens by softmax probability over the whole vocabulary,
 * each with the text re-decoded with that token in place. Thread-safe.
 *
 * <pre>{@code
 * try (FillMask fill = FillMask.load()) {   // or load("org/name"), load(Path.of("model-dir"))
 *     List<FillMask.Candidate> best = fill.predict("Paris is the [MASK] of France.", 5).getFirst();
 *     best.getFirst().tokenStr();   // "capital"
 * }
 * }</pre>
 */
public final class FillMask implements AutoCloseable {
    private final BertModel model;
    private final BertTokenizer tokenizer;
    private final int maskId;

    /** One proposal for one mask: HF's {@code score}, {@code token}, {@code token_str} and {@code sequence}. */
    public record Candidate(float score, int token, String tokenStr, String sequence) {}

    /** A pipeline over a loaded model and its tokenizer; fails when the model has no masked-LM head. */
    public FillMask(BertModel model, BertTokenizer tokenizer) {
        model.requireMlmHead();
        this.model = model;
        this.tokenizer = tokenizer;
        this.maskId = tokenizer.maskTokenId();
    }

    /** The default model, bert-base-uncased, made on first use (see {@link ModelResolver}). */
    public static FillMask load() {
        return load(ModelResolver.resolve(null, Library.listener()));
    }

    /**
     * The model {@code model} names: a directory, a TensorFlow checkpoint, or a Hugging Face id such as
     * {@code google-bert/bert-base-uncased@main}, resolved as {@link ModelResolver} describes.
     */
    public static FillMask load(String model) {
        return load(ModelResolver.resolve(model, Library.listener()));
    }

    /** Loads the model and tokenizer of a Hugging Face model directory. */
    public static FillMask load(Path directory) {
        return load(directory, Precision.F32);
    }

    /** Loads a Hugging Face model directory with the weight matrices held at {@code precision}. */
    public static FillMask load(Path directory, Precision precision) {
        return Library.load(directory, precision, FillMask::new);
    }

    /** The tokenizer texts go through. */
    public BertTokenizer tokenizer() {
        return tokenizer;
    }

    /** The encoder and heads. */
    public BertModel model() {
        return model;
    }

    /** Per mask, in text order, the {@code topK} most probable tokens. */
    public List<List<Candidate>> predict(String text, int topK) {
        return predict(text, topK, List.of());
    }

    /**
     * Per mask, the {@code topK} most probable tokens among {@code targets} (all the vocabulary when
     * empty). As in Hugging Face, a target that is not one token counts as its first word piece,
     * and probabilities stay those of the full softmax.
     */
    public List<List<Candidate>> predict(String text, int topK, List<String> targets) {
        return predictWithTokens(text, topK, targets).masks();
    }

    /**
     * What {@link #predict(String, int, List)} gives, with the number of tokens the text became.
     *
     * @param masks  per mask, in text order, the best candidates
     * @param tokens the length of the encoded text, special tokens included
     */
    public record Prediction(List<List<Candidate>> masks, int tokens) {}

    /** {@link #predict(String, int, List)}, also telling how many tokens the text was. */
    public Prediction predictWithTokens(String text, int topK, List<String> targets) {
        if (topK <= 0) {
            throw new EngineException("top-k must be positive, was " + topK);
        }
        Encoding encoding = tokenizer.encode(text);
        int[] ids = encoding.ids();
        int[] positions = maskPositions(ids);
        if (positions.length == 0) {
            throw new EngineException("no " + tokenizer.config().specialTokens().mask() + " token in the text: \"" + text + "\"");
        }
        int[] targetIds = targetIds(targets);
        BertModel.Output out = model.forward(Batch.of(ids, encoding.typeIds()),
                BertModel.Request.lastHiddenState().withMlmLogitsAt(positions));
        int vocab = model.config().vocabSize();
        List<List<Candidate>> result = new ArrayList<>();
        for (int m = 0; m < positions.length; m++) {
            float[] probs = softmax(out.mlmLogits(), m * vocab, vocab);
            int[] best = topK(probs, targetIds, topK);
            List<Candidate> candidates = new ArrayList<>();
            for (int id : best) {
                int[] filled = ids.clone();
                filled[positions[m]] = id;
                // HF keeps special tokens (and the other masks) in the sequence when a text has several masks.
                String sequence = tokenizer.decode(filled, positions.length == 1);
                candidates.add(new Candidate(probs[id], id, tokenizer.decode(new int[] {id}), sequence));
            }
            result.add(List.copyOf(candidates));
        }
        return new Prediction(List.copyOf(result), ids.length);
    }

    private int[] maskPositions(int[] ids) {
        return java.util.stream.IntStream.range(0, ids.length).filter(i -> ids[i] == maskId).toArray();
    }

    private int[] targetIds(List<String> targets) {
        LinkedHashSet<Integer> ids = new LinkedHashSet<>();
        for (String target : targets) {
            var id = tokenizer.vocabulary().id(target);
            if (id.isPresent()) {
                ids.add(id.getAsInt());
                continue;
            }
            List<String> pieces = tokenizer.tokenize(target);
            if (pieces.isEmpty()) {
                throw new EngineException("target '" + target + "' gives no token");
            }
            ids.add(tokenizer.tokenId(pieces.getFirst()));
        }
        return ids.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Softmax in double for the probabilities, as exact as float32 logits allow. */
    private static float[] softmax(float[] logits, int off, int n) {
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            max = Math.max(max, logits[off + i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            sum += Math.exp(logits[off + i] - max);
        }
        float[] p = new float[n];
        for (int i = 0; i < n; i++) {
            p[i] = (float) (Math.exp(logits[off + i] - max) / sum);
        }
        return p;
    }

    /**
     * Ids of the k largest probabilities, highest first (among {@code allowed} when not empty), ties in the order
     * of {@code allowed} or of the ids.
     * A small k keeps a sorted short list in one pass over the vocabulary; a large one sorts primitive keys.
     * (Boxing every id into a comparator sort took a tenth of a one-shot command's time, all of it cold code.)
     */
    static int[] topK(float[] probs, int[] allowed, int k) {
        int n = allowed.length > 0 ? allowed.length : probs.length;
        k = Math.min(k, n);
        int[] best = new int[k];
        if (k > 64) {
            // Probabilities are non-negative, so their bits order as they do; the position breaks ties.
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                int id = allowed.length > 0 ? allowed[i] : i;
                keys[i] = (long) (Integer.MAX_VALUE - Float.floatToIntBits(probs[id])) << 32 | i;
            }
            Arrays.sort(keys);
            for (int i = 0; i < k; i++) {
                int at = (int) keys[i];
                best[i] = allowed.length > 0 ? allowed[at] : at;
            }
            return best;
        }
        int size = 0;
        for (int i = 0; i < n; i++) {
            int id = allowed.length > 0 ? allowed[i] : i;
            float p = probs[id];
            if (size == k && p <= probs[best[k - 1]]) {
                continue;
            }
            int at = size < k ? size++ : k - 1;
            for (; at > 0 && p > probs[best[at - 1]]; at--) {
                best[at] = best[at - 1];
            }
            best[at] = id;
        }
        return best;
    }

    @Override
    public void close() {
        model.close();
    }
}
