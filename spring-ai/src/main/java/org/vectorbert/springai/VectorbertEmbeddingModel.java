package org.vectorbert.springai;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.document.Document;
import org.springframework.ai.embedding.Embedding;
import org.springframework.ai.embedding.EmbeddingModel;
import org.springframework.ai.embedding.EmbeddingOptions;
import org.springframework.ai.embedding.EmbeddingRequest;
import org.springframework.ai.embedding.EmbeddingResponse;
import org.springframework.ai.embedding.EmbeddingResponseMetadata;
import org.vectorbert.engine.Embeddings;

/**
 * A Spring AI {@link EmbeddingModel} backed by a vectorbert {@link Embeddings} pipeline: in-process, on
 * the CPU, no service to call. Every entry point comes down to {@link #call}, which embeds all of a
 * request's texts in one call into the engine (grouped by length into forward passes there):
 * Spring AI 2.0's default {@code embed(String)}, {@code embed(List)}, {@code embedForResponse} and
 * {@code embed(List<Document>, options, batchingStrategy)} call it, and so does {@link #embed(Document)};
 * {@link #dimensions()} answers without embedding anything. Thread-safe, as the pipeline is.
 *
 * <p>A request's {@link EmbeddingOptions} may ask for fewer dimensions (Matryoshka truncation: the first
 * components, renormalised, as the engine's {@code dimensions} cuts them; nomic-embed-text-v1.5's layer_norm comes
 * first, as its model card says) and may name the model, which must be the one loaded: one bean serves one model.
 * The response's metadata names the model and counts the tokens embedded (special tokens and a
 * configured prompt included, after truncation to the model's length) as prompt tokens.
 */
public final class VectorbertEmbeddingModel implements EmbeddingModel {
    private final Embeddings embeddings;
    private final String modelName;
    private final int dimensions;

    /**
     * Vectors of the model's own dimension.
     *
     * @param embeddings the pipeline
     * @param modelName  what requests may name and responses report
     */
    public VectorbertEmbeddingModel(Embeddings embeddings, String modelName) {
        this(embeddings, modelName, null);
    }

    /**
     * Vectors of {@code dimensions} components by default (null: the model's own), cut by the engine and renormalised.
     *
     * @param embeddings the pipeline
     * @param modelName  what requests may name and responses report
     * @param dimensions components by default, or null for the model's own
     * @throws IllegalArgumentException if {@code dimensions} is below 1 or above the model's dimension
     */
    public VectorbertEmbeddingModel(Embeddings embeddings, String modelName, @Nullable Integer dimensions) {
        this.embeddings = Objects.requireNonNull(embeddings, "embeddings");
        this.modelName = Objects.requireNonNull(modelName, "modelName");
        this.dimensions = dimensions == null ? embeddings.dimension()
                : MatryoshkaTruncation.requireValid(dimensions, embeddings.dimension(), "the default number of dimensions");
    }

    @Override
    public EmbeddingResponse call(EmbeddingRequest request) {
        Objects.requireNonNull(request, "request");
        List<String> texts = request.getInstructions();
        if (texts == null) {
            throw new IllegalArgumentException("the embedding request has no list of texts");
        }
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i) == null) {
                throw new IllegalArgumentException("text " + i + " of " + texts.size() + " in the embedding request is null");
            }
        }
        int size = dimensionsFor(request.getOptions());
        // A shorter vector is the engine's cut (nomic-embed-text-v1.5's layer_norm first, as its card says), then normalised.
        Embeddings pipeline = size == embeddings.dimension() ? embeddings
                : embeddings.with(embeddings.options().withDimensions(size).withNormalize(true));
        List<Embeddings.Result> results = pipeline.run(texts, null);
        List<Embedding> out = new ArrayList<>(results.size());
        int tokens = 0;
        for (int i = 0; i < results.size(); i++) {
            Embeddings.Result r = results.get(i);
            out.add(new Embedding(r.pooled(), i));
            tokens += r.ids().length;
        }
        return new EmbeddingResponse(out, new EmbeddingResponseMetadata(modelName, new DefaultUsage(tokens, 0, tokens)));
    }

    /** The document's text ({@link #getEmbeddingContent}) embedded; a document without text (an image, say) is refused. */
    @Override
    public float[] embed(Document document) {
        Objects.requireNonNull(document, "document");
        String text = getEmbeddingContent(document);
        if (text == null) {
            throw new IllegalArgumentException("document " + document.getId() + " has no text (its media is "
                    + (document.getMedia() == null ? "absent" : document.getMedia().getMimeType()) + "): vectorbert embeds text only");
        }
        return embed(text);
    }

    /** The length of the vectors a request without options gets: the configured dimensions, else the model's. */
    @Override
    public int dimensions() {
        return dimensions;
    }

    /**
     * The name requests may give in their options and responses report: the model as it was configured.
     *
     * @return the model's name
     */
    public String modelName() {
        return modelName;
    }

    /**
     * The pipeline behind this model.
     *
     * @return the pipeline
     */
    public Embeddings embeddings() {
        return embeddings;
    }

    private int dimensionsFor(@Nullable EmbeddingOptions options) {
        if (options == null) {
            return dimensions;
        }
        String asked = options.getModel();
        if (asked != null && !asked.equals(modelName)) {
            throw new IllegalArgumentException("the request asks for model '" + asked + "', but this EmbeddingModel has '" + modelName
                    + "' loaded; vectorbert serves one model per bean: leave the model out of the options, or define a bean for '"
                    + asked + "'");
        }
        Integer size = options.getDimensions();
        return size == null ? dimensions
                : MatryoshkaTruncation.requireValid(size, embeddings.dimension(), "the request's number of dimensions");
    }
}
