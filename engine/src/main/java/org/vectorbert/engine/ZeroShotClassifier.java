package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.vectorbert.tokenizer.Truncation;

/**
 * Zero-shot classification as transformers' zero-shot-classification pipeline does it, with any NLI model the engine
 * loads (a sequence classifier with a label starting with "entail"): each candidate label becomes a hypothesis
 * ({@code "This example is {}."} by default) paired with the sequence, the premise cut first when too long. The
 * entailment logits are softmaxed over the candidates; with {@code multiLabel}, or a single candidate, each candidate's
 * entailment is softmaxed against its contradiction column instead, which is column 0, or the last column when
 * entailment is column 0 (the pipeline's rule, not a lookup by name). Labels come back best first. Thread-safe.
 *
 * <pre>{@code
 * ZeroShotClassifier zeroShot = ZeroShotClassifier.load("path/to/nli-model");
 * zeroShot.classify("I have a problem with my iphone", List.of("urgent", "phone", "tablet"));
 * }</pre>
 */
public final class ZeroShotClassifier {
    /** The pipeline's default hypothesis template. */
    public static final String DEFAULT_TEMPLATE = "This example is {}.";

    /**
     * One sequence's candidate labels, best first.
     *
     * @param sequence the sequence classified
     * @param labels   each candidate and its score, best first
     */
    public record Result(String sequence, List<TextClassifier.Label> labels) {
        /** Copies the labels. */
        public Result {
            labels = List.copyOf(labels);
        }

