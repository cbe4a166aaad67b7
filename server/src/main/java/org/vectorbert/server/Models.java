package org.vectorbert.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.FillMask;
import org.vectorbert.engine.HeadKind;
import org.vectorbert.engine.QuestionAnswerer;
import org.vectorbert.engine.M3Embeddings;
import org.vectorbert.engine.SparseEmbeddings;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.engine.TokenClassifier;

/**
 * What a server serves: one model's embeddings pipeline, its fill-mask pipeline when the checkpoint
 * has a masked-language-model head, and its classifier (TEI's /predict, and /rerank for one label) when
 * it has a sequence-classification head, its token classifier (/token-classification) and question answerer
 * (/question-answering) when it has those heads; all share the weights.
 *
 * @param id         the name /info and OpenAI's responses give (the --model argument, or the default model's name)
 * @param embeddings texts to vectors, with the model's declared pooling; per-request options ride on it
 * @param fillMask   the fill-mask pipeline, empty when the checkpoint has no MLM head
 * @param classifier the text classifier, empty when the checkpoint has no sequence-classification head
 * @param tagger     the token classifier, empty when the checkpoint has no token-classification head
 * @param answerer   the question answerer, empty when the checkpoint has no question-answering head
 * @param sparse     SPLADE vectors over the MLM head (/embed_sparse), empty when the checkpoint has no MLM head
 * @param m3         bge-m3's lexical weights and ColBERT vectors (/embed_sparse, /embed_multi_vector, /rerank's modes), empty
 *                   unless the model directory has sparse_linear.pt and colbert_linear.pt
 */
public record Models(String id, Embeddings embeddings, Optional<FillMask> fillMask, Optional<TextClassifier> classifier,
                     Optional<TokenClassifier> tagger, Optional<QuestionAnswerer> answerer, Optional<SparseEmbeddings> sparse,
                     Optional<M3Embeddings> m3) {
    /** Checks that nothing is null. */
    public Models {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(embeddings, "embeddings");
        Objects.requireNonNull(fillMask, "fillMask");
        Objects.requireNonNull(classifier, "classifier");
        Objects.requireNonNull(tagger, "tagger");
        Objects.requireNonNull(answerer, "answerer");
        Objects.requireNonNull(sparse, "sparse");
        Objects.requireNonNull(m3, "m3");
    }

    /** {@return these models without bge-m3's heads} For tests and servers that hold an encoder alone. */
    public static Models of(String id, Embeddings embeddings, Optional<FillMask> fillMask, Optional<TextClassifier> classifier,
                            Optional<TokenClassifier> tagger, Optional<QuestionAnswerer> answerer, Optional<SparseEmbeddings> sparse) {
        return new Models(id, embeddings, fillMask, classifier, tagger, answerer, sparse, Optional.empty());
    }

    /**
     * Embeddings with the model's own settings, and every other pipeline over the same weights whose head the model has.
     *
     * @param id         the name /info and OpenAI's responses give
     * @param embeddings the model's embeddings pipeline
     * @return what the server serves
     */
    public static Models of(String id, Embeddings embeddings) {
        Optional<FillMask> fillMask = embeddings.model().hasMlmHead()
                ? Optional.of(FillMask.of(embeddings.model(), embeddings.tokenizer(), org.vectorbert.engine.FillMaskOptions.defaults()
                        .withPrecision(embeddings.model().precision())))
                : Optional.empty();
        Optional<TextClassifier> classifier = TextClassifier.ifAny(embeddings.model(), embeddings.tokenizer());
        Optional<TokenClassifier> tagger = embeddings.model().heads().contains(HeadKind.TOKEN_CLASSIFIER)
                ? Optional.of(TokenClassifier.of(embeddings.model(), embeddings.tokenizer())) : Optional.empty();
        Optional<QuestionAnswerer> answerer = embeddings.model().heads().contains(HeadKind.QUESTION_ANSWERING)
                ? Optional.of(QuestionAnswerer.of(embeddings.model(), embeddings.tokenizer())) : Optional.empty();
        Optional<SparseEmbeddings> sparse = embeddings.model().hasMlmHead()
                ? Optional.of(SparseEmbeddings.of(embeddings.model(), embeddings.tokenizer())) : Optional.empty();
        Path dir = embeddings.model().directory();
        Optional<M3Embeddings> m3 = Files.isRegularFile(dir.resolve(M3Embeddings.SPARSE_FILE))
                && Files.isRegularFile(dir.resolve(M3Embeddings.COLBERT_FILE)) ? Optional.of(M3Embeddings.of(embeddings)) : Optional.empty();
        return new Models(id, embeddings, fillMask, classifier, tagger, answerer, sparse, m3);
    }
}
