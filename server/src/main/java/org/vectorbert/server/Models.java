package org.vectorbert.server;

import java.util.Objects;
import java.util.Optional;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.FillMask;
import org.vectorbert.engine.HeadKind;
import org.vectorbert.engine.TextClassifier;

/**
 * What a server serves: one model's embeddings pipeline, its fill-mask pipeline when the checkpoint
 * has a masked-language-model head, and its classifier (TEI's /predict, and /rerank for one label) when
 * it has a sequence-classification head; all share the weights.
 *
 * @param id         the name /info and OpenAI's responses give (the --model argument, or the default model's name)
 * @param embeddings texts to vectors, with the model's declared pooling; per-request options ride on it
 * @param fillMask   the fill-mask pipeline, empty when the checkpoint has no MLM head
 * @param classifier the text classifier, empty when the checkpoint has no sequence-classification head
 */
public record Models(String id, Embeddings embeddings, Optional<FillMask> fillMask, Optional<TextClassifier> classifier) {
    public Models {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(embeddings, "embeddings");
        Objects.requireNonNull(fillMask, "fillMask");
        Objects.requireNonNull(classifier, "classifier");
    }

    /** Embeddings with the model's own settings, and fill-mask and the classifier over the same weights when it has their heads. */
    public static Models of(String id, Embeddings embeddings) {
        Optional<FillMask> fillMask = embeddings.model().hasMlmHead()
                ? Optional.of(FillMask.of(embeddings.model(), embeddings.tokenizer(), org.vectorbert.engine.FillMaskOptions.defaults()
                        .withPrecision(embeddings.model().precision())))
                : Optional.empty();
        Optional<TextClassifier> classifier = embeddings.model().heads().contains(HeadKind.SEQUENCE_CLASSIFIER)
                ? Optional.of(TextClassifier.of(embeddings.model(), embeddings.tokenizer())) : Optional.empty();
        return new Models(id, embeddings, fillMask, classifier);
    }
}
