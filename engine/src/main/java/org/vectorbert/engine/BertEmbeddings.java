package org.vectorbert.engine;

import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Tensor;

/**
 * {@code bert.embeddings}: each token's word, position and token-type embeddings added, then a
 * LayerNorm. The word embeddings are kept packed, as the MLM decoder they are tied to reads them,
 * and looked up from there (a strided copy of one row per token).
 *
 * @param words      word_embeddings [vocab, hidden], packed in float32
 * @param wordsName  the checkpoint's name for word_embeddings
 * @param positions  position_embeddings [max_position_embeddings, hidden]
 * @param tokenTypes token_type_embeddings [type_vocab_size, hidden]
 * @param layerNorm  LayerNorm [hidden]
 * @param hidden     hidden_size
 */
record BertEmbeddings(PackedMatrix words, String wordsName, float[] positions, float[] tokenTypes, LayerNorm layerNorm,
                      int hidden) {
    static BertEmbeddings load(Scope scope, BertConfig c) {
        int h = c.hiddenSize();
        // float32 whatever the precision: the embeddings are looked up, not multiplied, except by the tied decoder.
        Tensor wordTensor = scope.tensor("word_embeddings.weight", c.vocabSize(), h);
        PackedMatrix words = scope.packed(wordTensor, null, Precision.F32);
        return new BertEmbeddings(words, wordTensor.name(), scope.matrix("position_embeddings.weight", c.maxPositionEmbeddings(), h),
                scope.matrix("token_type_embeddings.weight", c.typeVocabSize(), h),
                LayerNorm.load(scope.child("LayerNorm"), c), h);
    }

    /** Whether {@code t} is the checkpoint's word-embedding tensor (a tied decoder is found under its name). */
    boolean isWordEmbeddings(Tensor t) {
        return t.name().equals(wordsName);
    }

    /** word[id] + position[i] + type[t] for every position of the batch, then LayerNorm, into x: [rows, hidden]. */
    void forward(Batch batch, float[] x) {
        int seq = batch.length();
        float[] row = new float[hidden];
        for (int r = 0; r < batch.rows(); r++) {
            int off = r * hidden;
            words.copyRow(batch.ids()[r], x, off);
            System.arraycopy(positions, (r % seq) * hidden, row, 0, hidden);
            RowKernels.addInPlace(x, off, row, hidden);
            System.arraycopy(tokenTypes, batch.typeIds()[r] * hidden, row, 0, hidden);
            RowKernels.addInPlace(x, off, row, hidden);
        }
        layerNorm.apply(x, batch.rows(), x);
    }

    long bytes() {
        return words.bytes() + 4L * (positions.length + tokenTypes.length) + layerNorm.bytes();
    }
}
