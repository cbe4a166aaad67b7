package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.stream.IntStream;
import org.vectorbert.common.Excerpt;
import org.vectorbert.loader.ModelResolver;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * Masked-word prediction with the semantics of Hugging Face's fill-mask pipeline: for each
 * {@code [MASK]} of a text, the top-k tokens by softmax probability over the whole vocabulary,
 * each with the text re-decoded with that token in place. Thread-safe.
 *
 * <pre>{@code
 * FillMask fillMask = FillMask.load();   // bert-base-uncased; or load("org/name"), load(model, options)
 * fillMask.predict("Paris is the [MASK] of France.").candidates().getFirst().tokenStr();   // "capital"
 * }</pre>
 */
public final class FillMask {
    private final Encoder model;
    private final Tokenizer tokenizer;
    /** The targets' ids, in the order given (empty: rank the whole vocabulary). */
    private final int[] targetIds;
    private final int[] ranked;      // the ids ranked: the targets, or every id the tokenizer has a token for
    /** What resolving the targets had to say (a word of several pieces). */
    private final List<String> warnings = new ArrayList<>();
    private final FillMaskOptions options;
    private final int maskId;

    /**
     * One proposal for one mask: HF's {@code score}, {@code token}, {@code token_str} and {@code sequence}.
     *
     * @param score    the token's probability
     * @param token    its id
     * @param tokenStr its text
     * @param sequence the text with the mask replaced by it
     */
    public record Candidate(float score, int token, String tokenStr, String sequence) {}

    /**
     * What one text gave.
     *
     * @param masks  per mask, in text order, the best candidates
     * @param tokens the length of the encoded text, special tokens included
     */
    public record Prediction(List<List<Candidate>> masks, int tokens) {
        /** {@return the first mask's candidates: all there is for a text with one mask} */
        public List<Candidate> candidates() {
            return masks.getFirst();
        }
    }

    private FillMask(Encoder model, Tokenizer tokenizer, FillMaskOptions options) {
        model.requireMlmHead();
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.options = options;
        this.maskId = tokenizer.maskTokenId();
        this.targetIds = targetIds(options.targets());
        // Embeddings padded past the tokenizer (NomicBERT's, to a multiple of 64) have no token to answer with.
        int tokens = tokenizer.vocabSize();
        this.ranked = targetIds.length > 0 || tokens >= model.config().vocabSize() ? targetIds
                : IntStream.range(0, tokens).toArray();
    }

    /** {@return the default model, bert-base-uncased (made on first use), answering the top 5} */
    public static FillMask load() {
        return load(null, FillMaskOptions.defaults());
    }

    /**
     * The model {@code model} names: a directory, a TensorFlow checkpoint, or a Hugging Face id such as
     * {@code google-bert/bert-base-uncased@main}, resolved as {@link ModelResolver} describes.
     *
     * @param model what {@code --model} accepts
     * @return the pipeline
     */
    public static FillMask load(String model) {
        return load(model, FillMaskOptions.defaults());
    }

    /**
     * The model {@code model} names (null for the default), with {@code options}; fails when it has no masked-LM head.
     *
     * @param model   what {@code --model} accepts, or null for the default model
     * @param options top-k, targets and precision
     * @return the pipeline
     */
    public static FillMask load(String model, FillMaskOptions options) {
        return ModelLoading.load(model, options.precision(), (m, t) -> of(m, t, options));
    }

    /**
     * A pipeline over a model and tokenizer already loaded; fails when the model has no masked-LM head.
     *
     * @param model     a model with a masked-LM head
     * @param tokenizer its tokenizer
     * @param options   top-k and targets
     * @return the pipeline
     */
    public static FillMask of(Encoder model, Tokenizer tokenizer, FillMaskOptions options) {
        return new FillMask(model, tokenizer, options.withPrecision(model.precision()));
    }

    /**
     * The same model with another top-k or other targets; the precision stays the loaded model's.
     *
     * @param other the options
     * @return a new pipeline over the same model
     */
    public FillMask with(FillMaskOptions other) {
        return of(model, tokenizer, other);
    }

    /** {@return the options in effect} */
    public FillMaskOptions options() {
        return options;
    }

    /** {@return the tokenizer texts go through} */
    public Tokenizer tokenizer() {
        return tokenizer;
    }

    /** {@return the encoder and heads} */
    public Encoder model() {
        return model;
    }

