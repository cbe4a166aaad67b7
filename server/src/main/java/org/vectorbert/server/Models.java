package org.vectorbert.server;

import java.util.Objects;
import java.util.Optional;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.FillMask;

/**
 * What a server serves: one model's embeddings pipeline, and its fill-mask pipeline when the
 * checkpoint has a masked-language-model head (the two share the weights).
 *
 * @param id         the name /info and OpenAI's responses give (the --model argument, or the default model's name)
 * @param embeddings texts to vectors, with the model's declared pooling; per-request options ride on it
 * @param fillMask   the fill-mask pipeline, empty when the checkpoint has no MLM head
 */
public record Models(String id, Embeddings embeddings, Optional<FillMask> fillMask) {
    public Models {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(embeddings, "embeddings");
        Objects.requireNonNull(fillMask, "fillMask");
    }

    /** Embeddings with the model's own settings, and fill-mask over the same weights when it has the head. */
    public static Models of(String id, Embeddings embeddings) {
        Optional<FillMask> fillMask = embeddings.model().hasMlmHead()
                ? Optional.of(FillMask.of(embeddings.model(), embeddings.tokenizer(), org.vectorbert.engine.FillMaskOptions.defaults()
                        .withPrecision(embeddings.model().precision())))
                : Optional.empty();
        return new Models(id, embeddings, fillMask);
    }
}
