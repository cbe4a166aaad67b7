package org.vectorbert.langchain4j;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.request.EmbeddingInput;
import dev.langchain4j.model.embedding.request.EmbeddingInputType;
import dev.langchain4j.model.embedding.request.EmbeddingParameter;
import dev.langchain4j.model.embedding.request.EmbeddingRequest;
import dev.langchain4j.model.embedding.request.EmbeddingRequestParameters;
import dev.langchain4j.model.embedding.response.EmbeddingResponse;
import dev.langchain4j.model.embedding.response.EmbeddingResponseMetadata;
import dev.langchain4j.model.output.TokenUsage;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Pooling;
import org.vectorbert.engine.Precision;
import org.vectorbert.loader.SentenceTransformersConfig;

/**
 * vectorbert's {@link Embeddings} as a langchain4j {@link EmbeddingModel}: every list of texts is one
 * call into the engine, which groups them by length into batched forward passes. Per request,
 * {@code INPUT_TYPE} picks the model's query or document prompt and {@code DIMENSIONS} keeps a
 * vector's first components (normalised again when the model normalises). Thread-safe.
 *
 * <pre>{@code
 * EmbeddingModel model = VectorbertEmbeddingModel.builder().model("sentence-transformers/all-MiniLM-L6-v2").build();
 * Embedding e = model.embed("A sentence.").content();
 * }</pre>
 *
 * <p>Since langchain4j 1.18 every method of {@link EmbeddingModel} has a default and the defaults call
 * each other ({@code embedAll} -> {@code embed(EmbeddingRequest)} -> {@code doEmbed} -> {@code embedAll}):
 * this class implements {@link #doEmbed}, where every entry point arrives with the request's
 * parameters merged, and leaves {@code embed}, {@code embedAll} and {@code embed(EmbeddingRequest)} to
 * langchain4j, which validates the parameters and calls the listeners there.
 */
public final class VectorbertEmbeddingModel implements EmbeddingModel {
    /** Prompt names sentence-transformers' {@code encode_document} looks for, in its order. */
    private static final List<String> DOCUMENT_PROMPT_NAMES = List.of("document", "passage", "corpus");

    private final Embeddings embeddings;
    private final Embeddings query;
    private final Embeddings document;
    private final String modelName;

    private VectorbertEmbeddingModel(Embeddings embeddings, String queryPrompt, String documentPrompt, String modelName) {
        this.embeddings = Objects.requireNonNull(embeddings, "embeddings");
        Map<String, String> declared = SentenceTransformersConfig.read(embeddings.model().directory())
                .map(SentenceTransformersConfig::prompts).orElse(Map.of());
        this.query = prompted(embeddings, queryPrompt != null ? queryPrompt : declared.get("query"));
        this.document = prompted(embeddings, documentPrompt != null ? documentPrompt
                : DOCUMENT_PROMPT_NAMES.stream().filter(declared::containsKey).map(declared::get).findFirst().orElse(null));
        this.modelName = modelName != null ? modelName : nameOf(embeddings.model().directory());
    }

    /** The pipeline with {@code prompt} before every input, or the pipeline itself when there is none. */
    private static Embeddings prompted(Embeddings embeddings, String prompt) {
        return prompt == null ? embeddings : embeddings.with(embeddings.options().withPrompt(prompt));
    }

    private static String nameOf(Path directory) {
        Path name = directory.getFileName();
        return name == null ? directory.toString() : name.toString();
    }

    /**
     * An embedding model over pipelines the caller already holds, with the prompts its model declares for queries and
     * documents.
     *
     * @param embeddings the pipeline, with the model's own settings or the caller's
     * @return the embedding model
     */
    public static VectorbertEmbeddingModel of(Embeddings embeddings) {
        return new VectorbertEmbeddingModel(embeddings, null, null, null);
    }

    /**
     * A builder of a model loaded by name, with the model's own settings unless set otherwise.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The vectorbert pipeline behind this model (requests without parameters go to it as they are).
     *
     * @return the pipeline
     */
    public Embeddings embeddings() {
        return embeddings;
    }

    @Override
    public EmbeddingResponse doEmbed(EmbeddingRequest request) {
        List<String> texts = request.inputs().stream().map(EmbeddingInput::text).toList();
        EmbeddingRequestParameters parameters = request.parameters() == null ? EmbeddingRequestParameters.EMPTY : request.parameters();
        List<Embeddings.Result> results = pipeline(parameters.inputType(), parameters.dimensions()).run(texts, null);
        int tokens = results.stream().mapToInt(r -> r.ids().length).sum();
        return EmbeddingResponse.builder()
                .embeddings(results.stream().map(r -> new Embedding(r.pooled())).toList())
                .metadata(EmbeddingResponseMetadata.builder().modelName(modelName).tokenUsage(new TokenUsage(tokens)).build())
                .build();
    }

    /** The pipeline for a request: its input type's prompt, cut to its dimensions. */
    private Embeddings pipeline(EmbeddingInputType inputType, Integer dimensions) {
        Embeddings p = inputType == EmbeddingInputType.QUERY ? query : inputType == EmbeddingInputType.DOCUMENT ? document : embeddings;
        return dimensions == null || dimensions == p.dimension() ? p : p.with(p.options().withDimensions(dimensions));
    }

