package org.vectorbert.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.vectorbert.common.Json;

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

    /**
     * An empty object to build a request in. Its nodes need no mapper: a command that only talks to a server
     * ({@link ServeClient}) writes and reads its few small documents through {@link Json}'s parser and generator, and
     * never loads the mapper's classes (374 of the 534 classes that `embed --server` loaded beyond its start-up cache).
     */
    static ObjectNode object() {
        return Json.object();
    }
}
