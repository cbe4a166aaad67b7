package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.vectorbert.tokenizer.Encoding;

/**
 * The question-answering pipeline's spans of one window: start and end probabilities over the context (and [CLS]),
 * every span up to max_answer_len scored by their product, the best widened to whole words and merged with the same
 * answer found in another window, as transformers' {@code QuestionAnsweringPipeline.postprocess} does.
 */
final class AnswerSpans {
    private AnswerSpans() {}

    /** A span of a window with its score: the float32 product the pipeline returns and a double one to sort by. */
    private record Scored(float score, double order, int start, int end) {}

    /**
     * Scores one window's spans and adds the best ones to {@code answers} (an answer already there with the
     * same text, ignoring case, gains the span's score instead); returns the window's "no answer" score.
     */
    static double collect(QuestionAnswerer.Pair pair, QuestionAnswerer.Window window, float[] logits, QuestionAnswerer.Options options,
                          List<QuestionAnswerer.Answer> answers) {
        Encoding e = window.encoding();
        int n = e.length();
        boolean[] allowed = new boolean[n];
        int cls = e.specialTokensMask()[0] == 1 ? e.ids()[0] : Integer.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            allowed[i] = (e.sequenceIds()[i] == 1 || e.ids()[i] == cls) && e.attentionMask()[i] == 1;
        }
        double[] start = softmax(logits, 0, allowed);
        double[] end = softmax(logits, 1, allowed);
        float[] start32 = new float[n];
        float[] end32 = new float[n];
        for (int i = 0; i < n; i++) {
            start32[i] = (float) start[i];
            end32[i] = (float) end[i];
        }
        double nullScore = start32[0] * end32[0];
        start32[0] = end32[0] = 0;
        start[0] = end[0] = 0;
        List<Scored> spans = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            if (!allowed[s] || start32[s] == 0) {
                continue;
            }
            for (int t = s; t < Math.min(n, s + options.maxAnswerLength()); t++) {
                if (allowed[t] && end32[t] != 0) {
                    spans.add(new Scored(start32[s] * end32[t], start[s] * end[t], s, t));
                }
            }
        }
        spans.sort(Comparator.comparingDouble(Scored::order).reversed());
        int keep = options.alignToWords() ? options.topK() * 2 + 10 : options.topK();
        String context = pair.question().context();
        for (Scored span : spans.subList(0, Math.min(keep, spans.size()))) {
            int[] chars = options.alignToWords() && e.sequenceIds()[span.start()] == 1 && e.sequenceIds()[span.end()] == 1
                    ? wordChars(pair.words(), window, span) : new int[] {e.starts()[span.start()], e.ends()[span.end()]};
            String text = context.substring(chars[0], chars[1]);
            String key = text.toLowerCase(Locale.ROOT);
            int found = -1;
            for (int a = 0; a < answers.size() && found < 0; a++) {
                if (answers.get(a).answer().toLowerCase(Locale.ROOT).equals(key)) {
                    found = a;
                }
            }
            if (found >= 0) {
                QuestionAnswerer.Answer old = answers.get(found);
                answers.set(found, new QuestionAnswerer.Answer(old.score() + span.score(), old.start(), old.end(), old.answer()));
            } else {
                answers.add(new QuestionAnswerer.Answer(span.score(), pair.codePoints()[chars[0]], pair.codePoints()[chars[1]], text));
            }
        }
        return nullScore;
    }

    /**
     * A span widened to whole words within its window, in UTF-16 units of the context: from the first token of
     * the start token's word to the last token of the end token's word (a word the window cuts gives its part
     * in the window), as the tokenizers library's word_to_chars does.
     */
    private static int[] wordChars(int[] words, QuestionAnswerer.Window window, Scored span) {
        int s = window.from() + span.start() - window.prefix();     // context token indices
        int t = window.from() + span.end() - window.prefix();
        int from = s;
        while (from > window.from() && words[from - 1] == words[s]) {
            from--;
        }
        int to = t;
        while (to + 1 < window.to() && words[to + 1] == words[t]) {
            to++;
        }
        Encoding e = window.encoding();
        return new int[] {e.starts()[window.prefix() + from - window.from()], e.ends()[window.prefix() + to - window.from()]};
    }

    /** Softmax over the window of one logit column, positions not allowed at -10000 as the pipeline masks them. */
    private static double[] softmax(float[] logits, int column, boolean[] allowed) {
        int n = allowed.length;
        double[] p = new double[n];
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            p[i] = allowed[i] ? logits[i * 2 + column] : -10000.0;
            max = Math.max(max, p[i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            p[i] = Math.exp(p[i] - max);
            sum += p[i];
        }
        for (int i = 0; i < n; i++) {
            p[i] /= sum;
        }
        return p;
    }
}
