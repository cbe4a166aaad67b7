package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.vectorbert.loader.Labels;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;

/**
 * Token classification (named entities) with a {@code *ForTokenClassification} checkpoint, as
 * transformers' token-classification pipeline does it: each token's label probabilities (softmax),
 * special tokens skipped, tokens merged into words and entities by the aggregation strategy, labels in
 * {@code ignore_labels} ("O") dropped after grouping. Start and end are character offsets into the
 * original text, counted in code points as Python counts them. Texts longer than the model takes are
 * cut there, as the pipeline does without a stride. Thread-safe.
 *
 * <pre>{@code
 * TokenClassifier ner = TokenClassifier.load("path/to/bert-base-NER");
 * ner.entities("My name is Wolfgang and I live in Berlin", Aggregation.SIMPLE, Set.of("O"));
 * }</pre>
 */
public final class TokenClassifier {
    /** How tokens become entities: the pipeline's {@code aggregation_strategy}. */
    public enum Aggregation {
        /** Every token on its own, with its index. */
        NONE,
        /** Tokens grouped into entities by their B-/I- tags. */
        SIMPLE,
        /** Words take their first token's label, then are grouped. */
        FIRST,
        /** Words take the label of their token surest of its own, then are grouped. */
        MAX,
        /** Words take the label of their tokens' mean probabilities, then are grouped. */
        AVERAGE;

        /**
         * The strategy a name spells.
         *
         * @param name none, simple, first, max or average, in any case
         * @return the strategy
         */
        public static Aggregation parse(String name) {
            try {
                return valueOf(name.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new EngineException("aggregation_strategy must be none, simple, first, average or max, not '" + name + "'");
            }
        }
    }

    /**
     * One entity: with {@link Aggregation#NONE} a token ({@code entity} its label, {@code index} its
     * position among the encoding's tokens); otherwise a group ({@code entity} the label without its
     * B-/I- prefix, the pipeline's {@code entity_group}, and {@code index} -1).
     *
     * @param entity the label, or the group's label without its B-/I- prefix
     * @param score  its probability (a group's mean)
     * @param index  the token's position, or -1 for a group
     * @param word   the text it covers, as the tokenizer decodes it
     * @param start  its first character in the text
     * @param end    the character after its last
     */
    public record Entity(String entity, float score, int index, String word, int start, int end) {
        /**
         * The pipeline's dict for it: entity (or entity_group when grouped), score, index (ungrouped), word, start, end.
         *
         * @param aggregation the strategy that made it
         * @return the fields, in the pipeline's order
         */
        public Map<String, Object> pipelineFields(Aggregation aggregation) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put(aggregation == Aggregation.NONE ? "entity" : "entity_group", entity);
            m.put("score", score);
            if (aggregation == Aggregation.NONE) {
                m.put("index", index);
            }
            m.put("word", word);
            m.put("start", start);
            m.put("end", end);
            return m;
        }
    }

    /**
     * One text's entities, with its length in tokens (special tokens included, after any cut).
     *
     * @param truncated whether the text was cut to the model's length
     * @param entities  the entities, in text order
     * @param tokens    the text's length in tokens
     */
    public record Result(List<Entity> entities, int tokens, boolean truncated) {}

    /** A token of the text with its label probabilities (the pipeline's pre-entity). */
    private record Token(String word, float[] scores, int start, int end, int index, boolean subword) {}

    private final Encoder model;
    private final Tokenizer tokenizer;
    private final Labels labels;
    private final int maxTokens;

    private TokenClassifier(Encoder model, Tokenizer tokenizer) {
        model.requireHead(HeadKind.TOKEN_CLASSIFIER, ": it cannot tag tokens");
        model.requireFits(tokenizer);
        this.model = model;
        this.tokenizer = tokenizer;
        this.labels = model.labels();
        this.maxTokens = Math.min(model.config().maxTokens(), tokenizer.modelMaxLength());
    }

    /**
     * The model {@code model} names, in float32.
     *
     * @param model what {@code --model} accepts
     * @return the token classifier
     */
    public static TokenClassifier load(String model) {
        return load(model, Precision.F32);
    }

    /**
     * The model {@code model} names, its matrices held at {@code precision}.
     *
     * @param model     what {@code --model} accepts
     * @param precision F32 or BF16
     * @return the token classifier
     */
    public static TokenClassifier load(String model, Precision precision) {
        return ModelLoading.load(model, precision, TokenClassifier::of);
    }

    /**
     * A token classifier over a model and tokenizer already loaded.
     *
     * @param model     a model with a token-classification head
     * @param tokenizer its tokenizer
     * @return the token classifier
     */
    public static TokenClassifier of(Encoder model, Tokenizer tokenizer) {
        return new TokenClassifier(model, tokenizer);
    }

    /** {@return config.json's labels, in id order} */
    public Labels labels() {
        return labels;
    }

    /** {@return the longest text the model takes, in tokens; longer texts are cut there} */
    public int maxTokens() {
        return maxTokens;
    }