        /** {@return the pipeline's dict for it: sequence, labels and scores, best first} */
        public Map<String, Object> pipelineFields() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sequence", sequence);
            m.put("labels", labels.stream().map(TextClassifier.Label::label).toList());
            m.put("scores", labels.stream().map(TextClassifier.Label::score).toList());
            return m;
        }
    }

    private final TextClassifier classifier;
    private final int entailment;
    private final int contradiction;

    private ZeroShotClassifier(TextClassifier classifier) {
        List<String> names = classifier.labels().names();
        int found = -1;
        for (int i = 0; i < names.size() && found < 0; i++) {
            found = names.get(i).toLowerCase(Locale.ROOT).startsWith("entail") ? i : -1;
        }
        if (found < 0 || names.size() < 2) {
            throw new EngineException("zero-shot classification needs an NLI model, with an entailment label and another; this model's"
                    + " labels are " + names);
        }
        this.classifier = classifier;
        this.entailment = found;
        this.contradiction = found == 0 ? names.size() - 1 : 0;
    }

    /**
     * The NLI model {@code model} names (a directory or a Hugging Face id), in float32.
     *
     * @param model what {@code --model} accepts
     * @return the classifier
     * @throws EngineException if the model has no entailment label
     */
    public static ZeroShotClassifier load(String model) {
        return load(model, Precision.F32);
    }

    /**
     * The NLI model {@code model} names, its matrices held at {@code precision}.
     *
     * @param model     what {@code --model} accepts
     * @param precision F32 or BF16
     * @return the classifier
     * @throws EngineException if the model has no entailment label
     */
    public static ZeroShotClassifier load(String model, Precision precision) {
        return of(TextClassifier.load(model, precision));
    }

    /**
     * Zero-shot classification with a sequence classifier already loaded.
     *
     * @param classifier an NLI model's classifier
     * @return the zero-shot classifier
     * @throws EngineException if the model has no entailment label
     */
    public static ZeroShotClassifier of(TextClassifier classifier) {
        return new ZeroShotClassifier(classifier);
    }

    /** {@return the sequence classifier underneath} */
    public TextClassifier classifier() {
        return classifier;
    }

    /**
     * Candidate labels as the pipeline reads a string of them: split at commas, each stripped, empty ones dropped.
     *
     * @param labels the labels, comma-separated
     * @return the labels
     */
    public static List<String> parseLabels(String labels) {
        return Arrays.stream(labels.split(",", -1)).map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    /**
     * {@code template} with {@code label} in its place holder, as Python's {@code str.format(label)} fills {@code {}} or
     * {@code {0}} ({@code {{} and {@code }}} stand for braces).
     *
     * @param template the hypothesis template
     * @param label    the candidate label
     * @return the hypothesis
     * @throws EngineException if the template has no place holder, or a field other than {@code {}} and {@code {0}}
     */
    public static String hypothesis(String template, String label) {
        StringBuilder out = new StringBuilder();
        boolean filled = false;
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if ((c == '{' || c == '}') && i + 1 < template.length() && template.charAt(i + 1) == c) {
                out.append(c);
                i++;
            } else if (template.startsWith("{}", i) || template.startsWith("{0}", i)) {
                out.append(label);
                i += template.charAt(i + 1) == '}' ? 1 : 2;
                filled = true;
            } else if (c == '{' || c == '}') {
                throw new EngineException("the hypothesis template \"" + template + "\" has a field other than {} (the label's place)");
            } else {
                out.append(c);
            }
        }
        if (!filled) {
            throw new EngineException("the hypothesis template \"" + template + "\" has no {} for the label to go in");
        }
        return out.toString();
    }

    /**
     * {@code sequence}'s candidate labels, best first, with the default template and one label per sequence.
     *
     * @param sequence the text to classify
     * @param labels   the candidate labels
     * @return the labels, best first
     */
    public Result classify(String sequence, List<String> labels) {
        return classify(List.of(sequence), labels, DEFAULT_TEMPLATE, false).getFirst();
    }

    /**
     * Each sequence's candidate labels, best first. Every (sequence, hypothesis) pair is one input; a pair too long
     * for the model has its sequence cut (the hypothesis never is).
     *
     * @param sequences  the texts to classify
     * @param labels     the candidate labels, at least one
     * @param template   the hypothesis template, with {@code {}} where the label goes
     * @param multiLabel whether each label is scored on its own (entailment against contradiction) rather than the
     *                   labels sharing a probability of 1
     * @return one result per sequence
     * @throws EngineException if there is no label or the template has no place for one
     */
    public List<Result> classify(List<String> sequences, List<String> labels, String template, boolean multiLabel) {
        if (labels.isEmpty()) {
            throw new EngineException("zero-shot classification needs at least one candidate label");
        }
        List<String> hypotheses = labels.stream().map(l -> hypothesis(template, l)).toList();
        List<String> premises = new ArrayList<>();
        List<String> pairs = new ArrayList<>();
        for (String s : sequences) {
            premises.addAll(Collections.nCopies(labels.size(), s));
            pairs.addAll(hypotheses);
        }
        float[] logits = classifier.run(premises, pairs, Truncation.ONLY_FIRST).values();
        int n = classifier.labels().count();
        int c = labels.size();
        List<Result> results = new ArrayList<>();
        for (int s = 0; s < sequences.size(); s++) {
            double[] scores = new double[c];
            if (multiLabel || c == 1) {
                for (int i = 0; i < c; i++) {
                    int row = (s * c + i) * n;
                    scores[i] = 1 / (1 + Math.exp((double) logits[row + contradiction] - logits[row + entailment]));
                }
            } else {
                double max = Double.NEGATIVE_INFINITY;
                for (int i = 0; i < c; i++) {
                    max = Math.max(max, logits[(s * c + i) * n + entailment]);
                }
                double sum = 0;
                for (int i = 0; i < c; i++) {
                    scores[i] = Math.exp(logits[(s * c + i) * n + entailment] - max);
                    sum += scores[i];
                }
                for (int i = 0; i < c; i++) {
                    scores[i] /= sum;
                }
            }
            // Best first; equal scores the later candidate first, as the pipeline's reversed argsort orders them.
            Integer[] order = new Integer[c];
            Arrays.setAll(order, i -> c - 1 - i);
            Arrays.sort(order, (a, b) -> Double.compare(scores[b], scores[a]));
            List<TextClassifier.Label> ranked = new ArrayList<>();
            for (int i : order) {
                ranked.add(new TextClassifier.Label(labels.get(i), (float) scores[i]));
            }
            results.add(new Result(sequences.get(s), ranked));
        }
        return results;
    }
}