    /**
     * Per mask of {@code text}, in text order, the options' top-k most probable tokens, among the
     * targets when there are some. As in Hugging Face, a target that is not one token counts as its
     * first word piece, and probabilities stay those of the full softmax.
     *
     * @param text a text with one mask token or more
     * @return the candidates of each mask
     */
    public Prediction predict(String text) {
        return predict(List.of(text)).getFirst();
    }

    /**
     * {@link #predict(String)} for several texts, padded into one forward pass.
     *
     * @param texts texts with one mask token or more
     * @return one prediction per text, in order
     */
    public List<Prediction> predict(List<String> texts) {
        List<Encoding> encodings = texts.stream().map(tokenizer::encode).toList();
        List<int[]> positions = new ArrayList<>();
        for (int i = 0; i < texts.size(); i++) {
            int[] at = maskPositions(encodings.get(i).ids());
            if (at.length == 0) {
                throw new EngineException("no " + tokenizer.idToToken(maskId) + " token in the text \""
                        + Excerpt.of(texts.get(i)) + "\"");
            }
            int max = Math.min(model.config().maxTokens(), tokenizer.modelMaxLength());
            if (encodings.get(i).length() > max) {
                throw new TextTooLongException(texts.get(i), encodings.get(i).length(), max, false);
            }
            positions.add(at);
        }
        Batch batch = Batch.of(encodings, tokenizer.padTokenId());
        int[] rows = new int[positions.stream().mapToInt(p -> p.length).sum()];
        int r = 0;
        for (int b = 0; b < positions.size(); b++) {
            for (int position : positions.get(b)) {
                rows[r++] = b * batch.length() + position;
            }
        }
        float[] logits = model.forward(batch, Encoder.Request.lastHiddenState().withMlmLogitsAt(rows).lastHiddenStateOnlyAt(),
                Encoder.Output::mlmLogits);
        int vocab = model.config().vocabSize();
        List<Prediction> predictions = new ArrayList<>();
        r = 0;
        for (int b = 0; b < texts.size(); b++) {
            int[] ids = encodings.get(b).ids();
            int[] at = positions.get(b);
            List<List<Candidate>> masks = new ArrayList<>();
            for (int position : at) {
                float[] probs = softmax(logits, r++ * vocab, vocab);
                List<Candidate> candidates = new ArrayList<>();
                for (int id : topK(probs, ranked, options.topK())) {
                    int[] filled = ids.clone();
                    filled[position] = id;
                    // HF keeps special tokens (and the other masks) in the sequence when a text has several masks.
                    String sequence = tokenizer.decode(filled, at.length == 1);
                    candidates.add(new Candidate(probs[id], id, tokenizer.decode(new int[] {id}), sequence));
                }
                masks.add(List.copyOf(candidates));
            }
            predictions.add(new Prediction(List.copyOf(masks), ids.length));
        }
        return predictions;
    }

    /** {@return the ids ranked: the targets' (one each, in the order given, repeats dropped), or empty for the whole vocabulary} */
    public int[] targetIds() {
        return targetIds.clone();
    }

    /** {@return warnings about the options, one sentence each (a target word of several pieces), for the caller to show} */
    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    private int[] maskPositions(int[] ids) {
        return java.util.stream.IntStream.range(0, ids.length).filter(i -> ids[i] == maskId).toArray();
    }

    private int[] targetIds(List<String> targets) {
        LinkedHashSet<Integer> ids = new LinkedHashSet<>();
        for (String target : targets) {
            int id = tokenizer.tokenToId(target);
            if (id >= 0) {
                ids.add(id);
                continue;
            }
            Encoding alone = tokenizer.encode(target, EncodeOptions.defaults().withAddSpecialTokens(false));
            List<String> pieces = alone.tokens();
            if (pieces.isEmpty()) {
                throw new EngineException("target '" + Excerpt.of(target) + "' gives no token");
            }
            if (pieces.size() > 1) {
                // Hugging Face's pipeline does the same, and warns.
                String warning = "target '" + Excerpt.of(target) + "' is not one token of the vocabulary but " + pieces.size()
                        + " (" + String.join(" ", pieces) + "): ranking its first, '" + pieces.getFirst() + "', as Hugging Face does";
                warnings.add(warning);
            }
            ids.add(alone.ids()[0]);
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
}
