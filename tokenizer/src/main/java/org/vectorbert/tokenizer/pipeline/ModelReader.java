package org.vectorbert.tokenizer.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/** Reads the {@code model} and {@code post_processor} objects of a tokenizer.json. */
final class ModelReader {
    private final StageReader stages;
    private final String file;

    ModelReader(StageReader stages, String file) {
        this.stages = stages;
        this.file = file;
    }

    Model model(JsonNode n) {
        if (!n.isObject()) {
            throw new TokenizerException(file + ": \"model\" is missing or not an object");
        }
        String type = n.path("type").asText("");
        if (type.isEmpty()) {
            // Files without a tag are matched by shape, as the library's untagged deserialisation does.
            type = n.has("merges") ? "BPE" : n.path("vocab").isArray() ? "Unigram" : "WordPiece";
        }
        return switch (type) {
            case "WordPiece" -> WordPieceModel.of(vocabMap(n.path("vocab")), n.path("unk_token").asText("[UNK]"),
                    n.path("continuing_subword_prefix").asText("##"), n.path("max_input_chars_per_word").asInt(100),
                    file + ": model");
            case "BPE" -> bpe(n);
            case "Unigram" -> unigram(n);
            default -> throw new TokenizerException(file + ": model: unknown model type '" + type + "'");
        };
    }

