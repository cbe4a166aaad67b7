package org.vectorbert.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.Embeddings.Result;
import org.vectorbert.engine.EngineException;
import org.vectorbert.engine.FillMask;
import org.vectorbert.engine.FillMaskOptions;
import org.vectorbert.engine.QuestionAnswerer;
import org.vectorbert.engine.M3Embeddings;
import org.vectorbert.engine.SparseEmbeddings;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.engine.TokenClassifier;
import org.vectorbert.engine.TruncationSide;
import org.vectorbert.engine.ZeroShotClassifier;
import org.vectorbert.explorer.AttentionPage;
import org.vectorbert.explorer.AttentionRun;
import org.vectorbert.explorer.Selection;
import org.vectorbert.explorer.View;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.TokenizerException;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.EncodeOptions;

/**
 * What each model route does with its JSON body: TEI's /embed, /embed_all, /tokenize, /decode and
 * /info, OpenAI's /v1/embeddings and /v1/models, and /fill-mask in the shape of Hugging Face's inference API.
 * Each returns what is written back as JSON, or throws an {@link ApiError}.
 */
final class Routes {
    private final Models models;
    private final ServerOptions options;
    private final Embedder embedder;
    private final Batcher batcher;
    /** When the model began to be served, in seconds since the epoch: OpenAI's {@code created} of /v1/models. */
    private final long servingSince = java.time.Instant.now().getEpochSecond();

    Routes(Models models, ServerOptions options, Embedder embedder, Batcher batcher) {
        this.models = models;
        this.options = options;
        this.embedder = embedder;
        this.batcher = batcher;
    }

    /** TEI's POST /embed: {@code [[f32]]}, one pooled vector per input, normalised unless asked not to. */
    Object embed(JsonNode body, Client client) {
        List<String> texts = Json.texts(body, "inputs", options.maxClientBatchSize());
        Boolean normalize = Json.bool(body, "normalize");
        Embeddings pipeline = embedder.variant(Json.bool(body, "truncate"), normalize == null || normalize, Json.string(body, "prompt_name"),
                Json.integer(body, "dimensions"));
        Embedder.Embedded done = embedder.embed(pipeline, texts, side(body), false, client);
        return done.results().stream().map(Result::pooled).toList();
    }

    /** TEI's POST /embed_all: {@code [[[f32]]]}, every token's vector (special tokens included) per input. */
    Object embedAll(JsonNode body, Client client) {
        List<String> texts = Json.texts(body, "inputs", options.maxClientBatchSize());
        Embeddings pipeline = embedder.variant(Json.bool(body, "truncate"), false, Json.string(body, "prompt_name"));
        Embedder.Embedded done = embedder.embed(pipeline, texts, side(body), true, client);
        int hidden = models.embeddings().model().config().hiddenSize();
        List<List<float[]>> out = new ArrayList<>();
        for (Result r : done.results()) {
            List<float[]> tokens = new ArrayList<>();
            for (int t = 0; t < r.ids().length; t++) {
                tokens.add(java.util.Arrays.copyOfRange(r.tokenVectors(), t * hidden, (t + 1) * hidden));
            }
            out.add(tokens);
        }
        return out;
    }

