package org.vectorbert.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * JSON output, one object per line. The mapper is made on first use, not when picocli builds the
 * commands, so runs that print no JSON do not pay Jackson's start-up.
 */
final class JsonText {
    private JsonText() {}

    private static final class Holder {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** {@code value} as compact JSON. */
    static String of(Object value) {
        try {
            return Holder.MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    /** {@code text} read as JSON. */
    static JsonNode parse(String text) throws JsonProcessingException {
        return Holder.MAPPER.readTree(text);
    }

    static ObjectNode object() {
        return Holder.MAPPER.createObjectNode();
    }
}
