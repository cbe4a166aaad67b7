package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;

/**
 * Extractive question answering with a {@code *ForQuestionAnswering} checkpoint, as transformers'
 * question-answering pipeline does it (4.x and 5.0-5.2; the pipeline is gone from 5.3): the question and
 * context are encoded as a pair, a context too long for one pass is read in windows that overlap by
 * {@code doc_stride} tokens, and each window's start and end logits, with everything but the context (and
 * the leading [CLS]) masked out, become probabilities whose products score the spans of at most
 * {@code max_answer_len} tokens. Spans are widened to whole words, answers with the same text (ignoring
 * case) from several spans add their scores, and the best {@code top_k} are returned. Start and end are
 * character offsets into the context, counted in code points as Python counts them. Thread-safe.
 *
 * <pre>{@code
 * QuestionAnswerer qa = QuestionAnswerer.load("path/to/distilbert-base-cased-distilled-squad");
 * qa.answer("Where do I live?", "My name is Wolfgang and I live in Berlin", QuestionAnswerer.Options.defaults());
 * }</pre>
 */
public final class QuestionAnswerer {
    /** The pipeline caps the window at 384 tokens even for models that take more. */
    private static final int PIPELINE_MAX_SEQ_LEN = 384;

    /**
     * One answer: {@code answer} is {@code context[start:end]}; an impossible answer is ("", 0, 0).
     *
     * @param score  its probability
     * @param start  its first character in the context
     * @param end    the character after its last
     * @param answer the span's text
     */
    public record Answer(double score, int start, int end, String answer) {
        /** {@return the pipeline's dict for it: score, start, end, answer} */
        public Map<String, Object> pipelineFields() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("score", score);
            m.put("start", start);
            m.put("end", end);
            m.put("answer", answer);
            return m;
        }
    }

    /**
     * A question about a context.
     *
     * @param question the question
     * @param context  the text that may hold its answer
     */
    public record Question(String question, String context) {}

    /**
     * The pipeline's parameters.
     *
     * @param topK                   how many answers (the pipeline's {@code top_k}), at least 1
     * @param maxAnswerLength        the longest answer in tokens ({@code max_answer_len}), at least 1
     * @param docStride              tokens consecutive windows share ({@code doc_stride}), or -1 for the
     *                               pipeline's default, min(max_seq_len / 2, 128)
     * @param handleImpossibleAnswer whether "no answer" (the [CLS] score) competes ({@code handle_impossible_answer})
     * @param alignToWords           whether answers are widened to whole words ({@code align_to_words})
     * @param maxSequenceLength      the longest window, special tokens included ({@code max_seq_len}), or -1
     *                               for the pipeline's default, min(the model's, 384)
     */
    public record Options(int topK, int maxAnswerLength, int docStride, boolean handleImpossibleAnswer, boolean alignToWords,
                          int maxSequenceLength) {
        /** Checks every parameter's range. */
        public Options {
            if (topK < 1) {
                throw new EngineException("top_k must be at least 1, was " + topK);
            }
            if (maxAnswerLength < 1) {
                throw new EngineException("max_answer_len must be at least 1, was " + maxAnswerLength);
            }
            if (docStride < -1) {
                throw new EngineException("doc_stride must not be negative, was " + docStride);
            }
            if (maxSequenceLength != -1 && maxSequenceLength < 1) {
                throw new EngineException("max_seq_len must be positive, was " + maxSequenceLength);
            }
        }

        /** {@return the pipeline's defaults: one answer of at most 15 tokens, words aligned, no impossible answer} */
        public static Options defaults() {
            return new Options(1, 15, -1, false, true, -1);
        }

        /**
         * The same options with another {@code topK}.
         *
         * @param k how many answers
         * @return new options
         */
        public Options withTopK(int k) {
            return new Options(k, maxAnswerLength, docStride, handleImpossibleAnswer, alignToWords, maxSequenceLength);
        }

        /**
         * The same options with another {@code maxAnswerLength}.
         *
         * @param tokens the longest answer in tokens
         * @return new options
         */
        public Options withMaxAnswerLength(int tokens) {
            return new Options(topK, tokens, docStride, handleImpossibleAnswer, alignToWords, maxSequenceLength);
        }

        /**
         * The same options with another {@code docStride}.
         *
         * @param tokens tokens consecutive windows share, or -1
         * @return new options
         */
        public Options withDocStride(int tokens) {
            return new Options(topK, maxAnswerLength, tokens, handleImpossibleAnswer, alignToWords, maxSequenceLength);
        }

        /**
         * The same options with another {@code handleImpossibleAnswer}.
         *
         * @param handle whether "no answer" competes
         * @return new options
         */
        public Options withHandleImpossibleAnswer(boolean handle) {
            return new Options(topK, maxAnswerLength, docStride, handle, alignToWords, maxSequenceLength);
        }

        /**
         * The same options with another {@code alignToWords}.
         *
         * @param align whether answers are widened to whole words
         * @return new options
         */
        public Options withAlignToWords(boolean align) {
            return new Options(topK, maxAnswerLength, docStride, handleImpossibleAnswer, align, maxSequenceLength);
        }

        /**
         * The same options with another {@code maxSequenceLength}.
         *
         * @param tokens the longest window, or -1
         * @return new options
         */
        public Options withMaxSequenceLength(int tokens) {
            return new Options(topK, maxAnswerLength, docStride, handleImpossibleAnswer, alignToWords, tokens);
        }
    }

    /**
     * One question's answers, best first, with how many windows its context took.
     *
     * @param answers at most {@code top_k}; empty when no span of the context could be scored
     * @param tokens  the positions of all its windows, special tokens included
     * @param windows how many windows the context took
     */
    public record Result(List<Answer> answers, int windows, int tokens) {}

    /**
     * A window over one question's context: its encoding, the tokens before its context tokens, and which of the
     * context's tokens it holds, [from, to).
     */
    record Window(int question, Encoding encoding, int prefix, int from, int to) {}

    /** A question's pair encoding without truncation, its context's word ids and code-point offsets. */
    record Pair(Question question, Encoding encoding, int firstContext, int contextTokens, int[] words, int[] codePoints) {}

    private final Encoder model;
    private final Tokenizer tokenizer;
    private final int maxTokens;

    private QuestionAnswerer(Encoder model, Tokenizer tokenizer) {
        model.requireHead(HeadKind.QUESTION_ANSWERING, ": it cannot answer questions");
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.maxTokens = Math.min(model.config().maxTokens(), tokenizer.modelMaxLength());
    }

    /**
     * The model {@code model} names, in float32.
     *
     * @param model what {@code --model} accepts
     * @return the question answerer
     */
    public static QuestionAnswerer load(String model) {
        return load(model, Precision.F32);
    }

    /**
     * The model {@code model} names, its matrices held at {@code precision}.
     *
     * @param model     what {@code --model} accepts
     * @param precision F32 or BF16
     * @return the question answerer
     */
    public static QuestionAnswerer load(String model, Precision precision) {
        return ModelLoading.load(model, precision, QuestionAnswerer::of);
    }

    /**
     * A question answerer over a model and tokenizer already loaded.
     *
     * @param model     a model with a question-answering head
     * @param tokenizer its tokenizer
     * @return the question answerer
     */
    public static QuestionAnswerer of(Encoder model, Tokenizer tokenizer) {
        return new QuestionAnswerer(model, tokenizer);
    }

    /** {@return the longest window the model takes, special tokens included} */
    public int maxTokens() {
        return maxTokens;
    }

    /**
     * The best answers to {@code question} in {@code context}, best first.
     *
     * @param question the question
     * @param context  the text that may hold its answer
     * @param options  the pipeline's parameters
     * @return the answers
     */
    public List<Answer> answer(String question, String context, Options options) {
        return answer(List.of(new Question(question, context)), options).getFirst().answers();
    }

    /**
     * The answers to each question, the windows of all of them batched by length.
     *
     * @param questions the questions with their contexts
     * @param options   the pipeline's parameters
     * @return one result per question, in order
     */
    public List<Result> answer(List<Question> questions, Options options) {
        int maxSeqLen = options.maxSequenceLength() == -1 ? Math.min(maxTokens, PIPELINE_MAX_SEQ_LEN) : options.maxSequenceLength();
        if (maxSeqLen > maxTokens) {
            throw new EngineException("max_seq_len " + maxSeqLen + " is more than the model takes (" + maxTokens + " tokens)");
        }
        int stride = options.docStride() == -1 ? Math.min(maxSeqLen / 2, 128) : options.docStride();
        if (stride > maxSeqLen) {
            throw new EngineException("doc_stride (" + stride + ") is larger than max_seq_len (" + maxSeqLen + ")");
        }
        List<Pair> pairs = new ArrayList<>(questions.size());
        List<Window> windows = new ArrayList<>();
        for (int q = 0; q < questions.size(); q++) {
            Pair pair = pair(questions.get(q));
            pairs.add(pair);
            windows.addAll(windows(q, pair, maxSeqLen, stride));
        }
        float[][] logits = logits(windows);
        double[] nullScores = new double[questions.size()];
        int[] windowCounts = new int[questions.size()];
        int[] tokens = new int[questions.size()];
        Arrays.fill(nullScores, 1_000_000);          // the pipeline's min_null_score starts there
        List<List<Answer>> answers = new ArrayList<>();
        for (int q = 0; q < questions.size(); q++) {
            answers.add(new ArrayList<>());
        }
        for (int w = 0; w < windows.size(); w++) {
            Window window = windows.get(w);
            int q = window.question();
            windowCounts[q]++;
            tokens[q] += window.encoding().length();
            nullScores[q] = Math.min(nullScores[q], AnswerSpans.collect(pairs.get(q), window, logits[w], options, answers.get(q)));
        }
        List<Result> results = new ArrayList<>(questions.size());
        for (int q = 0; q < questions.size(); q++) {
            List<Answer> list = answers.get(q);
            if (options.handleImpossibleAnswer()) {
                list.add(new Answer(nullScores[q], 0, 0, ""));
            }
            List<Answer> sorted = list.stream().sorted(Comparator.comparingDouble(Answer::score).reversed()).limit(options.topK()).toList();
            results.add(new Result(sorted, windowCounts[q], tokens[q]));
        }
        return results;
    }

    private Pair pair(Question q) {
        if (q.question() == null || q.question().isEmpty()) {
            throw new EngineException("the question is empty");
        }
        if (q.context() == null || q.context().isEmpty()) {
            throw new EngineException("the context is empty");
        }
        EncodeOptions whole = EncodeOptions.defaults().withPadding(Padding.NONE).withTruncation(Truncation.NONE);
        Encoding e = tokenizer.encode(q.question(), q.context(), whole);
        int[] context = StrideWindows.span(e, 1);
        int count = context[1];
        int[] words = tokenizer.wordIds(q.context());
        if (words.length != count) {
            throw new IllegalStateException("the context has " + count + " tokens in the pair but " + words.length + " alone");
        }
        int[] codePoints = new int[q.context().length() + 1];
        for (int i = 0, cp = 0; i <= q.context().length(); i++) {
            codePoints[i] = cp;
            if (i < q.context().length() && !Character.isHighSurrogate(q.context().charAt(i))) {
                cp++;
            }
        }
        return new Pair(q, e, context[0], count, words, codePoints);
    }

    /**
     * The windows of a pair, as the tokenizers library (up to 0.22.2) cuts them with only_second truncation
     * and a stride: the question and special tokens in each, the context tokens in windows of the room left,
     * each starting room - stride tokens after the one before, the last ending at the context's end.
     */
    private List<Window> windows(int q, Pair pair, int maxSeqLen, int stride) {
        Encoding e = pair.encoding();
        int first = pair.firstContext();
        int n = pair.contextTokens();
        int others = e.length() - n;
        if (e.length() <= maxSeqLen) {
            return List.of(new Window(q, e, first, 0, n));
        }
        int room = maxSeqLen - others;
        if (room <= 0) {
            throw new EngineException("the question takes " + (others - tokenizer.template().pairAdded()) + " tokens, and with "
                    + tokenizer.template().pairAdded() + " special tokens leaves no room for the context in a window of "
                    + maxSeqLen + "; shorten the question or raise max_seq_len");
        }
        if (stride >= room) {
            throw new EngineException("doc_stride (" + stride + ") must be smaller than the " + room
                    + " context tokens a window holds with this question");
        }
        List<Window> windows = new ArrayList<>();
        for (int[] range : StrideWindows.ranges(n, room, stride)) {
            windows.add(new Window(q, StrideWindows.slice(e, first, n, range[0], range[1]), first, range[0], range[1]));
        }
        return windows;
    }

    /** Each window's start and end logits, [tokens, 2] row-major, the windows batched by length. */
    private float[][] logits(List<Window> windows) {
        float[][] out = new float[windows.size()][];
        int[] lengths = windows.stream().mapToInt(w -> w.encoding().length()).toArray();
        for (List<Integer> members : LengthBatches.of(lengths, EmbeddingOptions.BATCH_TOKENS)) {
            List<Encoding> encodings = members.stream().map(i -> windows.get(i).encoding()).toList();
            Batch batch = Batch.of(encodings, tokenizer.padTokenId());
            int[] rows = batch.realRows();
            float[] logits = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.QUESTION_ANSWERING, rows),
                    o -> o.heads().get(HeadKind.QUESTION_ANSWERING));
            int at = 0;
            for (int i : members) {
                int length = windows.get(i).encoding().length();
                out[i] = Arrays.copyOfRange(logits, at * 2, (at + length) * 2);
                at += length;
            }
        }
        return out;
    }
}
