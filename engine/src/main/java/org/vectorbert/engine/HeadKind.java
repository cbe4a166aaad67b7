package org.vectorbert.engine;

/**
 * The heads an encoder can carry, each found from the checkpoint's weights when a model loads (for BERT and its
 * families, {@link BertHeads}): {@code inspect} lists them, a request names them. A new kind of head is one constant
 * here and, in each architecture that has it, one class and one case where it finds its heads.
 */
public enum HeadKind {
    /** BERT's {@code cls.predictions} and each architecture's masked-language-model head: logits over the vocabulary (fill-mask). */
    MASKED_LM("mlm_head", "masked-LM", "masked-language-model"),
    /** BERT's {@code bert.pooler}: tanh(W·h + b) at the first token. */
    POOLER("pooler", "pooler", "pooler"),
    /** {@code *ForSequenceClassification}'s head, one logit per label: classifiers and cross-encoder rerankers. */
    SEQUENCE_CLASSIFIER("sequence_classifier", "sequence classifier", "sequence-classification"),
    /** {@code *ForTokenClassification}'s {@code classifier} at every token: one logit per label (NER). */
    TOKEN_CLASSIFIER("token_classifier", "token classifier", "token-classification"),
    /** {@code *ForQuestionAnswering}'s {@code qa_outputs} at every token: the start and end logits of an answer span. */
    QUESTION_ANSWERING("qa_head", "question answering", "question-answering"),
    /** A decoder's {@code lm_head} (or its tied word embeddings): next-token logits over the vocabulary (Qwen3-Reranker's yes and no). */
    CAUSAL_LM("lm_head", "causal LM", "causal-language-model");

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
}
