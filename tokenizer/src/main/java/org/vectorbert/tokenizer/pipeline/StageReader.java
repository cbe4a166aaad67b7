package org.vectorbert.tokenizer.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.tokenizer.TokenizerException;
import org.vectorbert.tokenizer.pipeline.SplitPattern.Behavior;

/** Reads the normalizer, pre-tokenizer, decoder and pattern objects of a tokenizer.json. */
final class StageReader {
    private final String file;

    StageReader(String file) {
        this.file = file;
    }

    /**
     * One line naming the file, the place and the problem. Names quoted from the file may hold line breaks and other
     * control characters: they are written as escapes, so the message stays one line.
     */
    TokenizerException error(String where, String message) {
        StringBuilder line = new StringBuilder();
        (file + ": " + where + ": " + message).codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                line.append(String.format("\\u%04x", c));
            } else {
                line.appendCodePoint(c);
            }
        });
        return new TokenizerException(line.toString());
    }

    private String type(JsonNode node, String where) {
        if (!node.isObject()) {
            throw error(where, "expected an object with a \"type\"");
        }
        JsonNode t = node.path("type");
        if (!t.isTextual()) {
            throw error(where, "has no \"type\"");
        }
        return t.asText();
    }

    Normalizer normalizer(JsonNode n, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        String type = type(n, where);
        return switch (type) {
            case "BertNormalizer" -> new BertNormalizer(n.path("clean_text").asBoolean(true),
                    n.path("handle_chinese_chars").asBoolean(true),
                    n.path("strip_accents").isBoolean() ? n.get("strip_accents").booleanValue() : null,
                    n.path("lowercase").asBoolean(true));
            case "Lowercase" -> new Normalizer.Lowercase();
            case "NFC" -> new Normalizer.UnicodeForm(java.text.Normalizer.Form.NFC);
            case "NFD" -> new Normalizer.UnicodeForm(java.text.Normalizer.Form.NFD);
            case "NFKC" -> new Normalizer.UnicodeForm(java.text.Normalizer.Form.NFKC);
            case "NFKD" -> new Normalizer.UnicodeForm(java.text.Normalizer.Form.NFKD);
            case "StripAccents" -> new Normalizer.StripAccents();
            case "Strip" -> new Normalizer.Strip(n.path("strip_left").asBoolean(true), n.path("strip_right").asBoolean(true));
            case "Replace" -> new Normalizer.Replace(pattern(n.path("pattern"), where + ".pattern"), text(n, "content", where));
            case "Prepend" -> new Normalizer.Prepend(text(n, "prepend", where));
            case "Precompiled" -> PrecompiledNormalizer.fromBase64(n.path("precompiled_charsmap").asText(""), file);
            case "Sequence" -> {
                List<Normalizer> list = new ArrayList<>();
                JsonNode items = n.path("normalizers");
                for (int i = 0; i < items.size(); i++) {
                    list.add(normalizer(items.get(i), where + ".normalizers[" + i + "]"));
                }
                yield new Normalizer.Sequence(list);
            }
            default -> throw error(where, "unknown normalizer type '" + type + "'");
        };
    }

    PreTokenizer preTokenizer(JsonNode n, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        String type = type(n, where);
        return switch (type) {
            case "BertPreTokenizer" -> new PreTokenizer.Bert();
            case "Whitespace" -> new PreTokenizer.Whitespace();
            case "WhitespaceSplit" -> new PreTokenizer.WhitespaceSplit();
            case "ByteLevel" -> new ByteLevel(n.path("add_prefix_space").asBoolean(true),
                    n.path("trim_offsets").asBoolean(true), n.path("use_regex").asBoolean(true));
            case "Metaspace" -> new Metaspace(replacement(n, where), prependScheme(n, where), n.path("split").asBoolean(true));
            case "Split" -> new PreTokenizer.Split(pattern(n.path("pattern"), where + ".pattern"),
                    Behavior.parse(text(n, "behavior", where), where), n.path("invert").asBoolean(false));
            case "Punctuation" -> new PreTokenizer.Punctuation(
                    Behavior.parse(n.path("behavior").asText("Isolated"), where));
            case "Digits" -> new PreTokenizer.Digits(n.path("individual_digits").asBoolean(false));
            case "CharDelimiterSplit" -> new PreTokenizer.CharDelimiter(text(n, "delimiter", where).codePointAt(0));
            case "Sequence" -> {
                List<PreTokenizer> list = new ArrayList<>();
                JsonNode items = n.path("pretokenizers");
                for (int i = 0; i < items.size(); i++) {
                    list.add(preTokenizer(items.get(i), where + ".pretokenizers[" + i + "]"));
                }
                yield new PreTokenizer.Sequence(list);
            }
            default -> throw error(where, "unknown pre_tokenizer type '" + type + "'");
        };
    }

    Decoder decoder(JsonNode n, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        String type = type(n, where);
        return switch (type) {
            case "WordPiece" -> new Decoder.WordPiece(n.path("prefix").asText("##"), n.path("cleanup").asBoolean(true));
            case "ByteLevel" -> new Decoder.ByteLevelDecoder();
            case "Metaspace" -> new Decoder.MetaspaceDecoder(replacement(n, where),
                    prependScheme(n, where) != Metaspace.Prepend.NEVER);
            case "BPEDecoder" -> new Decoder.BpeDecoder(n.path("suffix").asText("</w>"));
            case "ByteFallback" -> new Decoder.ByteFallback();
            case "Fuse" -> new Decoder.Fuse();
            case "Strip" -> new Decoder.Strip(text(n, "content", where).codePointAt(0), n.path("start").asInt(0),
                    n.path("stop").asInt(0));
            case "Replace" -> new Decoder.Replace(pattern(n.path("pattern"), where + ".pattern"), text(n, "content", where));
            case "Sequence" -> {
                List<Decoder> list = new ArrayList<>();
                JsonNode items = n.path("decoders");
                for (int i = 0; i < items.size(); i++) {
                    list.add(decoder(items.get(i), where + ".decoders[" + i + "]"));
                }
                yield new Decoder.Sequence(list);
            }
            default -> throw error(where, "unknown decoder type '" + type + "'");
        };
    }

    SplitPattern pattern(JsonNode p, String where) {
        if (p.path("String").isTextual()) {
            return SplitPattern.literal(p.get("String").asText());
        }
        if (p.path("Regex").isTextual()) {
            return SplitPattern.regex(p.get("Regex").asText(), file + ": " + where);
        }
        throw error(where, "expected {\"String\": ...} or {\"Regex\": ...}");
    }

    String text(JsonNode n, String field, String where) {
        JsonNode v = n.path(field);
        if (!v.isTextual()) {
            throw error(where, "\"" + field + "\" must be a string");
        }
        return v.asText();
    }

    private int replacement(JsonNode n, String where) {
        String r = n.path("replacement").asText("\u2581");
        if (r.isEmpty()) {
            throw error(where, "\"replacement\" must be one character");
        }
        return r.codePointAt(0);
    }

    private Metaspace.Prepend prependScheme(JsonNode n, String where) {
        if (n.path("prepend_scheme").isTextual()) {
            return switch (n.get("prepend_scheme").asText()) {
                case "always" -> Metaspace.Prepend.ALWAYS;
                case "first" -> Metaspace.Prepend.FIRST;
                case "never" -> Metaspace.Prepend.NEVER;
                default -> throw error(where, "unknown prepend_scheme '" + n.get("prepend_scheme").asText() + "'");
            };
        }
        return n.path("add_prefix_space").asBoolean(true) ? Metaspace.Prepend.ALWAYS : Metaspace.Prepend.NEVER;
    }
}
