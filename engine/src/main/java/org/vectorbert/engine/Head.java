package org.vectorbert.engine;

/**
 * A head on the encoder, as transformers composes {@code BertForMaskedLM} from {@code BertModel} and
 * a head: it reads chosen rows of a pass's last hidden state and gives {@link #width()} numbers for
 * each. Which rows is the task's choice: the masks for fill-mask, each sequence's first token for the
 * pooler and the sequence classifiers, every token for token classification and question answering.
 * Heads are found in the checkpoint when a model loads ({@link HeadKind}): a new head is one class and
 * one {@link HeadKind} constant.
 */
interface Head {
    /** Numbers per row read: the vocabulary for the MLM head, the hidden size for the pooler, the labels for a classifier. */
    int width();

    /** Its output for {@code rows} of x ([rows of the batch, hidden]): [rows.length, width], row-major. */
    float[] forward(float[] x, int[] rows);

    /** Bytes of weights of its own (a tied decoder counted with the embeddings, not here). */
    long bytes();

    /** The rows of x at {@code rows}, side by side: [rows.length, hidden]. */
    static float[] gather(float[] x, int[] rows, int hidden) {
        float[] h = new float[rows.length * hidden];
        for (int i = 0; i < rows.length; i++) {
            System.arraycopy(x, rows[i] * hidden, h, i * hidden, hidden);
        }
        return h;
    }
}