    /**
     * The entities of {@code text}, in text order.
     *
     * @param text         the text
     * @param aggregation  how tokens become entities
     * @param ignoreLabels labels whose entities are dropped after grouping ("O", say)
     * @return the entities
     */
    public List<Entity> entities(String text, Aggregation aggregation, Set<String> ignoreLabels) {
        return entities(List.of(text), aggregation, ignoreLabels).getFirst();
    }

    /**
     * The entities of each text, in text order, the texts batched by length.
     *
     * @param texts        the texts
     * @param aggregation  how tokens become entities
     * @param ignoreLabels labels whose entities are dropped after grouping ("O", say)
     * @return each text's entities, in order
     */
    public List<List<Entity>> entities(List<String> texts, Aggregation aggregation, Set<String> ignoreLabels) {
        return tag(texts, aggregation, ignoreLabels).stream().map(Result::entities).toList();
    }

    /**
     * {@link #entities(List, Aggregation, Set)} with each text's length in tokens and whether it was cut.
     *
     * @param texts        the texts
     * @param aggregation  how tokens become entities
     * @param ignoreLabels labels whose entities are dropped after grouping ("O", say)
     * @return one result per text, in order
     */
    public List<Result> tag(List<String> texts, Aggregation aggregation, Set<String> ignoreLabels) {
        return tag(texts, aggregation, ignoreLabels, -1);
    }

    /**
     * The entities of each text, as {@link #tag(List, Aggregation, Set)}; with a {@code stride} of 0 or more, a text
     * longer than the model takes is not cut but read in windows that share {@code stride} tokens (the pipeline's
     * {@code stride}): each window's entities are found on their own (a token's {@code index} counts within its
     * window), and where windows overlap the longer entity is kept (of equal ones the surer).
     *
     * @param texts        the texts
     * @param aggregation  how tokens become entities
     * @param ignoreLabels labels whose entities are dropped after grouping ("O", say)
     * @param stride       tokens windows share, or a negative number to cut long texts instead
     * @return one result per text, in order
     */
    public List<Result> tag(List<String> texts, Aggregation aggregation, Set<String> ignoreLabels, int stride) {
        int room = maxTokens - tokenizer.template().singleAdded();
        if (stride >= room) {
            throw new EngineException("stride (" + stride + ") must be smaller than the " + room + " tokens of text a window holds");
        }
        List<Encoding> windows = new ArrayList<>();
        int[] firstWindow = new int[texts.size() + 1];
        int[] lengths = new int[texts.size()];
        boolean[] truncated = new boolean[texts.size()];
        if (stride < 0) {
            EncodeOptions options = EncodeOptions.defaults().withPadding(Padding.NONE).withTruncation(Truncation.LONGEST_FIRST)
                    .withMaxLength(maxTokens);
            windows.addAll(tokenizer.encodeBatch(texts, options));
            for (int t = 0; t < texts.size(); t++) {
                firstWindow[t + 1] = t + 1;
                lengths[t] = windows.get(t).length();
                truncated[t] = !windows.get(t).overflowing().isEmpty();
            }
        } else {
            EncodeOptions whole = EncodeOptions.defaults().withPadding(Padding.NONE).withTruncation(Truncation.NONE);
            List<Encoding> encodings = tokenizer.encodeBatch(texts, whole);
            for (int t = 0; t < texts.size(); t++) {
                Encoding e = encodings.get(t);
                lengths[t] = e.length();
                windows.addAll(windows(e, room, stride));
                firstWindow[t + 1] = windows.size();
            }
        }
        float[][] probabilities = probabilities(windows);
        List<Result> results = new ArrayList<>(texts.size());
        for (int t = 0; t < texts.size(); t++) {
            List<Entity> entities = new ArrayList<>();
            for (int w = firstWindow[t]; w < firstWindow[t + 1]; w++) {
                entities.addAll(entities(texts.get(t), windows.get(w), probabilities[w], aggregation, ignoreLabels));
            }
            results.add(new Result(firstWindow[t + 1] - firstWindow[t] > 1 ? EntityGroups.overlapsResolved(entities) : entities,
                    lengths[t], truncated[t]));
        }
        return results;
    }

    /** A whole encoding in windows of {@code room} text tokens (one window when it fits). */
    private List<Encoding> windows(Encoding e, int room, int stride) {
        int[] text = StrideWindows.span(e, 0);
        if (e.length() <= maxTokens || text[1] == 0) {
            return List.of(e);
        }
        return StrideWindows.ranges(text[1], room, stride).stream().map(r -> StrideWindows.slice(e, text[0], text[1], r[0], r[1])).toList();
    }

    /** One window's entities, those labelled in {@code ignoreLabels} dropped after grouping. */
    private List<Entity> entities(String text, Encoding e, float[] probabilities, Aggregation aggregation, Set<String> ignoreLabels) {
        List<Token> tokens = tokens(text, e, probabilities);
        List<EntityGroups.Labelled> labelled = aggregation == Aggregation.NONE || aggregation == Aggregation.SIMPLE
                ? tokens.stream().map(this::label).toList()
                : words(tokens, aggregation);
        List<Entity> entities = aggregation == Aggregation.NONE
                ? labelled.stream().map(l -> new Entity(l.entity(), l.score(), l.index(), l.word(), l.start(), l.end())).toList()
                : EntityGroups.group(labelled, tokenizer);
        return entities.stream().filter(x -> !ignoreLabels.contains(x.entity())).toList();
    }

