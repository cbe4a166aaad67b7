package org.vectorbert.common;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Function;

/**
 * Strict JSON reading with one-line messages: duplicate keys refused, nesting bounded. Errors come
 * as the caller's own exception type (each module has one), made from the one-line message.
 *
 * <p>Documents are read with jackson-core's streaming parser into databind's tree nodes, without an
 * ObjectMapper, whose construction is a noticeable part of a one-shot command's start.
 * The mapper is made only when something writes JSON other than a tree ({@link #text} writes a tree without it).
 */
public final class Json {
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();
    /** For {@link #parseLastKeyWins}: duplicate keys allowed, the same nesting bound. */
    private static final JsonFactory LENIENT = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(64).build())
            .build();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private Json() {}

    /** {@return an ObjectMapper for writing (config.json, safetensors headers)} Made on first use. */
    public static ObjectMapper mapper() {
        return Writer.MAPPER;
    }

    private static final class Writer {
        static final ObjectMapper MAPPER = new ObjectMapper();
    }

    /** {@return a new, empty object node} */
    public static ObjectNode object() {
        return NODES.objectNode();
    }

    /**
     * {@code node} as compact JSON, as an ObjectMapper writes it, through jackson-core's generator: for a command whose
     * only JSON is a few small trees (a request to a server), which would otherwise build a mapper for them.
     *
     * @param node the tree to write
     * @return the compact JSON text
     */
    public static String text(JsonNode node) {
        StringWriter out = new StringWriter();
        try (JsonGenerator generator = FACTORY.createGenerator(out)) {
            write(generator, node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    private static void write(JsonGenerator g, JsonNode node) throws IOException {
        switch (node.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (var field : node.properties()) {
                    g.writeFieldName(field.getKey());
                    write(g, field.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode value : node) {
                    write(g, value);
                }
                g.writeEndArray();
            }
            case STRING -> g.writeString(node.textValue());
            case BOOLEAN -> g.writeBoolean(node.booleanValue());
            case NULL -> g.writeNull();
            case NUMBER -> {
                switch (node.numberType()) {
                    case INT -> g.writeNumber(node.intValue());
                    case LONG -> g.writeNumber(node.longValue());
                    case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
                    case FLOAT -> g.writeNumber(node.floatValue());
                    case DOUBLE -> g.writeNumber(node.doubleValue());
                    case BIG_DECIMAL -> g.writeNumber(node.decimalValue());
                }
            }
            default -> throw new IllegalArgumentException("cannot write a " + node.getNodeType() + " node as JSON text");
        }
    }

    /**
     * Reads and parses one JSON document from {@code file}.
     *
     * @param file  the file to read
     * @param error makes the exception thrown, from a one-line message, when the file cannot be read or parsed
     * @return the document's root
     */
    public static JsonNode read(Path file, Function<String, ? extends RuntimeException> error) {
        return parse(bytes(file, error), file.toString(), error);
    }

    /**
     * {@link #read}, parsed as {@link #parseLastKeyWins} parses.
     *
     * @param file  the file to read
     * @param error makes the exception thrown, from a one-line message, when the file cannot be read or parsed
     * @return the document's root
     */
    public static JsonNode readLastKeyWins(Path file, Function<String, ? extends RuntimeException> error) {
        return parseLastKeyWins(bytes(file, error), file.toString(), error);
    }

    private static byte[] bytes(Path file, Function<String, ? extends RuntimeException> error) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw error.apply("file not found: " + file);
        } catch (IOException e) {
            throw error.apply("cannot read " + file + ": " + e.getMessage());
        }
    }

    /**
     * Parses one JSON document.
     *
     * @param bytes  the document, UTF-8
     * @param source what names the document in messages (a file name, say)
     * @param error  makes the exception thrown, from a one-line message, when the document does not parse
     * @return the document's root
     */
    public static JsonNode parse(byte[] bytes, String source, Function<String, ? extends RuntimeException> error) {
        return parse(FACTORY, false, bytes, source, error);
    }

    /**
     * Parses one JSON document as a library that takes the last of duplicate keys reads it (the tokenizers library's
     * serde maps: tokenizer.json, vocab.json), with every decimal kept as written (a BigDecimal node), as an ObjectMapper
     * with {@code USE_BIG_DECIMAL_FOR_FLOATS} and without {@code STRIP_TRAILING_BIGDECIMAL_ZEROES} reads it.
     *
     * @param bytes  the document, UTF-8
     * @param source what names the document in messages (a file name, say)
     * @param error  makes the exception thrown, from a one-line message, when the document does not parse
     * @return the document's root
     */
    public static JsonNode parseLastKeyWins(byte[] bytes, String source, Function<String, ? extends RuntimeException> error) {
        return parse(LENIENT, true, bytes, source, error);
    }

    private static JsonNode parse(JsonFactory factory, boolean exactDecimals, byte[] bytes, String source,
                                  Function<String, ? extends RuntimeException> error) {
        try (JsonParser parser = factory.createParser(bytes)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw error.apply(source + " is empty");
            }
            JsonNode node = value(parser, first, exactDecimals);
            JsonToken trailing = parser.nextToken();
            if (trailing != null) {
                throw error.apply("cannot parse " + source + where(parser.currentTokenLocation())
                        + ": unexpected " + trailing.asString() + " after the document");
            }
            return node;
        } catch (JacksonException e) {
            String what = e.getOriginalMessage().lines().findFirst().orElse("malformed JSON");
            throw error.apply("cannot parse " + source + where(e.getLocation()) + ": " + what);
        } catch (IOException e) {
            throw error.apply("cannot read " + source + ": " + e.getMessage());
        }
    }

    private static String where(JsonLocation at) {
        return at == null || at.getLineNr() < 0 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }

    /** The value starting at {@code token}, as ObjectMapper.readTree would build it. */
    private static JsonNode value(JsonParser parser, JsonToken token, boolean exactDecimals) throws IOException {
        return switch (token) {
            case START_OBJECT -> {
                ObjectNode object = NODES.objectNode();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
                    String name = parser.currentName();
                    object.set(name, value(parser, parser.nextToken(), exactDecimals));
                }
                yield object;
            }
            case START_ARRAY -> {
                ArrayNode array = NODES.arrayNode();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
                    array.add(value(parser, t, exactDecimals));
                }
                yield array;
            }
            case VALUE_STRING -> NODES.textNode(parser.getText());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> NODES.numberNode(parser.getIntValue());
                case LONG -> NODES.numberNode(parser.getLongValue());
                default -> NODES.numberNode(parser.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> exactDecimals ? DecimalNode.valueOf(parser.getDecimalValue()) : NODES.numberNode(parser.getDoubleValue());
            case VALUE_TRUE -> NODES.booleanNode(true);
            case VALUE_FALSE -> NODES.booleanNode(false);
            case VALUE_NULL -> NODES.nullNode();
            default -> throw new IllegalStateException("the parser gave " + token + " where a value starts");
        };
    }
}
