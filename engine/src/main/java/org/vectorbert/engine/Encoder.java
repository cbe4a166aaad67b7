package org.vectorbert.engine;

import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.vectorbert.loader.Labels;
import org.vectorbert.loader.ModelConfig;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * An encoder with the heads its checkpoint has: token ids in, hidden states out, and each head's outputs at the rows
 * asked. The one way the tasks ({@link Embeddings}, {@link FillMask}, {@link TextClassifier}, ...), and everything
 * built on them, reach a model. Each architecture is one implementation ({@link BertModel} for BERT and its
 * families), chosen from config.json by {@link #load(Path, Precision)}. Implementations are thread-safe.
 */
public interface Encoder {
    /**
     * Opens a Hugging Face model directory in float32, as its config.json's {@code model_type} says.
     *
     * @param directory a Hugging Face model directory
     * @return the model
     */
    static Encoder load(Path directory) {
        return load(directory, Precision.F32);
    }

    /**
     * Opens a Hugging Face model directory with its matrices held at {@code precision}, with the architecture its
     * config.json's {@code model_type} names.
     *
     * @param directory a Hugging Face model directory
     * @param precision F32 or BF16
     * @return the model
     * @throws org.vectorbert.loader.LoaderException if the model type is not one vectorbert runs, or the files are bad
     */
    static Encoder load(Path directory, Precision precision) {
        return Architectures.of(directory).load(directory, precision);
    }

    /**
     * What a Hugging Face model directory holds (configuration, tensors, heads, and where config.json and the weights
     * disagree), read as its config.json's {@code model_type} says, without loading the model.
     *
     * @param directory a Hugging Face model directory
     * @return what it holds
     * @throws org.vectorbert.loader.LoaderException if the model type is not one vectorbert runs, or the files are unreadable
     */
    static Inspection inspect(Path directory) {
        return Architectures.of(directory).inspector().apply(directory);
    }

    /**
     * Bits per vector of this JVM's kernels (128, 256 or 512): the machine's preferred shape, or
     * {@code -Dvectorbert.vector.bits}. The packed weights' layout depends on it; {@code vectorbert --version} prints it.
     *
     * @return the bits per vector
     */
    static int vectorBits() {
        return Lanes.BITS;
    }

    /**
     * Why {@code tokenizer} does not fit weights with {@code config}'s vocabulary, or empty: its ids must not run past
     * the word embeddings. The one check behind loading a model and {@code vectorbert inspect}'s problems.
     *
     * @param tokenizer the tokenizer
     * @param config    the weights' configuration
     * @return the reason, one sentence
     */
    static Optional<String> tokenizerMismatch(Tokenizer tokenizer, ModelConfig config) {
        int tokens = tokenizer.vocabSize();
        return tokens > config.vocabSize()
                ? Optional.of("the tokenizer's vocabulary has " + tokens + " tokens but the model's word embeddings have "
                        + config.vocabSize() + " rows (vocab_size)")
                : Optional.empty();
    }

    /** {@return the validated configuration the weights were checked against} */
    ModelConfig config();

    /** {@return the model directory the weights came from} */
    Path directory();

    /** {@return how the weight matrices are held} */
    Precision precision();

    /** {@return bytes of weights the model holds in memory (a tied decoder counted once)} */
    long weightBytes();

    /** {@return the heads the checkpoint has} */
    Set<HeadKind> heads();

    /** {@return config.json's labels of the classifier's outputs ({@code id2label}, {@code problem_type}); null without a classifier} */
    Labels labels();

    /** {@return whether the checkpoint has a complete masked-language-model head} */
    default boolean hasMlmHead() {
        return heads().contains(HeadKind.MASKED_LM);
    }

    /** {@return whether the checkpoint has a pooler (BERT's {@code bert.pooler.dense})} */
    default boolean hasPooler() {
        return heads().contains(HeadKind.POOLER);
    }

    /**
     * Throws, naming what is missing and then {@code consequence}, when the model lacks {@code kind}.
     *
     * @param kind        the head needed
     * @param consequence what the caller cannot do without it, appended to the message
     * @throws EngineException if the model has no such head
     */
    void requireHead(HeadKind kind, String consequence);

    /**
     * Throws, naming what is missing, when the model has no masked-language-model head.
     *
     * @throws EngineException if the model has no such head
     */
    default void requireMlmHead() {
        requireHead(HeadKind.MASKED_LM, ": it can give embeddings but not fill-mask");
    }

    /**
     * Refuses a tokenizer whose ids run past the word embeddings: a token the weights have no row for would fail deep
     * in a forward pass, or (as a fill-mask target) index past the scores.
     *
     * @param tokenizer the tokenizer to be used with the model
     * @throws EngineException if it does not fit
     */
    default void requireFits(Tokenizer tokenizer) {
        tokenizerMismatch(tokenizer, config()).ifPresent(why -> {
            throw new EngineException(why + " (" + directory() + "): the tokenizer files do not belong to these weights");
        });
    }

    /**
     * Runs the encoder, and the heads asked for, over a batch. Padded positions hold what transformers computes there
     * (their queries attend to the real keys).
     *
     * @param batch   token ids, padded to one length
     * @param request what to return beyond the last hidden state
     * @return the results
     */
    Output forward(Batch batch, Request request);

    /**
     * Runs the encoder over a batch and hands the output to {@code reader}, whose last hidden state is the pass's own
     * buffer: valid only inside {@code reader}, and possibly longer than the batch needs. The pipelines read what they
     * need from it, so a steady stream of batches allocates no hidden state. The pass may compute no padding: the
     * padded rows of the last hidden state are then zeros; a request for anything per layer gets the padded layout.
     *
     * @param batch   token ids, padded to one length
     * @param request what to return beyond the last hidden state
     * @param reader  reads the output before the pass's buffers are reused
     * @param <T>     what the reader makes of the output
     * @return what the reader returned
     */
    <T> T forward(Batch batch, Request request, Function<Output, T> reader);

    /**
     * What a forward pass should return beyond the last hidden state.
     *
     * @param heads           the heads to run, each at the rows of the batch given (row = sequence · length +
     *                        position); null rows mean the first token of each sequence
     * @param readRows        the rows of the batch at which the caller reads the last hidden state, beside the heads'
     *                        rows, or null for every row (see {@link #lastHiddenStateOnlyAt})
     * @param allHiddenStates whether to keep every layer's output
     * @param attentions      whether to keep each layer's attention probabilities
     * @param queriesAndKeys  whether to keep each layer's queries and keys
     */
    record Request(boolean allHiddenStates, boolean attentions, boolean queriesAndKeys, Map<HeadKind, int[]> heads,
                          int[] readRows) {
        /** Copies the heads' map and the rows. */
        public Request {
            Map<HeadKind, int[]> copy = new EnumMap<>(HeadKind.class);
            copy.putAll(heads);
            heads = Collections.unmodifiableMap(copy);
            readRows = readRows == null ? null : readRows.clone();
        }

        /** {@return the last hidden state only: the cheapest request} */
        public static Request lastHiddenState() {
            return new Request(false, false, false, Map.of(), null);
        }

        /**
         * The caller reads the last hidden state at these rows of the batch alone (row = sequence · length + position),
         * beside the heads' rows: none for a fill-mask or a classifier, each [CLS] for [CLS] pooling. An encoder may then
         * compute only those rows in its last layer (the same floats as in the whole pass; BERT's does, and sets every
         * other row of the output's last hidden state to NaN); the caller must not read the others. Ignored when the
         * request keeps anything per layer, or asks for a padding position.
         *
         * @param rows rows of the batch (row = sequence · length + position)
         * @return a new request
         */
        public Request lastHiddenStateOnlyAt(int... rows) {
            return new Request(allHiddenStates, attentions, queriesAndKeys, heads, rows);
        }

        /**
         * Also every layer's output, embeddings first, as transformers' {@code hidden_states}.
         *
         * @return a new request
         */
        public Request withAllHiddenStates() {
            return new Request(true, attentions, queriesAndKeys, heads, readRows);
        }

        /**
         * Also each layer's attention probabilities.
         *
         * @return a new request
         */
        public Request withAttentions() {
            return new Request(allHiddenStates, true, queriesAndKeys, heads, readRows);
        }

        /**
         * Also each layer's queries and keys, after the projection (bias included) and before the
         * scores: what bertviz's neuron view shows.
         *
         * @return a new request
         */
        public Request withQueriesAndKeys() {
            return new Request(allHiddenStates, attentions, true, heads, readRows);
        }

        /**
         * Also the head {@code kind} at these rows of the batch (row = sequence · length + position); null for each
         * sequence's first token.
         *
         * @param kind the head
         * @param rows rows of the batch, or null for each sequence's first token
         * @return a new request
         */
        public Request withHead(HeadKind kind, int[] rows) {
            Map<HeadKind, int[]> more = new EnumMap<>(HeadKind.class);
            more.putAll(heads);
            more.put(kind, rows == null ? null : rows.clone());
            return new Request(allHiddenStates, attentions, queriesAndKeys, more, readRows);
        }

        /**
         * Also the pooler output, tanh(W·h[CLS] + b), per sequence.
         *
         * @return a new request
         */
        public Request withPooled() {
            return withHead(HeadKind.POOLER, null);
        }

        /**
         * MLM logits at these rows of the batch (row = sequence · length + position).
         *
         * @param rows rows of the batch (row = sequence · length + position)
         * @return a new request
         */
        public Request withMlmLogitsAt(int... rows) {
            return withHead(HeadKind.MASKED_LM, rows);
        }
    }

    /**
     * The results of a forward pass; arrays are row-major.
     *
     * @param lastHiddenState [size, length, hidden]
     * @param hiddenStates    embedding output and every layer's output, each [size, length, hidden]; empty unless asked
     * @param attentions      per layer, probabilities [size, heads, length, length]; empty unless asked
     * @param queries         per layer, [size, length, hidden] with head h in columns h·d .. h·d + d - 1; empty
     *                        unless asked
     * @param keys            per layer, laid out as queries; empty unless asked
     * @param heads           each head asked for: [rows asked, the head's width]
     * @param batch           the batch the pass ran over
     */
    record Output(Batch batch, float[] lastHiddenState, List<float[]> hiddenStates, List<float[]> attentions,
                         List<float[]> queries, List<float[]> keys, Map<HeadKind, float[]> heads) {
        /** {@return the pooler output, [size, hidden], or null unless asked} */
        public float[] pooled() {
            return heads.get(HeadKind.POOLER);
        }

        /** {@return MLM logits, [rows asked, vocab], or null unless asked} */
        public float[] mlmLogits() {
            return heads.get(HeadKind.MASKED_LM);
        }
    }

}
