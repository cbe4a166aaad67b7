package org.vectorbert.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/** Request bodies read as JSON trees, each field checked with a message that names it (answered 422). */
final class Json {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** The body as a JSON object. */
    static JsonNode body(byte[] bytes) {
        JsonNode node;
        try {
            node = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw ApiError.validation("the request body is not valid JSON: " + e.getOriginalMessage());
        } catch (java.io.IOException e) {
            throw ApiError.validation("the request body could not be read: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw ApiError.validation("the request body must be a JSON object");
        }
        return node;
    }

    /**
     * {@code field} as texts: one string, or a list of strings (at most {@code max}, none empty).
     * An empty list is TEI's "Empty" error (400).
     */
    static List<String> texts(JsonNode body, String field, int max) {
        List<String> texts = textsOrEmpty(body, field, max);
        for (int i = 0; i < texts.size(); i++) {
            if (texts.get(i).isEmpty()) {
                throw ApiError.validation(texts.size() == 1 ? "`" + field + "` is an empty string: there is nothing to embed"
                        : "`" + field + "[" + i + "]` is an empty string: there is nothing to embed");
            }
        }
        return texts;
    }

    /**
     * {@code field} as texts, as {@link #texts} reads them but with empty strings allowed: /tokenize answers
     * an empty text with the template's special tokens, as Hugging Face's tokenizer does.
     */
    static List<String> textsOrEmpty(JsonNode body, String field, int max) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            throw ApiError.validation("`" + field + "` is missing");
        }
        List<String> texts = new ArrayList<>();
        if (node.isTextual()) {
            texts.add(node.textValue());
        } else if (node.isArray()) {
            if (node.isEmpty()) {
                throw ApiError.empty("`" + field + "` cannot be empty");
            }
            requireBatchSize(node.size(), max);
            for (int i = 0; i < node.size(); i++) {
                if (!node.get(i).isTextual()) {
                    throw ApiError.validation("`" + field + "[" + i + "]` must be a string, was " + kind(node.get(i))
                            + (node.get(i).isArray() || node.get(i).isNumber() ? " (token ids are not accepted; send the text)" : ""));
                }
                texts.add(node.get(i).textValue());
            }
        } else {
            throw ApiError.validation("`" + field + "` must be a string or a list of strings, was " + kind(node));
        }
        return texts;
    }

    /** Refuses a request of more than {@code max} texts (or id lists), in TEI's words. */
    static void requireBatchSize(int size, int max) {
        if (size > max) {
            throw ApiError.validation("batch size " + size + " > maximum allowed batch size " + max);
        }
    }

    /** An optional boolean field: null when absent or null. */
    static Boolean bool(JsonNode body, String field) {
        return optional(body, field, JsonNode::isBoolean, JsonNode::booleanValue, "true or false");
    }

    /** An optional string field: null when absent or null. */
    static String string(JsonNode body, String field) {
        return optional(body, field, JsonNode::isTextual, JsonNode::textValue, "a string");
    }

    /** An optional whole-number field: null when absent or null. */
    static Integer integer(JsonNode body, String field) {
        return optional(body, field, n -> n.isIntegralNumber() && n.canConvertToInt(), JsonNode::intValue, "a whole number");
    }

    /** {@code field}'s value when it {@code is} what is expected, null when absent or null, else refused naming what it is. */
    private static <T> T optional(JsonNode body, String field, Predicate<JsonNode> is, Function<JsonNode, T> value, String expected) {
        JsonNode node = body.get(field);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!is.test(node)) {
            throw ApiError.validation("`" + field + "` must be " + expected + ", was " + kind(node));
        }
        return value.apply(node);
    }

    private static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "a list";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "the number " + node;
            case BOOLEAN -> node.toString();
            case NULL -> "null";
            default -> node.getNodeType().toString().toLowerCase(java.util.Locale.ROOT);
        };
    }
}
