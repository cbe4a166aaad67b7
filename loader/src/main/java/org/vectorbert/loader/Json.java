package org.vectorbert.loader;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Strict JSON reading with one-line messages: duplicate keys refused, nesting bounded. */
final class Json {
    static final ObjectMapper MAPPER;

    static {
        JsonMapper mapper = JsonMapper.builder()
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
                .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                .build();
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build());
        MAPPER = mapper;
    }

    private Json() {}

    static JsonNode read(Path file) {
        try {
            return parse(Files.readAllBytes(file), file.toString());
        } catch (NoSuchFileException e) {
            throw new LoaderException("file not found: " + file);
        } catch (IOException e) {
            throw new LoaderException("cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Parses one JSON document; {@code source} names it in messages. */
    static JsonNode parse(byte[] bytes, String source) {
        try {
            JsonNode node = MAPPER.readTree(bytes);
            if (node == null || node.isMissingNode()) {
                throw new LoaderException(source + " is empty");
            }
            return node;
        } catch (JacksonException e) {
            JsonLocation at = e.getLocation();
            String where = at == null || at.getLineNr() < 0 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String what = e.getOriginalMessage().lines().findFirst().orElse("malformed JSON");
            throw new LoaderException("cannot parse " + source + where + ": " + what);
        } catch (IOException e) {
            throw new LoaderException("cannot read " + source + ": " + e.getMessage());
        }
    }
}