    /** The same work on a virtual thread of its own; the engine's kernels run on its own team of threads either way. */
    @Override
    public CompletableFuture<EmbeddingResponse> doEmbedAsync(EmbeddingRequest request) {
        CompletableFuture<EmbeddingResponse> result = new CompletableFuture<>();
        Thread.ofVirtual().name("vectorbert-langchain4j-embed").start(() -> {
            try {
                result.complete(doEmbed(request));
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    @Override
    public Set<EmbeddingParameter<?>> supportedParameters() {
        return Set.of(EmbeddingRequestParameters.DIMENSIONS, EmbeddingRequestParameters.INPUT_TYPE);
    }

    @Override
    public int dimension() {
        return embeddings.dimension();
    }

    @Override
    public String modelName() {
        return modelName;
    }

    /**
     * What {@link Embeddings#load(String, EmbeddingOptions)} takes, by name; an option not set is what the
     * model declares (a sentence-transformers directory its pooling, normalisation, maximum length and
     * prompts; a plain checkpoint [CLS] pooling, no normalisation, texts refused past its length).
     */
    public static final class Builder {
        private String model;
        private EmbeddingOptions options = EmbeddingOptions.defaults();
        private String queryPrompt;
        private String documentPrompt;
        private String modelName;

        private Builder() {}

        /**
         * A model directory, a jar or TensorFlow checkpoint, an ONNX export, or a Hugging Face id such as {@code
         * intfloat/e5-small-v2}.
         *
         * @param model what {@code --model} accepts
         * @return this builder
         */
        public Builder model(String model) {
            this.model = model;
            return this;
        }

        /**
         * How the weight matrices are held (F32 by default; BF16 halves their memory).
         *
         * @param precision F32 or BF16
         * @return this builder
         */
        public Builder precision(Precision precision) {
            options = options.withPrecision(precision);
            return this;
        }

        /**
         * How token vectors become one vector; several modes are concatenated in this order.
         *
         * @param modes one mode or more
         * @return this builder
         */
        public Builder pooling(Pooling... modes) {
            options = options.withPooling(modes);
            return this;
        }

        /**
         * Whether vectors are scaled to unit length (by default as the model declares).
         *
         * @param normalize whether to normalise
         * @return this builder
         */
        public Builder normalize(boolean normalize) {
            options = options.withNormalize(normalize);
            return this;
        }

        /**
         * Whether texts longer than the model takes are cut (else refused).
         *
         * @param truncate whether to cut
         * @return this builder
         */
        public Builder truncate(boolean truncate) {
            options = options.withTruncate(truncate);
            return this;
        }

        /**
         * Text put before every input that has no input type (or whose type has no prompt).
         *
         * @param prompt the text
         * @return this builder
         */
        public Builder prompt(String prompt) {
            options = options.withPrompt(prompt);
            return this;
        }

        /**
         * The model's prompt of this name (config_sentence_transformers.json) before every input that has no input type.
         *
         * @param name the prompt's name
         * @return this builder
         */
        public Builder promptName(String name) {
            options = options.withPromptName(name);
            return this;
        }

        /**
         * Keep each vector's first {@code n} components (a Matryoshka model's shorter embedding).
         *
         * @param n components kept
         * @return this builder
         */
        public Builder dimensions(int n) {
            options = options.withDimensions(n);
            return this;
        }

        /**
         * How many positions (padding included) one forward pass may hold.
         *
         * @param tokens positions per pass
         * @return this builder
         */
        public Builder batchTokens(int tokens) {
            options = options.withBatchTokens(tokens);
            return this;
        }

        /**
         * Text put before inputs of type QUERY (e5's {@code "query: "}); by default the model's prompt named "query".
         *
         * @param prompt the text
         * @return this builder
         */
        public Builder queryPrompt(String prompt) {
            this.queryPrompt = prompt;
            return this;
        }

        /**
         * Text put before inputs of type DOCUMENT (e5's {@code "passage: "}); by default the model's prompt named
         * "document", "passage" or "corpus".
         *
         * @param prompt the text
         * @return this builder
         */
        public Builder documentPrompt(String prompt) {
            this.documentPrompt = prompt;
            return this;
        }

        /**
         * What {@link #modelName()} says; by default the model directory's name.
         *
         * @param name the name
         * @return this builder
         */
        public Builder modelName(String name) {
            this.modelName = name;
            return this;
        }

        /**
         * Loads the model (converting a jar or checkpoint once into vectorbert's cache).
         *
         * @return the embedding model
         */
        public VectorbertEmbeddingModel build() {
            if (model == null || model.isBlank()) {
                throw new VectorbertLangchain4jException("no model was given: builder().model(\"a directory, a jar or a Hugging Face id\")");
            }
            return new VectorbertEmbeddingModel(Embeddings.load(model, options), queryPrompt, documentPrompt,
                    modelName != null ? modelName : model);
        }
    }
}