    private Map<String, Integer> vocabMap(JsonNode vocab) {
        if (!vocab.isObject()) {
            throw new TokenizerException(file + ": model.vocab must be an object of token to id");
        }
        Map<String, Integer> ids = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : vocab.properties()) {
            if (!e.getValue().canConvertToInt()) {
                throw new TokenizerException(file + ": model.vocab: token '" + e.getKey() + "' has a non-integer id");
            }
            ids.put(e.getKey(), e.getValue().intValue());
        }
        return ids;
    }

    private Model bpe(JsonNode n) {
        JsonNode dropout = n.path("dropout");
        if (dropout.isNumber() && dropout.doubleValue() != 0.0) {
            throw new TokenizerException(file + ": model: BPE dropout " + dropout.asText()
                    + " is random at inference; only null is supported");
        }
        Vocab vocab = Vocab.of(vocabMap(n.path("vocab")), file);
        JsonNode merges = n.path("merges");
        if (!merges.isArray()) {
            throw new TokenizerException(file + ": model.merges must be an array");
        }
        List<String[]> pairs = new ArrayList<>(merges.size());
        for (int i = 0; i < merges.size(); i++) {
            JsonNode m = merges.get(i);
            if (m.isTextual()) {
                String[] parts = m.asText().split(" ", -1);
                if (parts.length != 2) {
                    throw new TokenizerException(file + ": model.merges[" + i + "] \"" + m.asText()
                            + "\" is not two tokens separated by one space");
                }
                pairs.add(parts);
            } else if (m.isArray() && m.size() == 2 && m.get(0).isTextual() && m.get(1).isTextual()) {
                pairs.add(new String[] {m.get(0).asText(), m.get(1).asText()});
            } else {
                throw new TokenizerException(file + ": model.merges[" + i + "] is neither \"a b\" nor [\"a\", \"b\"]");
            }
        }
        return new BpeModel(vocab, pairs, textOrNull(n.path("unk_token")), textOrNull(n.path("continuing_subword_prefix")),
                textOrNull(n.path("end_of_word_suffix")), n.path("fuse_unk").asBoolean(false),
                n.path("byte_fallback").asBoolean(false), n.path("ignore_merges").asBoolean(false), file + ": model");
    }

    private static String textOrNull(JsonNode n) {
        return n.isTextual() ? n.asText() : null;
    }

    private Model unigram(JsonNode n) {
        JsonNode vocab = n.path("vocab");
        if (!vocab.isArray()) {
            throw new TokenizerException(file + ": model.vocab of a Unigram model must be an array of [piece, score]");
        }
        List<String> pieces = new ArrayList<>(vocab.size());
        double[] scores = new double[vocab.size()];
        for (int i = 0; i < vocab.size(); i++) {
            JsonNode e = vocab.get(i);
            if (!e.isArray() || e.size() != 2 || !e.get(0).isTextual() || !e.get(1).isNumber()) {
                throw new TokenizerException(file + ": model.vocab[" + i + "] of a Unigram model is not [piece, score]"
                        + (e.isTextual() || (e.isArray() && e.size() == 1) ? ": the vocabulary has no scores" : ""));
            }
            pieces.add(e.get(0).asText());
            JsonNode score = e.get(1);
            scores[i] = score.isBigDecimal() ? JsonFloats.libraryDouble(score.decimalValue()) : score.doubleValue();
            if (!Double.isFinite(scores[i])) {
                throw new TokenizerException(file + ": model.vocab[" + i + "] has a score out of range: " + score);
            }
        }
        int unkId = n.path("unk_id").canConvertToInt() ? n.get("unk_id").intValue() : -1;
        return new UnigramModel(pieces, scores, unkId, n.path("byte_fallback").asBoolean(false), file + ": model");
    }

    PostProcessor postProcessor(JsonNode n, String where) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return new PostProcessor.None();
        }
        String type = n.path("type").asText("");
        return switch (type) {
            case "BertProcessing" -> new PostProcessor.Bert(special(n.path("cls"), where + ".cls"),
                    special(n.path("sep"), where + ".sep"));
            case "RobertaProcessing" -> new PostProcessor.Roberta(special(n.path("cls"), where + ".cls"),
                    special(n.path("sep"), where + ".sep"), n.path("trim_offsets").asBoolean(true),
                    n.path("add_prefix_space").asBoolean(true));
            case "ByteLevel" -> new PostProcessor.ByteLevelTrim(n.path("trim_offsets").asBoolean(true),
                    n.path("add_prefix_space").asBoolean(true));
            case "TemplateProcessing" -> template(n, where);
            case "Sequence" -> {
                List<PostProcessor> list = new ArrayList<>();
                JsonNode items = n.path("processors");
                for (int i = 0; i < items.size(); i++) {
                    list.add(postProcessor(items.get(i), where + ".processors[" + i + "]"));
                }
                yield new PostProcessor.Sequence(list);
            }
            default -> throw stages.error(where, "unknown post_processor type '" + type + "'");
        };
    }

    private PostProcessor.Special special(JsonNode pair, String where) {
        if (!pair.isArray() || pair.size() != 2 || !pair.get(0).isTextual() || !pair.get(1).canConvertToInt()) {
            throw stages.error(where, "expected [token, id]");
        }
        return new PostProcessor.Special(pair.get(0).asText(), pair.get(1).intValue());
    }

    private TemplateProcessing template(JsonNode n, String where) {
        Map<String, TemplateProcessing.SpecialIds> specials = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : n.path("special_tokens").properties()) {
            JsonNode ids = e.getValue().path("ids");
            JsonNode tokens = e.getValue().path("tokens");
            if (!ids.isArray() || !tokens.isArray() || ids.size() != tokens.size()) {
                throw stages.error(where + ".special_tokens." + e.getKey(), "needs as many \"ids\" as \"tokens\"");
            }
            int[] idArray = new int[ids.size()];
            List<String> tokenList = new ArrayList<>();
            for (int i = 0; i < idArray.length; i++) {
                idArray[i] = ids.get(i).asInt();
                tokenList.add(tokens.get(i).asText());
            }
            specials.put(e.getKey(), new TemplateProcessing.SpecialIds(idArray, tokenList));
        }
        List<TemplateProcessing.Piece> single = pieces(n.path("single"), specials, where + ".single");
        List<TemplateProcessing.Piece> pair = pieces(n.path("pair"), specials, where + ".pair");
        // A single text has no sequence B to place (naming it would fail deep in encode), and a pair template
        // must place both, as the library's TemplateProcessingBuilder requires.
        if (single.stream().anyMatch(p -> p.special() == null && p.sequence() == 1)) {
            throw stages.error(where + ".single", "a single text has no sequence B");
        }
        if (!pair.isEmpty() && !(uses(pair, 0) && uses(pair, 1))) {
            throw stages.error(where + ".pair", "the template for a pair must use both sequences, A and B");
        }
        return new TemplateProcessing(single, pair, specials);
    }

    private static boolean uses(List<TemplateProcessing.Piece> pieces, int sequence) {
        return pieces.stream().anyMatch(p -> p.special() == null && p.sequence() == sequence);
    }

    private List<TemplateProcessing.Piece> pieces(JsonNode list, Map<String, TemplateProcessing.SpecialIds> specials,
                                                  String where) {
        List<TemplateProcessing.Piece> out = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode p = list.get(i);
            if (p.has("SpecialToken")) {
                String id = p.get("SpecialToken").path("id").asText();
                if (!specials.containsKey(id)) {
                    throw stages.error(where + "[" + i + "]", "special token '" + id + "' is not in special_tokens");
                }
                out.add(new TemplateProcessing.Piece(id, -1, p.get("SpecialToken").path("type_id").asInt(0)));
            } else if (p.has("Sequence")) {
                String id = p.get("Sequence").path("id").asText();
                if (!id.equals("A") && !id.equals("B")) {
                    throw stages.error(where + "[" + i + "]", "sequence id must be A or B, was '" + id + "'");
                }
                out.add(new TemplateProcessing.Piece(null, id.equals("A") ? 0 : 1,
                        p.get("Sequence").path("type_id").asInt(0)));
            } else {
                throw stages.error(where + "[" + i + "]", "expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
            }
        }
        return out;
    }
}
