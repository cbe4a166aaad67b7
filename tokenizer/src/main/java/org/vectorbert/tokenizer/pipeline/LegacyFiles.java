package org.vectorbert.tokenizer.pipeline;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * Builds, from older file layouts, the tokenizer.json that transformers' converters
 * (convert_slow_tokenizer.py: RobertaConverter, XLMRobertaConverter, CamembertConverter) would
 * write, so the same stage readers run: GPT-2/RoBERTa {@code vocab.json} + {@code merges.txt},
 * and sentencepiece {@code .model} files read as Unigram with Metaspace.
 */
final class LegacyFiles {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** XLM-R's fairseq layout: these four first, spm pieces from id 3 on shifted by one, {@code <mask>} last. */
    private static final List<String> XLMR_SPECIALS = List.of("<s>", "<pad>", "</s>", "<unk>");
    /** CamemBERT's fairseq layout (fairseq offset 4); the NOTUSED entries are its extra special tokens. */
    private static final List<String> CAMEMBERT_SPECIALS = List.of("<s>NOTUSED", "<pad>", "</s>NOTUSED", "<unk>",
            "<unk>NOTUSED");

    private LegacyFiles() {}

    static JsonNode robertaBpe(Path vocabJson, Path mergesTxt, JsonNode config) {
        JsonNode vocab = TokenizerFiles.read(vocabJson);
        if (!vocab.isObject()) {
            throw new TokenizerException(vocabJson + ": expected an object of token to id");
        }
        ArrayNode merges = NODES.arrayNode();
        List<String> lines = lines(mergesTxt);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isEmpty() || (i == 0 && line.startsWith("#version"))) {
                continue;
            }
            String[] parts = line.split(" ", -1);
            if (parts.length != 2) {
                throw new TokenizerException(mergesTxt + ": line " + (i + 1) + " \"" + line
                        + "\" is not two tokens separated by one space");
            }
            for (String token : new String[] {parts[0], parts[1], parts[0] + parts[1]}) {
                if (!vocab.has(token)) {
                    throw new TokenizerException(mergesTxt + ": line " + (i + 1) + " merges \"" + line + "\" but '"
                            + token + "' is not in " + vocabJson.getFileName());
                }
            }
            merges.add(NODES.arrayNode().add(parts[0]).add(parts[1]));
        }
        ObjectNode model = NODES.objectNode().put("type", "BPE").putNull("dropout").putNull("unk_token")
                .putNull("continuing_subword_prefix").putNull("end_of_word_suffix").put("fuse_unk", false)
                .put("byte_fallback", false).put("ignore_merges", false);
        model.set("vocab", vocab);
        model.set("merges", merges);
        boolean prefixSpace = config.path("add_prefix_space").asBoolean(false);
        boolean trim = config.path("trim_offsets").asBoolean(true);
        ObjectNode root = root(model);
        root.set("pre_tokenizer", byteLevel(prefixSpace, trim));
        root.set("decoder", byteLevel(prefixSpace, trim));
        String cls = tokenName(config, "cls_token", "<s>");
        String sep = tokenName(config, "sep_token", "</s>");
        ObjectNode post = NODES.objectNode().put("type", "RobertaProcessing");
        post.set("sep", NODES.arrayNode().add(sep).add(vocab.path(sep).asInt(2)));
        post.set("cls", NODES.arrayNode().add(cls).add(vocab.path(cls).asInt(0)));
        post.put("trim_offsets", trim).put("add_prefix_space", prefixSpace);
        root.set("post_processor", post);
        root.set("added_tokens", specials(config, id -> vocab.has(id) ? vocab.get(id).asInt() : -1,
                vocab.size(), "<s>", "<pad>", "</s>", "<unk>", "<mask>"));
        return root;
    }

    /** A sentencepiece Unigram model read from {@code file}: pieces with scores, or a one-line refusal. */
    private static SentencePieceProto unigram(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new TokenizerException("file not found: " + file);
        } catch (IOException e) {
            throw new TokenizerException("cannot read " + file + ": " + e.getMessage());
        }
        SentencePieceProto proto = SentencePieceProto.parse(bytes, file.toString());
        if (proto.modelType() != SentencePieceProto.UNIGRAM) {
            throw new TokenizerException(file + ": sentencepiece model_type " + proto.modelType()
                    + " is not read (only 1, Unigram, as XLM-R, CamemBERT, multilingual-e5 and DeBERTa-v3 use)");
        }
        if (proto.pieces().isEmpty()) {
            throw new TokenizerException(file + ": the sentencepiece model has no pieces");
        }
        if (proto.pieces().stream().noneMatch(SentencePieceProto.Piece::hasScore)) {
            throw new TokenizerException(file + ": the sentencepiece pieces have no scores; a Unigram model needs them");
        }
        return proto;
    }

    /**
     * DeBERTa-v2/v3's {@code spm.model} as DebertaV2Converter converts it: the pieces at their own ids, normalised by
     * Lowercase (with do_lower_case), Strip, the precompiled charsmap and runs of spaces to one, split by Punctuation
     * (with split_by_punct) and Metaspace, then [CLS] A [SEP] (B [SEP], type 1); the special tokens at their pieces' ids,
     * [MASK] after the last piece when the model has none.
     */
    static JsonNode debertaV2(Path file, JsonNode config) {
        SentencePieceProto proto = unigram(file);
        ArrayNode vocab = NODES.arrayNode();
        Map<String, Integer> ids = new java.util.HashMap<>();
        for (SentencePieceProto.Piece p : proto.pieces()) {
            ids.putIfAbsent(p.piece(), vocab.size());
            vocab.add(NODES.arrayNode().add(p.piece()).add((double) p.score()));
        }
        ObjectNode model = NODES.objectNode().put("type", "Unigram").put("unk_id", proto.unkId());
        model.set("vocab", vocab);
        model.put("byte_fallback", proto.byteFallback());
        ObjectNode root = root(model);
        ArrayNode normalizers = NODES.arrayNode();
        if (config.path("do_lower_case").asBoolean(false)) {
            normalizers.addObject().put("type", "Lowercase");
        }
        normalizers.addObject().put("type", "Strip").put("strip_left", true).put("strip_right", true);
        addPrecompiled(normalizers, proto);
        addSpaceRuns(normalizers);
        root.putObject("normalizer").put("type", "Sequence").set("normalizers", normalizers);
        ObjectNode metaspace = NODES.objectNode().put("type", "Metaspace").put("replacement", "\u2581")
                .put("prepend_scheme", proto.addDummyPrefix() ? "always" : "never").put("split", true);
        ArrayNode pre = root.putObject("pre_tokenizer").put("type", "Sequence").putArray("pretokenizers");
        if (config.path("split_by_punct").asBoolean(false)) {
            pre.addObject().put("type", "Punctuation").put("behavior", "isolated");
        }
        pre.add(metaspace);
        root.set("decoder", metaspace);
        String cls = tokenName(config, "cls_token", "[CLS]");
        String sep = tokenName(config, "sep_token", "[SEP]");
        ArrayNode added = NODES.arrayNode();
        int next = vocab.size();
        for (String role : List.of("pad_token", "cls_token", "sep_token", "unk_token", "mask_token")) {
            String content = tokenName(config, role, "[" + role.substring(0, role.indexOf('_')).toUpperCase(java.util.Locale.ROOT) + "]");
            Integer id = ids.get(content);
            if (id == null) {
                id = next++;
                ids.put(content, id);
            }
            added.add(addedToken(id, content, true, false));
        }
        root.set("added_tokens", added);
        ObjectNode t = root.putObject("post_processor").put("type", "TemplateProcessing");
        t.putArray("single").add(special(cls)).add(sequence("A")).add(special(sep));
        ArrayNode pair = t.putArray("pair").add(special(cls)).add(sequence("A")).add(special(sep));
        pair.addObject().putObject("Sequence").put("id", "B").put("type_id", 1);
        pair.addObject().putObject("SpecialToken").put("id", sep).put("type_id", 1);
        specialTokens(t, List.of(cls, sep), ids);
        return root;
    }

    static JsonNode sentencePiece(Path file, JsonNode config) {
        SentencePieceProto proto = unigram(file);
        String kind = config.path("tokenizer_class").asText("");
        List<String> fairseq = kind.startsWith("XLMRobertaTokenizer") ? XLMR_SPECIALS
                : kind.startsWith("CamembertTokenizer") ? CAMEMBERT_SPECIALS : null;
        ArrayNode vocab = NODES.arrayNode();
        int unkId = proto.unkId();
        if (fairseq != null) {
            for (String s : fairseq) {
                vocab.add(NODES.arrayNode().add(s).add(s.equals("<unk>NOTUSED") ? -100.0 : 0.0));
            }
            // XLM-R keeps spm pieces from 3 (after <unk>, <s>, </s>); CamemBERT from 1.
            int from = fairseq == XLMR_SPECIALS ? 3 : 1;
            for (SentencePieceProto.Piece p : proto.pieces().subList(Math.min(from, proto.pieces().size()),
                    proto.pieces().size())) {
                vocab.add(NODES.arrayNode().add(p.piece()).add((double) p.score()));
            }
            vocab.add(NODES.arrayNode().add("<mask>").add(0.0));
            unkId = 3;
        } else {
            for (SentencePieceProto.Piece p : proto.pieces()) {
                vocab.add(NODES.arrayNode().add(p.piece()).add((double) p.score()));
            }
        }
        ObjectNode model = NODES.objectNode().put("type", "Unigram").put("unk_id", unkId);
        model.set("vocab", vocab);
        model.put("byte_fallback", proto.byteFallback());
        ObjectNode root = root(model);
        ArrayNode normalizers = NODES.arrayNode();
        addPrecompiled(normalizers, proto);
        if (proto.removeExtraWhitespaces()) {
            addSpaceRuns(normalizers);
        }
        root.putObject("normalizer").put("type", "Sequence").set("normalizers", normalizers);
        ObjectNode metaspace = NODES.objectNode().put("type", "Metaspace").put("replacement", "\u2581")
                .put("prepend_scheme", proto.addDummyPrefix() ? "always" : "never").put("split", true);
        root.set("pre_tokenizer", metaspace);
        if (proto.byteFallback()) {
            ObjectNode seq = root.putObject("decoder").put("type", "Sequence");
            seq.putArray("decoders").add(NODES.objectNode().put("type", "ByteFallback")).add(metaspace);
        } else {
            root.set("decoder", metaspace);
        }
        Map<String, Integer> ids = new java.util.HashMap<>();
        for (int i = 0; i < vocab.size(); i++) {
            ids.putIfAbsent(vocab.get(i).get(0).asText(), i);
        }
        if (fairseq != null) {
            root.set("post_processor", xlmrTemplate(ids.get("<s>"), ids.get("</s>")));
            List<String> names = new java.util.ArrayList<>(fairseq);
            // CamemBERT's real <s> and </s> are spm pieces (ids 5 and 6) and special all the same.
            names.addAll(List.of("<s>", "</s>", "<mask>"));
            root.set("added_tokens", specials(config, id -> ids.getOrDefault(id, -1), vocab.size(),
                    names.toArray(String[]::new)));
        } else {
            // Pieces sentencepiece never produces from text (CONTROL 3, USER_DEFINED 4) are added tokens, as the converter makes them.
            ArrayNode added = NODES.arrayNode();
            for (int i = 0; i < proto.pieces().size(); i++) {
                int type = proto.pieces().get(i).type();
                if (type == 3 || type == 4) {
                    added.add(addedToken(i, proto.pieces().get(i).piece(), type == 3, false));
                }
            }
            root.set("added_tokens", added);
        }
        return root;
    }

    private static ObjectNode root(ObjectNode model) {
        ObjectNode root = NODES.objectNode().put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        root.set("model", model);
        return root;
    }

    private static ObjectNode byteLevel(boolean addPrefixSpace, boolean trimOffsets) {
        return NODES.objectNode().put("type", "ByteLevel").put("add_prefix_space", addPrefixSpace)
                .put("trim_offsets", trimOffsets).put("use_regex", true);
    }

    private static ObjectNode xlmrTemplate(int bos, int eos) {
        ObjectNode t = NODES.objectNode().put("type", "TemplateProcessing");
        ArrayNode single = t.putArray("single");
        single.add(special("<s>")).add(sequence("A")).add(special("</s>"));
        ArrayNode pair = t.putArray("pair");
        pair.add(special("<s>")).add(sequence("A")).add(special("</s>")).add(special("</s>")).add(sequence("B"))
                .add(special("</s>"));
        specialTokens(t, List.of("<s>", "</s>"), Map.of("<s>", bos, "</s>", eos));
        return t;
    }

    /** A template's {@code special_tokens}: each of {@code names} as one token of its id. */
    private static void specialTokens(ObjectNode template, List<String> names, Map<String, Integer> ids) {
        ObjectNode specials = template.putObject("special_tokens");
        for (String name : names) {
            ObjectNode s = specials.putObject(name).put("id", name);
            s.putArray("ids").add(ids.get(name));
            s.putArray("tokens").add(name);
        }
    }

    /** sentencepiece's compiled normalisation rules, when the model has any, as a {@code Precompiled} normalizer. */
    private static void addPrecompiled(ArrayNode normalizers, SentencePieceProto proto) {
        if (proto.precompiledCharsmap().length > 0) {
            normalizers.addObject().put("type", "Precompiled")
                    .put("precompiled_charsmap", Base64.getEncoder().encodeToString(proto.precompiledCharsmap()));
        }
    }

    /** Runs of two or more spaces to one, as the converters write sentencepiece's remove_extra_whitespaces. */
    private static void addSpaceRuns(ArrayNode normalizers) {
        ObjectNode replace = normalizers.addObject().put("type", "Replace");
        replace.putObject("pattern").put("Regex", " {2,}");
        replace.put("content", " ");
    }

    private static ObjectNode special(String id) {
        ObjectNode n = NODES.objectNode();
        n.putObject("SpecialToken").put("id", id).put("type_id", 0);
        return n;
    }

    private static ObjectNode sequence(String id) {
        ObjectNode n = NODES.objectNode();
        n.putObject("Sequence").put("id", id).put("type_id", 0);
        return n;
    }

    /**
     * The special tokens as added tokens (special, not normalised), at their vocabulary id or
     * appended after it; {@code <mask>} strips the space before it, as the RoBERTa-family
     * tokenizers declare it (AddedToken(mask, lstrip=True)). The config may rename a role.
     */
    private static ArrayNode specials(JsonNode config, java.util.function.ToIntFunction<String> idOf, int size,
                                      String... defaults) {
        ArrayNode out = NODES.arrayNode();
        int next = size;
        java.util.Set<String> seen = new java.util.HashSet<>();
        String[] roles = {"bos_token", "pad_token", "eos_token", "unk_token", "mask_token"};
        for (String name : defaults) {
            String role = switch (name) {
                case "<s>" -> roles[0];
                case "<pad>" -> roles[1];
                case "</s>" -> roles[2];
                case "<unk>" -> roles[3];
                case "<mask>" -> roles[4];
                default -> null;
            };
            String content = role == null ? name : tokenName(config, role, name);
            if (!seen.add(content)) {
                continue;
            }
            int id = idOf.applyAsInt(content);
            boolean lstrip = config.path(role == null ? "" : role).path("lstrip").asBoolean("<mask>".equals(name));
            out.add(addedToken(id >= 0 ? id : next++, content, true, lstrip));
        }
        return out;
    }

    private static ObjectNode addedToken(int id, String content, boolean special, boolean lstrip) {
        return NODES.objectNode().put("id", id).put("content", content).put("single_word", false)
                .put("lstrip", lstrip).put("rstrip", false).put("normalized", !special).put("special", special);
    }

    /** A role's token from tokenizer_config.json: a string, or an object with "content". */
    static String tokenName(JsonNode config, String role, String fallback) {
        JsonNode n = config.path(role);
        if (n.isTextual()) {
            return n.asText();
        }
        return n.path("content").isTextual() ? n.get("content").asText() : fallback;
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new TokenizerException("file not found: " + file);
        } catch (IOException e) {
            throw new TokenizerException("cannot read " + file + ": " + e.getMessage());
        }
    }
}
