package org.vectorbert.engine;

import java.util.List;
import java.util.Optional;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Family;

/**
 * Where BERT and its families keep each {@link HeadKind}: how a checkpoint shows it has the head (its weights, in the
 * family's names, and where the weights alone are ambiguous config.json's {@code architectures}), and the head built
 * from those weights.
 */
final class BertHeads {
    private static final String MLM = "cls.predictions";
    private static final List<String> POOLER = List.of("bert.pooler.dense.weight", "bert.pooler.dense.bias");

    private BertHeads() {}

    /** Whether the checkpoint under {@code root} has {@code kind} (then all its weights must be there, or loading says which is missing). */
    static boolean isIn(HeadKind kind, BertCheckpoint checkpoint, Scope root) {
        List<String> architectures = checkpoint.config().architectures();
        return switch (kind) {
            case MASKED_LM -> BertMlmHead.OWN.stream().anyMatch(root.child(MLM)::has);
            case POOLER -> POOLER.stream().anyMatch(root::has);
            // Without the class's name, the weights: BERT's token classifier has the same `classifier` matrix, but no pooler.
            case SEQUENCE_CLASSIFIER -> architectures.stream().anyMatch(a -> a.endsWith("ForSequenceClassification"))
                    || architectures.stream().noneMatch(a -> a.endsWith("ForTokenClassification"))
                    && weights(kind, checkpoint, root).stream().allMatch(root::has);
            case TOKEN_CLASSIFIER -> architectures.stream().anyMatch(a -> a.endsWith("ForTokenClassification"));
            case QUESTION_ANSWERING -> root.has("qa_outputs.weight") || root.has("qa_outputs.bias");
            case CAUSAL_LM -> false;
        };
    }

    /** The head {@code kind} from its weights under {@code root} (BERT's names; the family renames them). */
    static Head load(HeadKind kind, BertCheckpoint checkpoint, Scope root, BertConfig c, BertEmbeddings embeddings) {
        int labels = kind == HeadKind.SEQUENCE_CLASSIFIER || kind == HeadKind.TOKEN_CLASSIFIER ? checkpoint.labels().count() : 0;
        String labelsSay = "config.json's id2label names " + labels + " labels";
        return switch (kind) {
            case MASKED_LM -> BertMlmHead.load(root.child(MLM), c, embeddings);
            case POOLER -> BertPooler.load(root.child("bert.pooler"), c);
            case SEQUENCE_CLASSIFIER -> DenseHead.load(root, checkpoint.family().classifier(), c.hiddenSize(), labels, labelsSay);
            case TOKEN_CLASSIFIER -> DenseHead.load(root, List.of(new Family.Dense("classifier", "none")), c.hiddenSize(), labels, labelsSay);
            case QUESTION_ANSWERING -> DenseHead.load(root, List.of(new Family.Dense("qa_outputs", "none")), c.hiddenSize(), 2,
                    "question answering needs 2 (start and end)");
            case CAUSAL_LM -> throw new IllegalStateException("BERT has no causal LM head");
        };
    }

    /** The head's own weights, in BERT's names under {@code root}. */
    static List<String> weights(HeadKind kind, BertCheckpoint checkpoint, Scope root) {
        return switch (kind) {
            case MASKED_LM -> BertMlmHead.OWN.stream().map(root.child(MLM)::name).toList();
            case POOLER -> POOLER;
            case SEQUENCE_CLASSIFIER -> checkpoint.family().classifier().stream()
                    .flatMap(d -> List.of(d.name() + ".weight", d.name() + ".bias").stream()).toList();
            case TOKEN_CLASSIFIER -> List.of("classifier.weight", "classifier.bias");
            case QUESTION_ANSWERING -> List.of("qa_outputs.weight", "qa_outputs.bias");
            case CAUSAL_LM -> List.of();
        };
    }

    /** The head {@code kind} from the checkpoint under {@code root}, or empty when the checkpoint has none. */
    static Optional<Head> find(HeadKind kind, BertCheckpoint checkpoint, Scope root, BertConfig c, BertEmbeddings embeddings) {
        return isIn(kind, checkpoint, root) ? Optional.of(load(kind, checkpoint, root, c, embeddings)) : Optional.empty();
    }

    /** The checkpoint's names for the head's own weights that it does not hold, for a message. */
    static List<String> missing(HeadKind kind, BertCheckpoint checkpoint, Scope root) {
        return weights(kind, checkpoint, root).stream().filter(n -> !root.has(n)).map(n -> checkpoint.family().spellings(n).getFirst()).toList();
    }
}