    /** Each encoding's label probabilities, [tokens, labels] row-major: softmax of the logits per token. */
    private float[][] probabilities(List<Encoding> encodings) {
        int n = labels.count();
        float[][] out = new float[encodings.size()][];
        int[] lengths = encodings.stream().mapToInt(Encoding::length).toArray();
        for (List<Integer> members : LengthBatches.of(lengths, EmbeddingOptions.BATCH_TOKENS)) {
            Batch batch = Batch.of(members.stream().map(encodings::get).toList(), tokenizer.padTokenId());
            int[] rows = batch.realRows();
            float[] logits = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.TOKEN_CLASSIFIER, rows),
                    o -> o.heads().get(HeadKind.TOKEN_CLASSIFIER));
            int at = 0;
            for (int i : members) {
                int length = encodings.get(i).length();
                float[] p = new float[length * n];
                for (int k = 0; k < length; k++) {
                    float[] s = TextClassifier.Function.SOFTMAX.apply(logits, (at + k) * n, n);
                    System.arraycopy(s, 0, p, k * n, n);
                }
                out[i] = p;
                at += length;
            }
        }
        return out;
    }

    /**
     * The text's tokens but special ones, each with its probabilities, its span and whether it continues
     * a word: with a continuing-subword prefix ("##") when the token is spelled longer or shorter than its
     * span, else (byte-level BPE, Unigram) when no space or text start comes before it, as the pipeline decides.
     */
    private List<Token> tokens(String text, Encoding e, float[] probabilities) {
        int n = labels.count();
        boolean prefixed = tokenizer.continuingSubwordPrefix() != null;
        List<Token> tokens = new ArrayList<>();
        for (int i = 0; i < e.length(); i++) {
            if (e.specialTokensMask()[i] == 1) {
                continue;
            }
            String word = e.tokens().get(i);
            int start = e.starts()[i];
            int end = e.ends()[i];
            String ref = text.substring(start, end);
            boolean subword;
            if (prefixed) {
                subword = word.codePointCount(0, word.length()) != ref.codePointCount(0, ref.length());
            } else {
                subword = start > 0 && !text.substring(start - 1, Math.min(text.length(), start + 1)).contains(" ");
            }
            if (e.ids()[i] == tokenizer.unkTokenId()) {
                word = ref;
                subword = false;
            }
            tokens.add(new Token(word, Arrays.copyOfRange(probabilities, i * n, (i + 1) * n), text.codePointCount(0, start),
                    text.codePointCount(0, end), i, subword));
        }
        return tokens;
    }

    /** A token with its most probable label. */
    private EntityGroups.Labelled label(Token t) {
        int best = argmax(t.scores());
        return new EntityGroups.Labelled(labels.names().get(best), t.scores()[best], t.index(), t.word(), t.start(), t.end());
    }

    /** Tokens merged into words (a word and the subwords after it), each labelled by {@code aggregation}. */
    private List<EntityGroups.Labelled> words(List<Token> tokens, Aggregation aggregation) {
        List<EntityGroups.Labelled> words = new ArrayList<>();
        List<Token> word = new ArrayList<>();
        for (Token t : tokens) {
            if (!word.isEmpty() && !t.subword()) {
                words.add(word(word, aggregation));
                word = new ArrayList<>();
            }
            word.add(t);
        }
        if (!word.isEmpty()) {
            words.add(word(word, aggregation));
        }
        return words;
    }

    private EntityGroups.Labelled word(List<Token> tokens, Aggregation aggregation) {
        float[] scores = switch (aggregation) {
            case FIRST -> tokens.getFirst().scores();
            case MAX -> surest(tokens).scores();
            case AVERAGE -> mean(tokens);
            default -> throw new IllegalStateException(aggregation.name());
        };
        int best = argmax(scores);
        String text = tokenizer.tokensToText(tokens.stream().map(Token::word).toList());
        return new EntityGroups.Labelled(labels.names().get(best), scores[best], -1, text, tokens.getFirst().start(), tokens.getLast().end());
    }

    /** The token whose best probability is highest, the first of equals (as Python's max). */
    private static Token surest(List<Token> tokens) {
        Token best = tokens.getFirst();
        for (Token t : tokens) {
            if (max(t.scores()) > max(best.scores())) {
                best = t;
            }
        }
        return best;
    }

    private static float[] mean(List<Token> tokens) {
        int n = tokens.getFirst().scores().length;
        float[] m = new float[n];
        for (int j = 0; j < n; j++) {
            float sum = 0;
            for (Token t : tokens) {
                sum += t.scores()[j];
            }
            m[j] = sum / tokens.size();
        }
        return m;
    }

    private static int argmax(float[] v) {
        int best = 0;
        for (int i = 1; i < v.length; i++) {
            if (v[i] > v[best]) {
                best = i;
            }
        }
        return best;
    }

    private static float max(float[] v) {
        return v[argmax(v)];
    }
}