    /**
     * TEI's POST /embed_sparse: {@code [[{index, value}]]}, each input's SPLADE vector over the model's MLM head, or a
     * bge-m3 model's lexical weights, nonzero entries only, in increasing index order.
     */
    Object embedSparse(JsonNode body) {
        if (models.m3().isPresent()) {
            List<M3Embeddings.Output> outputs = m3Outputs(body);
            List<List<Map<String, Object>>> out = new ArrayList<>();
            for (M3Embeddings.Output o : outputs) {
                List<Map<String, Object>> entries = new ArrayList<>();
                o.lexicalWeights().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("index", e.getKey());
                    m.put("value", e.getValue());
                    entries.add(m);
                });
                out.add(entries);
            }
            return out;
        }
        SparseEmbeddings sparse = models.sparse().orElseThrow(() -> new ApiError(424, "Backend",
                "Model is not an embedding model with SPLADE pooling (it has no masked-language-model head)"));
        List<String> texts = Json.texts(body, "inputs", options.maxClientBatchSize());
        Boolean truncate = Json.bool(body, "truncate");
        String promptName = Json.string(body, "prompt_name");
        String prompt = promptName == null ? "" : embedder.variant(truncate, false, promptName).options().prompt();
        List<String> prompted = texts.stream().map(t -> prompt + t).toList();
        TruncationSide side = side(body);
        boolean cut = truncate == null ? options.autoTruncate() : truncate;
        List<SparseEmbeddings.SparseVector> vectors = Embedder.await(batcher.call(() -> sparse.embed(prompted, cut, side)));
        List<List<Map<String, Object>>> out = new ArrayList<>();
        for (SparseEmbeddings.SparseVector v : vectors) {
            List<Map<String, Object>> entries = new ArrayList<>(v.size());
            for (int k = 0; k < v.size(); k++) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("index", v.indices()[k]);
                m.put("value", v.values()[k]);
                entries.add(m);
            }
            out.add(entries);
        }
        return out;
    }

    /**
     * POST /embed_multi_vector, in TEI's style (TEI has none): {@code [[[f32]]]} as /embed_all answers, each input's ColBERT
     * vectors (bge-m3's colbert_linear on every token but the first, normalised).
     */
    Object embedMultiVector(JsonNode body) {
        return m3Outputs(body).stream().map(o -> List.of(o.multiVector())).toList();
    }

    /** bge-m3's outputs of {@code inputs}, on the inference thread; 424 for a model without bge-m3's head files. */
    private List<M3Embeddings.Output> m3Outputs(JsonNode body) {
        M3Embeddings m3 = models.m3().orElseThrow(() -> new ApiError(424, "Backend",
                "Model has no bge-m3 heads (sparse_linear.pt and colbert_linear.pt beside its weights)"));
        List<String> texts = Json.texts(body, "inputs", options.maxClientBatchSize());
        return Embedder.await(batcher.call(() -> m3.encode(texts)));
    }

    /**
     * TEI's POST /similarity: {@code inputs} {@code {source_sentence, sentences}}, {@code parameters} {@code truncate},
     * {@code truncation_direction} and {@code prompt_name}; the cosine similarity of the source to each sentence,
     * embedded unnormalised in one request (the batch size counts the source too).
     */
    Object similarity(JsonNode body, Client client) {
        JsonNode inputs = body.get("inputs");
        if (inputs == null || !inputs.isObject()) {
            throw ApiError.validation("`inputs` must be an object with `source_sentence` and `sentences`");
        }
        String source = Json.string(inputs, "source_sentence");
        if (source == null) {
            throw ApiError.validation("`inputs.source_sentence` is missing");
        }
        List<String> sentences = Json.texts(inputs, "sentences", options.maxClientBatchSize() - 1);
        List<String> all = new ArrayList<>(sentences.size() + 1);
        all.add(source);
        all.addAll(sentences);
        JsonNode parameters = parameters(body);
        Embeddings pipeline = embedder.variant(Json.bool(parameters, "truncate"), false, Json.string(parameters, "prompt_name"));
        List<Result> results = embedder.embed(pipeline, all, side(parameters), false, client).results();
        float[] a = results.getFirst().pooled();
        List<Float> out = new ArrayList<>(sentences.size());
        for (int i = 1; i < results.size(); i++) {
            float[] b = results.get(i).pooled();
            double dot = 0;
            double na = 0;
            double nb = 0;
            for (int d = 0; d < a.length; d++) {
                dot += (double) a[d] * b[d];
                na += (double) a[d] * a[d];
                nb += (double) b[d] * b[d];
            }
            out.add((float) (dot / Math.max(Math.sqrt(na) * Math.sqrt(nb), 1e-12)));
        }
        return out;
    }

    /**
     * OpenAI's POST /v1/embeddings: unit-length vectors as floats or base64 (little-endian float32),
     * with the tokens counted in {@code usage}. Up to OpenAI's 2,048 inputs a request, each cut to the model's
     * length unless the server was started with {@code v1Truncate} off (an OpenAI client has no way to ask);
     * {@code model} is not checked (the server serves one), and the answer names the served model.
     */
    Object openAiEmbeddings(JsonNode body, Client client) {
        List<String> texts = Json.texts(body, "input", ServerOptions.OPENAI_MAX_INPUTS);
        String format = Json.string(body, "encoding_format");
        if (format != null && !format.equals("float") && !format.equals("base64")) {
            throw ApiError.validation("`encoding_format` must be \"float\" or \"base64\", was \"" + format + "\"");
        }
        Json.string(body, "model");
        Json.string(body, "user");
        Embeddings pipeline = embedder.variant(options.v1Truncate(), true, null, Json.integer(body, "dimensions"));
        Embedder.Embedded done = embedder.embed(pipeline, texts, TruncationSide.RIGHT, false, client,
                "shorten it: this server was started not to cut texts sent to /v1/embeddings (serve --v1-truncate false)");
        ArrayNode data = Json.MAPPER.createArrayNode();
        for (int i = 0; i < done.results().size(); i++) {
            float[] v = done.results().get(i).pooled();
            ObjectNode item = data.addObject().put("object", "embedding").put("index", i);
            if ("base64".equals(format)) {
                ByteBuffer bytes = ByteBuffer.allocate(v.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
                bytes.asFloatBuffer().put(v);
                item.put("embedding", Base64.getEncoder().encodeToString(bytes.array()));
            } else {
                ArrayNode values = item.putArray("embedding");
                for (float x : v) {
                    values.add(x);
                }
            }
        }
        ObjectNode out = Json.object().put("object", "list");
        out.set("data", data);
        out.put("model", models.id());
        out.putObject("usage").put("prompt_tokens", done.tokens()).put("total_tokens", done.tokens());
        return out;
    }

    /** OpenAI's GET /v1/models: the one model served, in OpenAI's list shape. */
    Object openAiModels() {
        ObjectNode out = Json.object().put("object", "list");
        out.putArray("data").add(openAiModel());
        return out;
    }

    /** OpenAI's GET /v1/models/{id}: the served model when {@code id} names it, else 404 as OpenAI answers a model it has not. */
    Object openAiModel(String id) {
        if (!models.id().equals(id)) {
            throw new ApiError(404, "model_not_found", "The model '" + id + "' does not exist: this server serves '" + models.id()
                    + "' (GET /v1/models)");
        }
        return openAiModel();
    }

    /** The served model as OpenAI describes a model; created is when this server started serving it. */
    private ObjectNode openAiModel() {
        return Json.object().put("id", models.id()).put("object", "model").put("created", servingSince).put("owned_by", "vectorbert");
    }

    private static TruncationSide side(JsonNode body) {
        String side = Json.string(body, "truncation_direction");
        if (side == null || side.equalsIgnoreCase("right")) {
            return TruncationSide.RIGHT;
        }
        if (side.equalsIgnoreCase("left")) {
            return TruncationSide.LEFT;
        }
        throw ApiError.validation("`truncation_direction` must be \"Left\" or \"Right\", was \"" + side + "\"");
    }

    /** TEI's POST /tokenize: per input, its tokens as {@code {id, text, special, start, stop}} (offsets in characters). */
    Object tokenize(JsonNode body) {
        List<String> texts = Json.textsOrEmpty(body, "inputs", options.maxClientBatchSize());
        Boolean special = Json.bool(body, "add_special_tokens");
        String promptName = Json.string(body, "prompt_name");
        Embeddings pipeline = promptName == null ? models.embeddings() : embedder.variant(null, false, promptName);
        Tokenizer tokenizer = models.embeddings().tokenizer();
        EncodeOptions encode = EncodeOptions.defaults().withAddSpecialTokens(special == null || special);
        List<List<Map<String, Object>>> out = new ArrayList<>();
        for (String text : texts) {
            String input = pipeline.modelInput(text);   // the prompt, and lower-cased when the model says do_lower_case
            Encoding e = tokenizer.encode(input, encode);
            int[][] offsets = e.codePointOffsets(input, null);
            List<Map<String, Object>> tokens = new ArrayList<>();
            for (int t = 0; t < e.length(); t++) {
                boolean isSpecial = e.sequenceIds()[t] < 0;
                Map<String, Object> token = new LinkedHashMap<>();
                token.put("id", e.ids()[t]);
                token.put("text", isSpecial ? e.tokens().get(t) : input.substring(e.starts()[t], e.ends()[t]));
                token.put("special", isSpecial);
                token.put("start", isSpecial ? null : offsets[t][0]);
                token.put("stop", isSpecial ? null : offsets[t][1]);
                tokens.add(token);
            }
            out.add(tokens);
        }
        return out;
    }

    /** TEI's POST /decode: ids (one list, or a list of lists) back to text, special tokens skipped unless asked. */
    Object decode(JsonNode body) {
        JsonNode ids = body.get("ids");
        if (ids == null || !ids.isArray()) {
            throw ApiError.validation("`ids` must be a list of token ids, or a list of such lists");
        }
        Boolean skip = Json.bool(body, "skip_special_tokens");
        boolean nested = !ids.isEmpty() && ids.get(0).isArray();
        List<JsonNode> sequences = new ArrayList<>();
        if (nested) {
            ids.forEach(sequences::add);
        } else {
            sequences.add(ids);
        }
        Json.requireBatchSize(sequences.size(), options.maxClientBatchSize());
        Tokenizer tokenizer = models.embeddings().tokenizer();
        int vocab = tokenizer.vocabSize();
        List<String> out = new ArrayList<>();
        for (JsonNode sequence : sequences) {
            if (!sequence.isArray()) {
                throw ApiError.validation("`ids` mixes lists and numbers");
            }
            int[] values = new int[sequence.size()];
            for (int i = 0; i < values.length; i++) {
                JsonNode id = sequence.get(i);
                if (!id.canConvertToInt() || !id.isIntegralNumber() || id.intValue() < 0 || id.intValue() >= vocab) {
                    throw ApiError.validation("`ids` holds " + id + ", not a token id (0 to " + (vocab - 1) + ")");
                }
                values[i] = id.intValue();
            }
            out.add(tokenizer.decode(values, skip == null || skip));
        }
        return out;
    }

    /** TEI's GET /info, with this server's limits and the model's vector size and pooling. */
    Object info() {
        Embeddings e = models.embeddings();
        ObjectNode out = Json.object();
        out.put("model_id", models.id());
        out.putNull("model_sha");
        out.put("model_dtype", e.model().precision() == org.vectorbert.engine.Precision.F32 ? "float32" : "bfloat16");
        if (models.classifier().isPresent()) {
            // TEI's: a classifier with one label is a reranker.
            var labels = models.classifier().get().labels();
            ObjectNode type = out.putObject("model_type").putObject(labels.count() == 1 ? "reranker" : "classifier");
            ObjectNode id2label = type.putObject("id2label");
            ObjectNode label2id = type.putObject("label2id");
            for (int i = 0; i < labels.count(); i++) {
                id2label.put(String.valueOf(i), labels.names().get(i));
                label2id.put(labels.names().get(i), i);
            }
            if (labels.problemType() != null) {
                // Not TEI's: how the pipeline scores these labels by default (a CLI handing texts over scores as it would here).
                type.put("problem_type", labels.problemType());
            }
        } else {
            ObjectNode embedding = out.putObject("model_type").putObject("embedding").put("pooling",
                    String.join("+", e.options().pooling().stream().map(p -> p.name().toLowerCase(Locale.ROOT)).toList()));
            // Not TEI's: the model's own normalisation and truncation (sentence-transformers' Normalize module and
            // max_seq_length), which /embed's defaults (TEI's: normalised, cut per --auto-truncate) do not follow, so that
            // a CLI handing its texts over asks for what it would do itself.
            embedding.put("normalize", e.options().normalize()).put("truncate", e.options().truncate());
        }
        out.put("dimension", e.dimension());
        out.put("fill_mask", models.fillMask().isPresent());
        out.put("max_concurrent_requests", options.maxConcurrentRequests());
        out.put("max_input_length", e.maxTokens());
        out.put("max_batch_tokens", options.maxBatchTokens());
        out.putNull("max_batch_requests");
        out.put("max_client_batch_size", options.maxClientBatchSize());
        out.put("payload_limit", options.payloadLimit());      // not TEI's: so a client can size its requests
        out.put("auto_truncate", options.autoTruncate());
        out.put("v1_truncate", options.v1Truncate());         // not TEI's: whether /v1/embeddings cuts long texts
        out.put("v1_max_inputs", ServerOptions.OPENAI_MAX_INPUTS);   // not TEI's: /v1/embeddings' batch limit
        out.put("tokenization_workers", Runtime.getRuntime().availableProcessors());
        out.put("version", EmbeddingServer.VERSION);
        out.putNull("sha");
        out.putNull("docker_label");
        return out;
    }

    /**
     * TEI's POST /rerank: the query against each text as a pair, scored by a one-label classifier
     * (sigmoid, or the logit with {@code raw_scores}), answered as {@code [{index, score, text?}]}, best first.
     */
    Object rerank(JsonNode body, Client client) {
        if (models.classifier().isEmpty() && models.m3().isPresent()) {
            return m3Rerank(body);
        }
        TextClassifier classifier = models.classifier().filter(c -> c.labels().count() == 1)
                .orElseThrow(() -> new ApiError(424, "Backend", "model is not a re-ranker model"));
        String query = Json.string(body, "query");
        if (query == null) {
            throw ApiError.validation("`query` is missing");
        }
        List<String> texts = Json.texts(body, "texts", options.maxClientBatchSize());
        boolean raw = Boolean.TRUE.equals(Json.bool(body, "raw_scores"));
        boolean returnText = Boolean.TRUE.equals(Json.bool(body, "return_text"));
        boolean truncate = truncateRight(body);
        List<float[]> logits = classified(classifier, texts.stream().map(t -> query).toList(), texts, truncate, client);
        float[] scores = new float[texts.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = raw ? logits.get(i)[0] : TextClassifier.Function.SIGMOID.apply(logits.get(i), 0, 1)[0];
        }
        return ranked(texts, scores, returnText);
    }

    /**
     * /rerank on a bge-m3 model: {@code mode} (dense, sparse, colbert, sparse+dense, colbert+sparse+dense: the default) and
     * {@code weights} of dense, sparse and ColBERT for the combinations (default [1, 1, 1]), as FlagEmbedding's compute_score.
     */
    private Object m3Rerank(JsonNode body) {
        String query = Json.string(body, "query");
        if (query == null) {
            throw ApiError.validation("`query` is missing");
        }
        List<String> texts = Json.texts(body, "texts", options.maxClientBatchSize());
        String name = Json.string(body, "mode");
        M3Embeddings.Mode mode;
        try {
            mode = name == null ? M3Embeddings.Mode.ALL : M3Embeddings.Mode.of(name);
        } catch (EngineException e) {
            throw ApiError.validation("`mode`: " + e.getMessage());
        }
        float[] weights = M3Embeddings.DEFAULT_WEIGHTS;
        JsonNode w = body.get("weights");
        if (w != null && !w.isNull()) {
            if (!w.isArray() || w.size() != 3 || !w.get(0).isNumber() || !w.get(1).isNumber() || !w.get(2).isNumber()
                    || w.get(0).doubleValue() < 0 || w.get(1).doubleValue() < 0 || w.get(2).doubleValue() < 0
                    || w.get(0).doubleValue() + w.get(1).doubleValue() + w.get(2).doubleValue() <= 0) {
                throw ApiError.validation("`weights` must be three non-negative numbers, not all 0: dense, sparse, colbert; was " + w);
            }
            weights = new float[] {w.get(0).floatValue(), w.get(1).floatValue(), w.get(2).floatValue()};
        }
        M3Embeddings m3 = models.m3().orElseThrow();
        M3Embeddings.Mode chosen = mode;
        float[] given = weights;
        float[] scores = Embedder.await(batcher.call(() -> m3.rerank(query, texts, chosen, given)));
        return ranked(texts, scores, Boolean.TRUE.equals(Json.bool(body, "return_text")));
    }

    /** TEI's /rerank answer: {@code [{index, score[, text]}]}, best first. */
    private static ArrayNode ranked(List<String> texts, float[] scores, boolean returnText) {
        // TEI sorts ascending, stably, then reverses: equal scores (identical texts) come last index first.
        List<Integer> order = new ArrayList<>();
        for (int i = texts.size() - 1; i >= 0; i--) {
            order.add(i);
        }
        order.sort((a, b) -> Float.compare(scores[b], scores[a]));
        ArrayNode out = Json.MAPPER.createArrayNode();
        for (int i : order) {
            ObjectNode item = out.addObject().put("index", i).put("score", scores[i]);
            if (returnText) {
                item.put("text", texts.get(i));
            }
        }
        return out;
    }

    /**
     * TEI's POST /predict: one text, a pair {@code ["a", "b"]}, or a batch {@code [["a"], ["a", "b"], ...]};
     * every label with its score (softmax for several labels, sigmoid for one; the logit with
     * {@code raw_scores}), best first; a list of such lists for a batch.
     */
    Object predict(JsonNode body, Client client) {
        TextClassifier classifier = models.classifier()
                .orElseThrow(() -> new ApiError(424, "Backend", "Model is not a classifier model"));
        JsonNode inputs = body.get("inputs");
        if (inputs == null || inputs.isNull()) {
            throw ApiError.validation("`inputs` is missing");
        }
        List<String> firsts = new ArrayList<>();
        List<String> seconds = new ArrayList<>();
        boolean batch = inputs.isArray() && !inputs.isEmpty() && inputs.get(0).isArray();
        if (inputs.isTextual()) {
            firsts.add(inputs.textValue());
            seconds.add(null);
        } else if (inputs.isArray() && !batch) {
            addPredictInput(inputs, "inputs", firsts, seconds);
        } else if (batch) {
            Json.requireBatchSize(inputs.size(), options.maxClientBatchSize());
            for (int i = 0; i < inputs.size(); i++) {
                addPredictInput(inputs.get(i), "inputs[" + i + "]", firsts, seconds);
            }
        } else {
            throw ApiError.validation("`inputs` must be a text, a pair of texts, or a list of texts and pairs");
        }
        boolean raw = Boolean.TRUE.equals(Json.bool(body, "raw_scores"));
        boolean truncate = truncateRight(body);
        int n = classifier.labels().count();
        TextClassifier.Function function = raw ? TextClassifier.Function.NONE
                : n > 1 ? TextClassifier.Function.SOFTMAX : TextClassifier.Function.SIGMOID;
        List<List<TextClassifier.Label>> answers = new ArrayList<>();
        // Singles and pairs are encoded apart (an encoding call is all singles or all pairs), then share passes.
        List<Integer> singles = new ArrayList<>();
        List<Integer> pairs = new ArrayList<>();
        for (int i = 0; i < firsts.size(); i++) {
            (seconds.get(i) == null ? singles : pairs).add(i);
            answers.add(null);
        }
        List<Encoding> encodings = new ArrayList<>(encode(classifier, singles.stream().map(firsts::get).toList(), null, truncate));
        encodings.addAll(encode(classifier, pairs.stream().map(firsts::get).toList(), pairs.stream().map(seconds::get).toList(), truncate));
        List<float[]> logits = Embedder.await(awaitable(batcher.classify(encodings, client::connected), client));
        List<Integer> order = new ArrayList<>(singles);
        order.addAll(pairs);
        for (int k = 0; k < order.size(); k++) {
            answers.set(order.get(k), classifier.labels(logits.get(k), 0, function, n));
        }
        List<Object> out = new ArrayList<>();
        for (List<TextClassifier.Label> labels : answers) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (TextClassifier.Label l : labels) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("score", l.score());
                m.put("label", l.label());
                list.add(m);
            }
            out.add(list);
        }
        return batch ? out : out.getFirst();
    }

    /**
     * POST /token-classification, in the Hugging Face Inference API's task JSON: {@code inputs} a text or a list
     * of texts, {@code parameters} {@code aggregation_strategy}, {@code ignore_labels} and {@code stride}; the
     * pipeline's entities with character offsets, a list of such lists for a list of texts.
     */
    Object tokenClassification(JsonNode body) {
        TokenClassifier tagger = models.tagger()
                .orElseThrow(() -> new ApiError(424, "Backend", "Model is not a token classification model"));
        JsonNode inputs = body.get("inputs");
        boolean batch = inputs != null && inputs.isArray();
        List<String> texts = batch ? Json.texts(body, "inputs", options.maxClientBatchSize()) : List.of(requiredText(body, "inputs"));
        JsonNode parameters = parameters(body);
        String strategyName = Json.string(parameters, "aggregation_strategy");
        TokenClassifier.Aggregation strategy;
        try {
            strategy = strategyName == null ? TokenClassifier.Aggregation.NONE : TokenClassifier.Aggregation.parse(strategyName);
        } catch (EngineException e) {
            throw ApiError.validation("`parameters." + e.getMessage().replaceFirst(" must", "` must"));
        }
        Set<String> ignore = ignoreLabels(parameters.get("ignore_labels"));
        Integer stride = Json.integer(parameters, "stride");
        if (stride != null && stride < 0) {
            throw ApiError.validation("`parameters.stride` must not be negative, was " + stride);
        }
        int windowStride = stride == null ? -1 : stride;
        List<TokenClassifier.Result> results = Embedder.await(batcher.call(() -> tagger.tag(texts, strategy, ignore, windowStride)));
        List<Object> out = new ArrayList<>();
        for (TokenClassifier.Result r : results) {
            out.add(r.entities().stream().map(e -> e.pipelineFields(strategy)).toList());
        }
        return batch ? out : out.getFirst();
    }

    /**
     * POST /zero-shot-classification, in the Hugging Face Inference API's task JSON: {@code inputs} a text or a list of
     * texts, {@code parameters} {@code candidate_labels} (a list, or one string of comma-separated labels),
     * {@code multi_label} and {@code hypothesis_template}; the pipeline's {@code {sequence, labels, scores}}, a list of
     * them for a list of texts. A model whose classifier has no entailment label answers 424.
     */
    Object zeroShotClassification(JsonNode body) {
        TextClassifier classifier = models.classifier()
                .orElseThrow(() -> new ApiError(424, "Backend", "Model is not a classifier model"));
        ZeroShotClassifier zeroShot;
        try {
            zeroShot = ZeroShotClassifier.of(classifier);
        } catch (EngineException e) {
            throw new ApiError(424, "Backend", e.getMessage());
        }
        JsonNode inputs = body.get("inputs");
        boolean batch = inputs != null && inputs.isArray();
        List<String> texts = batch ? Json.texts(body, "inputs", options.maxClientBatchSize()) : List.of(requiredText(body, "inputs"));
        JsonNode parameters = parameters(body);
        JsonNode given = parameters.get("candidate_labels");
        List<String> labels = new ArrayList<>();
        if (given != null && given.isTextual()) {
            labels.addAll(ZeroShotClassifier.parseLabels(given.textValue()));
        } else if (given != null && given.isArray()) {
            Json.requireBatchSize(given.size(), options.maxClientBatchSize());
            for (int i = 0; i < given.size(); i++) {
                if (!given.get(i).isTextual()) {
                    throw ApiError.validation("`parameters.candidate_labels[" + i + "]` must be a string");
                }
                labels.add(given.get(i).textValue());
            }
        } else if (given != null && !given.isNull()) {
            throw ApiError.validation("`parameters.candidate_labels` must be a list of strings or one string of comma-separated labels");
        }
        if (labels.isEmpty()) {
            throw ApiError.validation("`parameters.candidate_labels` names no label");
        }
        String template = Json.string(parameters, "hypothesis_template");
        String hypothesisTemplate = template == null ? ZeroShotClassifier.DEFAULT_TEMPLATE : template;
        try {
            ZeroShotClassifier.hypothesis(hypothesisTemplate, labels.getFirst());
        } catch (EngineException e) {
            throw ApiError.validation("`parameters.hypothesis_template`: " + e.getMessage());
        }
        boolean multiLabel = Boolean.TRUE.equals(Json.bool(parameters, "multi_label"));
        List<ZeroShotClassifier.Result> results = Embedder.await(batcher.call(
                () -> zeroShot.classify(texts, labels, hypothesisTemplate, multiLabel)));
        List<Object> out = results.stream().<Object>map(ZeroShotClassifier.Result::pipelineFields).toList();
        return batch ? out : out.getFirst();
    }

    /**
     * POST /question-answering, in the Hugging Face Inference API's task JSON: {@code inputs}
     * {@code {"question", "context"}} or a list of them, {@code parameters} {@code top_k}, {@code max_answer_len},
     * {@code doc_stride}, {@code max_seq_len}, {@code handle_impossible_answer}, {@code align_to_words}; the
     * pipeline's {@code {score, start, end, answer}}, a list when more than one answer is left (a list of those
     * for a list of questions).
     */
    Object questionAnswering(JsonNode body) {
        QuestionAnswerer answerer = models.answerer()
                .orElseThrow(() -> new ApiError(424, "Backend", "Model is not a question answering model"));
        JsonNode inputs = body.get("inputs");
        if (inputs == null || inputs.isNull()) {
            throw ApiError.validation("`inputs` is missing");
        }
        boolean batch = inputs.isArray();
        List<QuestionAnswerer.Question> questions = new ArrayList<>();
        if (batch) {
            Json.requireBatchSize(inputs.size(), options.maxClientBatchSize());
            if (inputs.isEmpty()) {
                throw ApiError.empty("`inputs` cannot be empty");   // TEI's Empty, as every other route answers an empty list
            }
            for (int i = 0; i < inputs.size(); i++) {
                questions.add(question(inputs.get(i), "inputs[" + i + "]"));
            }
        } else {
            questions.add(question(inputs, "inputs"));
        }
        JsonNode parameters = parameters(body);
        QuestionAnswerer.Options asked = QuestionAnswerer.Options.defaults();
        try {
            Integer topK = Json.integer(parameters, "top_k");
            Integer maxAnswerLength = Json.integer(parameters, "max_answer_len");
            Integer docStride = Json.integer(parameters, "doc_stride");
            Integer maxSeqLength = Json.integer(parameters, "max_seq_len");
            Boolean impossible = Json.bool(parameters, "handle_impossible_answer");
            Boolean align = Json.bool(parameters, "align_to_words");
            asked = asked.withTopK(topK == null ? 1 : topK)
                    .withMaxAnswerLength(maxAnswerLength == null ? 15 : maxAnswerLength)
                    .withDocStride(docStride == null ? -1 : requireNonNegative(docStride, "doc_stride"))
                    .withMaxSequenceLength(maxSeqLength == null ? -1 : maxSeqLength)
                    .withHandleImpossibleAnswer(Boolean.TRUE.equals(impossible))
                    .withAlignToWords(align == null || align);
        } catch (EngineException e) {
            throw ApiError.validation("`parameters`: " + e.getMessage());
        }
        QuestionAnswerer.Options answerOptions = asked;
        List<QuestionAnswerer.Result> results = Embedder.await(batcher.call(() -> answerer.answer(questions, answerOptions)));
        List<Object> out = new ArrayList<>();
        for (QuestionAnswerer.Result r : results) {
            List<Map<String, Object>> answers = r.answers().stream().map(QuestionAnswerer.Answer::pipelineFields).toList();
            out.add(answers.size() == 1 ? answers.getFirst() : answers);
        }
        return batch ? out : out.getFirst();
    }

    /** The labels to leave out: a list of strings (empty keeps all), ["O"] when absent. */
    private static Set<String> ignoreLabels(JsonNode node) {
        if (node == null || node.isNull()) {
            return Set.of("O");
        }
        if (!node.isArray()) {
            throw ApiError.validation("`parameters.ignore_labels` must be a list of strings");
        }
        Set<String> labels = new LinkedHashSet<>();
        for (JsonNode label : node) {
            if (!label.isTextual()) {
                throw ApiError.validation("`parameters.ignore_labels` must be a list of strings");
            }
            labels.add(label.textValue());
        }
        return labels;
    }

    private static int requireNonNegative(int value, String field) {
        if (value < 0) {
            throw ApiError.validation("`parameters." + field + "` must not be negative, was " + value);
        }
        return value;
    }

    /** One QA input: {@code {"question": ..., "context": ...}}. */
    private static QuestionAnswerer.Question question(JsonNode input, String where) {
        if (input == null || !input.isObject() || !input.path("question").isTextual() || !input.path("context").isTextual()) {
            throw ApiError.validation("`" + where + "` must be an object with the strings `question` and `context`");
        }
        String question = input.get("question").textValue();
        String context = input.get("context").textValue();
        if (question.isEmpty() || context.isEmpty()) {
            throw ApiError.validation("`" + where + "." + (question.isEmpty() ? "question" : "context") + "` is empty");
        }
        return new QuestionAnswerer.Question(question, context);
    }

    /** The request's {@code parameters} object, or an empty one. */
    private static JsonNode parameters(JsonNode body) {
        JsonNode parameters = body.get("parameters");
        if (parameters == null || parameters.isNull()) {
            return Json.object();
        }
        if (!parameters.isObject()) {
            throw ApiError.validation("`parameters` must be an object");
        }
        return parameters;
    }

    private static String requiredText(JsonNode body, String field) {
        String text = Json.string(body, field);
        if (text == null) {
            throw ApiError.validation("`" + field + "` is missing");
        }
        return text;
    }

    /**
     * The classifier's logits for texts or pairs, encoded here (each refused naming it when too long) and run in
     * the batcher's passes beside other requests' inputs.
     */
    private List<float[]> classified(TextClassifier classifier, List<String> texts, List<String> pairs, boolean truncate,
                                     Client client) {
        return Embedder.await(awaitable(batcher.classify(encode(classifier, texts, pairs, truncate), client::connected), client));
    }

    private static List<Encoding> encode(TextClassifier classifier, List<String> texts, List<String> pairs, boolean truncate) {
        if (texts.isEmpty()) {
            return List.of();
        }
        try {
            return classifier.encode(texts, pairs, truncate);
        } catch (EngineException e) {
            throw ApiError.validation(e.getMessage());
        } catch (TokenizerException e) {
            throw new ApiError(422, "Tokenizer", e.getMessage());
        }
    }

    /** {@code done}, cancelled (the request dropped from the batcher) when the client's connection fails. */
    private static <T> java.util.concurrent.CompletableFuture<T> awaitable(java.util.concurrent.CompletableFuture<T> done, Client client) {
        client.onFailure(() -> done.cancel(false));
        return done;
    }

    /** One /predict input: {@code ["a"]} or {@code ["a", "b"]}. */
    private static void addPredictInput(JsonNode input, String where, List<String> firsts, List<String> seconds) {
        if (!input.isArray() || input.isEmpty() || input.size() > 2 || !input.get(0).isTextual()
                || input.size() == 2 && !input.get(1).isTextual()) {
            throw ApiError.validation("`" + where + "` must be a text or a pair of texts, as [\"a\"] or [\"a\", \"b\"]");
        }
        if (input.get(0).textValue().isEmpty()) {
            throw ApiError.validation("`" + where + "` is an empty string: there is nothing to classify");
        }
        firsts.add(input.get(0).textValue());
        seconds.add(input.size() == 2 ? input.get(1).textValue() : null);
    }

    /** TEI's {@code truncate} (the server's --auto-truncate when absent); pairs are cut from the right only. */
    private boolean truncateRight(JsonNode body) {
        if (side(body) == TruncationSide.LEFT) {
            throw ApiError.validation("`truncation_direction` \"Left\" is not supported for pairs of texts; pairs are cut from the right");
        }
        Boolean truncate = Json.bool(body, "truncate");
        return truncate == null ? options.autoTruncate() : truncate;
    }

    /**
     * POST /fill-mask, as Hugging Face's inference API: for one text with one mask, its candidates;
     * with several masks, a list of candidates per mask; for a list of texts, one such answer each.
     */
    Object fillMask(JsonNode body) {
        // 424 as TEI answers a task the model lacks (/rerank, /predict), and as the other task routes here do.
        FillMask base = models.fillMask().orElseThrow(() -> new ApiError(424, "Backend",
                "Model has no masked-language-model head (its checkpoint holds none of the head's weights), so it cannot fill masks"));
        JsonNode inputs = body.get("inputs");
        List<String> texts = Json.texts(body, "inputs", options.maxClientBatchSize());
        FillMaskOptions asked = base.options();
        JsonNode parameters = body.get("parameters");
        if (parameters != null && !parameters.isNull()) {
            if (!parameters.isObject()) {
                throw ApiError.validation("`parameters` must be an object");
            }
            Integer topK = Json.integer(parameters, "top_k");
            if (topK != null) {
                if (topK <= 0) {
                    throw ApiError.validation("`parameters.top_k` must be positive, was " + topK);
                }
                asked = asked.withTopK(Math.min(topK, base.model().config().vocabSize()));
            }
            JsonNode targets = parameters.get("targets");
            if (targets != null && !targets.isNull()) {
                asked = asked.withTargets(targets.isTextual() ? List.of(targets.textValue()) : Json.texts(parameters, "targets", Integer.MAX_VALUE));
            }
        }
        FillMask pipeline;
        try {
            pipeline = base.with(asked);
        } catch (EngineException e) {
            throw ApiError.validation(e.getMessage());
        }
        List<FillMask.Prediction> predictions = Embedder.await(batcher.call(() -> pipeline.predict(texts)));
        List<Object> answers = new ArrayList<>();
        for (FillMask.Prediction p : predictions) {
            List<List<Map<String, Object>>> masks = new ArrayList<>();
            for (List<FillMask.Candidate> candidates : p.masks()) {
                List<Map<String, Object>> list = new ArrayList<>();
                for (FillMask.Candidate c : candidates) {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("sequence", c.sequence());
                    m.put("score", c.score());
                    m.put("token", c.token());
                    m.put("token_str", c.tokenStr());
                    list.add(m);
                }
                masks.add(list);
            }
            answers.add(masks.size() == 1 ? masks.getFirst() : masks);
        }
        return inputs.isTextual() ? answers.getFirst() : answers;
    }

    /**
     * GET /attention: the attention explorer's page (bertviz's head, model and neuron views) for the
     * query's {@code text} and optional {@code pair}, {@code layers}, {@code heads} and {@code view},
     * with a form for the next text. Without a text, the page for bertviz's own example.
     */
    byte[] attention(JsonNode query) {
        String text = Json.string(query, "text");
        String pair = Json.string(query, "pair");
        if (text == null) {
            text = "time flies like an arrow";
            pair = "fruit flies like a banana";
        }
        if (pair != null && pair.isBlank()) {
            pair = null;                                   // the form's empty pair field
        }
        String layers = Json.string(query, "layers");
        String heads = Json.string(query, "heads");
        Embeddings pipeline = models.embeddings();
        Selection selection;
        View view;
        try {
            selection = Selection.parse(layers, heads, pipeline.model().config().numHiddenLayers(),
                    pipeline.model().config().numAttentionHeads());
            String asked = Json.string(query, "view");
            view = View.parse(asked == null ? "all" : asked);
        } catch (EngineException e) {
            throw ApiError.validation(e.getMessage());
        }
        String a = text;
        String b = pair;
        AttentionRun run = Embedder.await(batcher.call(() -> AttentionRun.capture(pipeline, models.id(), a, b)));
        return AttentionPage.html(run, selection, view, new AttentionPage.Form("/attention", a, b, layers, heads))
                .getBytes(StandardCharsets.UTF_8);
    }
}
