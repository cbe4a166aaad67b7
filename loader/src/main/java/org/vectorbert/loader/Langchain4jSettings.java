package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.vectorbert.common.Json;

/**
 * How a langchain4j in-process model class embeds, as read from its jar when the jar was converted
 * ({@value #FILE} in the converted directory, beside the sentence-transformers files that carry the same pooling,
 * normalisation and length), with where each setting came from.
 *
 * @param modelClass    the langchain4j class, dotted
 * @param pooling       {@code cls} or {@code mean}
 * @param poolingFrom   where the pooling was read ("BgeSmallZhV15EmbeddingModel passes PoolingMode.CLS")
 * @param normalizeFrom why the vectors are normalised
 * @param maxTokens     texts are cut to this many tokens, special tokens included
 * @param maxTokensFrom where that length came from
 */
public record Langchain4jSettings(String modelClass, String pooling, String poolingFrom, String normalizeFrom, int maxTokens,
                                  String maxTokensFrom) {
    /** The file in a converted directory. */
    public static final String FILE = "langchain4j.json";
    /**
     * Where a jar's tokenizer file sets no truncation: DJL's HuggingFaceTokenizer, which langchain4j tokenizes with, then
     * cuts at its default model_max_length, so langchain4j's 510-token parts never see a longer text.
     */
    public static final int DJL_MAX_LENGTH = 512;

    /**
     * The settings of a directory converted from a langchain4j jar.
     *
     * @param directory a model directory
     * @return its settings, or empty when it has no {@value #FILE}
     * @throws LoaderException if the file is there but wrong
     */
    public static Optional<Langchain4jSettings> read(Path directory) {
        Path file = directory.resolve(FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        JsonNode j = Json.read(file, LoaderException::new);
        String pooling = j.path("pooling").asText("");
        if (!pooling.equals("cls") && !pooling.equals("mean")) {
            throw new LoaderException(file + ": pooling must be \"cls\" or \"mean\", was " + j.path("pooling"));
        }
        return Optional.of(new Langchain4jSettings(j.path("model_class").asText(""), pooling, j.path("pooling_from").asText(""),
                j.path("normalize_from").asText(""), j.path("max_tokens").asInt(0), j.path("max_tokens_from").asText("")));
    }

    /** {@return the bytes of {@value #FILE} holding these settings} */
    public byte[] toJson() {
        ObjectNode o = Json.object();
        o.put("model_class", modelClass).put("pooling", pooling).put("pooling_from", poolingFrom).put("normalize", true)
                .put("normalize_from", normalizeFrom).put("max_tokens", maxTokens).put("max_tokens_from", maxTokensFrom);
        try {
            return (Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
