package org.vectorbert.engine;

import java.util.Optional;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.Tensor;

/**
 * {@code bert.embeddings}: each token's word, position and token-type embeddings added, then a
 * LayerNorm, and (ELECTRA, when its embeddings are narrower than the hidden state) the projection
 * {@code embeddings_project} to the hidden size. The word embeddings are kept packed, as the MLM
 * decoder they are tied to reads them, and looked up from there (a strided copy of one row per token).
 * Position ids count from {@link BertConfig#firstPosition()}: BERT's from 0; RoBERTa's skip padding,
 * as transformers' {@code create_position_ids_from_input_ids} (a padding token takes
 * {@code pad_token_id}, every other token {@code pad_token_id} plus its count of non-padding tokens).
 *
 * @param words       word_embeddings [vocab, width], packed in float32
 * @param wordsName   the checkpoint's name for word_embeddings
 * @param positions   position_embeddings [max_position_embeddings, width]
 * @param tokenTypes  token_type_embeddings [type_vocab_size, width], or null (DistilBERT has none: type ids are ignored)
 * @param layerNorm   LayerNorm [width]
 * @param projection  embeddings_project [width -> hidden], or empty
 * @param width       embedding_size (hidden_size but for ELECTRA's small models)
 * @param skipPadding whether position ids skip padding (RoBERTa's)
 * @param padId       pad_token_id, when position ids skip padding
 */
record BertEmbeddings(PackedMatrix words, String wordsName, float[] positions, float[] tokenTypes, LayerNorm layerNorm,
                      Optional<PackedMatrix> projection, int width, boolean skipPadding, int padId) {
    /** The embeddings at {@code scope}, and {@code projection} (ELECTRA's {@code embeddings_project}) when the config needs one. */
    static BertEmbeddings load(Scope scope, Scope projection, BertConfig c) {
        int e = c.embeddingSize();
        // float32 whatever the precision: the embeddings are looked up, not multiplied, except by the tied decoder.
        Tensor wordTensor = scope.tensor("word_embeddings.weight", c.vocabSize(), e);
        PackedMatrix words = scope.packed(wordTensor, null, Precision.F32);
        return new BertEmbeddings(words, wordTensor.name(), scope.matrix("position_embeddings.weight", c.maxPositionEmbeddings(), e),
                c.hasTokenTypes() ? scope.matrix("token_type_embeddings.weight", c.typeVocabSize(), e) : null,
                LayerNorm.load(scope.child("LayerNorm"), e, c.layerNormEps()),
                e == c.hiddenSize() ? Optional.empty() : Optional.of(projection.linear(e, c.hiddenSize())),
                e, c.positionsSkipPadding(), c.padTokenId());
    }

    /** Whether {@code t} is the checkpoint's word-embedding tensor (a tied decoder is found under its name). */
    boolean isWordEmbeddings(Tensor t) {
        return t.name().equals(wordsName);
    }

    /**
     * word[id] + position[i] + type[t] for every position of the batch, then LayerNorm, into x: [layout.rows(), hidden],
     * each sequence at its rows of the layout. With a projection the embeddings are made in {@code scratch} ([rows,
     * width] or more) first.
     */
    void forward(Batch batch, RowLayout layout, float[] x, float[] scratch) {
        int rows = layout.rows();
        float[] e = projection.isEmpty() ? x : scratch.length >= rows * width ? scratch : new float[rows * width];
        float[] row = new float[width];
        for (int b = 0; b < batch.size(); b++) {
            int position = skipPadding ? padId : -1;
            for (int i = 0; i < layout.lengths()[b]; i++) {
                int off = (layout.starts()[b] + i) * width;
                int at = b * batch.length() + i;
                int id = batch.ids()[at];
                words.copyRow(id, e, off);
                // RoBERTa's rule also gives padding (after a text) the position pad_token_id, as transformers does.
                int p = skipPadding ? (id == padId ? padId : ++position) : i;
                System.arraycopy(positions, p * width, row, 0, width);
                Kernels.addInPlace(e, off, row, width);
                if (tokenTypes != null) {
                    System.arraycopy(tokenTypes, batch.typeIds()[at] * width, row, 0, width);
                    Kernels.addInPlace(e, off, row, width);
                }
            }
        }
        layerNorm.apply(e, rows, e);
        projection.ifPresent(p -> p.apply(e, rows, x));
    }

    long bytes() {
        return words.bytes() + 4L * (positions.length + (tokenTypes == null ? 0 : tokenTypes.length)) + layerNorm.bytes()
                + projection.map(PackedMatrix::bytes).orElse(0L);
    }
}
