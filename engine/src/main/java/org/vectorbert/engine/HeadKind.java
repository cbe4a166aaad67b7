package org.vectorbert.engine;

import java.util.List;
import java.util.Optional;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Family;

/**
 * The heads a checkpoint can carry, each found from its weights (in its family's names) and, where
 * the weights alone are ambiguous, config.json's {@code architectures}: the one registry of heads
 * ({@code inspect} lists them, loading builds them, a request names them). A new head is one class
 * and one constant here.
 */
public enum HeadKind {
    /** BERT's {@code cls.predictions} and each family's masked-language-model head: logits over the vocabulary (fill-mask). */
    MASKED_LM("mlm_head", "masked-LM", "masked-language-model") {
        private static final String SCOPE = "cls.predictions";

        @Override
        boolean isIn(Scope root) {
            Scope s = root.child(SCOPE);
            return BertMlmHead.OWN.stream().anyMatch(s::has);
        }

        @Override
        Head load(Scope root, BertConfig c, BertEmbeddings embeddings) {
            return BertMlmHead.load(root.child(SCOPE), c, embeddings);
        }

        @Override
        List<String> weights(Scope root) {
            return BertMlmHead.OWN.stream().map(root.child(SCOPE)::name).toList();
        }
    },
    /** BERT's {@code bert.pooler}: tanh(W·h + b) at the first token. */
    POOLER("pooler", "pooler", "pooler") {
        private static final List<String> OWN = List.of("bert.pooler.dense.weight", "bert.pooler.dense.bias");

        @Override
        boolean isIn(Scope root) {
            return OWN.stream().anyMatch(root::has);
        }

        @Override
        Head load(Scope root, BertConfig c, BertEmbeddings embeddings) {
            return BertPooler.load(root.child("bert.pooler"), c);
        }

        @Override
        List<String> weights(Scope root) {
            return OWN;
        }
    },
    /**
     * {@code *ForSequenceClassification}'s head on the first token (the family's layers: {@link Family#classifier()}),
     * one logit per label: classifiers and cross-encoder rerankers.
     */
    SEQUENCE_CLASSIFIER("sequence_classifier", "sequence classifier", "sequence-classification") {
        @Override
        boolean isIn(Scope root) {
            List<String> arch = root.checkpoint().config().architectures();
            if (arch.stream().anyMatch(a -> a.endsWith("ForSequenceClassification"))) {
                return true;
            }
            // Without the class's name, the weights: BERT's token classifier has the same `classifier` matrix, but no pooler.
            return arch.stream().noneMatch(a -> a.endsWith("ForTokenClassification"))
                    && weights(root).stream().allMatch(root::has);
        }

        @Override
        Head load(Scope root, BertConfig c, BertEmbeddings embeddings) {
            return DenseHead.load(root, root.checkpoint().family().classifier(), c, root.checkpoint().labels().count(),
                    "config.json's id2label names " + root.checkpoint().labels().count() + " labels");
        }

        @Override
        List<String> weights(Scope root) {
            return root.checkpoint().family().classifier().stream().flatMap(d -> List.of(d.name() + ".weight", d.name() + ".bias").stream())
                    .toList();
        }
    },
    /** {@code *ForTokenClassification}'s {@code classifier} at every token: one logit per label (NER). */
    TOKEN_CLASSIFIER("token_classifier", "token classifier", "token-classification") {
        @Override
        boolean isIn(Scope root) {
            return root.checkpoint().config().architectures().stream().anyMatch(a -> a.endsWith("ForTokenClassification"));
        }

        @Override
        Head load(Scope root, BertConfig c, BertEmbeddings embeddings) {
            return DenseHead.load(root, List.of(new Family.Dense("classifier", "none")), c, root.checkpoint().labels().count(),
                    "config.json's id2label names " + root.checkpoint().labels().count() + " labels");
        }

        @Override
        List<String> weights(Scope root) {
            return List.of("classifier.weight", "classifier.bias");
        }
    },
    /** {@code *ForQuestionAnswering}'s {@code qa_outputs} at every token: the start and end logits of an answer span. */
    QUESTION_ANSWERING("qa_head", "question answering", "question-answering") {
        @Override
        boolean isIn(Scope root) {
            return root.has("qa_outputs.weight") || root.has("qa_outputs.bias");
        }

        @Override
        Head load(Scope root, BertConfig c, BertEmbeddings embeddings) {
            return DenseHead.load(root, List.of(new Family.Dense("qa_outputs", "none")), c, 2, "question answering needs 2 (start and end)");
        }

        @Override
        List<String> weights(Scope root) {
            return List.of("qa_outputs.weight", "qa_outputs.bias");
        }
    };

    private final String key;
    private final String shortName;
    private final String title;

    HeadKind(String key, String shortName, String title) {
        this.key = key;
        this.shortName = shortName;
        this.title = title;
    }

    /** {@return its key in JSON ({@code inspect --json}: "mlm_head", "pooler", ...)} */
    public String key() {
        return key;
    }

    /** {@return its name in a table ("masked-LM", "pooler", ...)} */
    public String shortName() {
        return shortName;
    }

    /** {@return what the head is, in a sentence ("masked-language-model", "pooler", ...)} */
    public String title() {
        return title;
    }

    /** Whether the checkpoint under {@code root} has this head (then all its weights must be there, or loading says which is missing). */
    abstract boolean isIn(Scope root);

    /** Builds the head from its weights under {@code root} (BERT's names; the family renames them). */
    abstract Head load(Scope root, BertConfig c, BertEmbeddings embeddings);

    /** The head's own weights, in BERT's names under {@code root}. */
    abstract List<String> weights(Scope root);

    /** The head from the checkpoint under {@code root}, or empty when the checkpoint has none. */
    Optional<Head> find(Scope root, BertConfig c, BertEmbeddings embeddings) {
        return isIn(root) ? Optional.of(load(root, c, embeddings)) : Optional.empty();
    }

    /** The checkpoint's names for the head's own weights that it does not hold, for a message. */
    List<String> missing(Scope root) {
        return weights(root).stream().filter(n -> !root.has(n)).map(n -> root.checkpoint().family().spellings(n).getFirst()).toList();
    }
}
