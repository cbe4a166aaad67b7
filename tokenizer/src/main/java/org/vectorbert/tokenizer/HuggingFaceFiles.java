package org.vectorbert.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vectorbert.common.Json;
import org.vectorbert.tokenizer.pipeline.TokenizerFiles;

/**
 * Reads the tokenizer files of a Hugging Face model directory into a {@link BertTokenizer}. Empty settings
 * are {@link Json#object()}, not an ObjectMapper's: making an ObjectMapper delays a one-shot command.
 */
final class HuggingFaceFiles {
    private HuggingFaceFiles() {}

    static BertTokenizer loadDirectory(Path directory) {
        requireDirectory(directory);
        Path tokenizerJson = directory.resolve("tokenizer.json");
        if (Files.exists(tokenizerJson)) {
            return fromTokenizerJson(directory, read(tokenizerJson));
        }
        if (Files.exists(directory.resolve("vocab.txt"))) {
            return fromVocabTxt(directory);
        }
        throw new TokenizerException("no tokenizer in " + directory + ": expected tokenizer.json or vocab.txt");
    }

    /**
     * The directory's tokenizer as {@link BertTokenizer} reads it, when it is one: {@code vocab.txt}, or a
     * {@code tokenizer.json} whose model is WordPiece behind BERT's normaliser and pre-tokenizer (every BERT,
     * DistilBERT and ELECTRA checkpoint published). Empty for any other tokenizer, which the stages of
     * {@code tokenizer.json} run instead ({@link Tokenizer#fromDirectory}).
     */
    static Optional<BertTokenizer> bertTokenizer(Path directory) {
        requireDirectory(directory);
        Path tokenizerJson = directory.resolve("tokenizer.json");
        if (Files.exists(tokenizerJson)) {
            JsonNode root = read(tokenizerJson);
            return isBert(root) ? Optional.of(fromTokenizerJson(directory, root)) : Optional.empty();
        }
        return Files.exists(directory.resolve("vocab.txt")) ? Optional.of(fromVocabTxt(directory)) : Optional.empty();
    }

    private static void requireDirectory(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new TokenizerException(Files.exists(directory)
                    ? directory + " is not a directory"
                    : "model directory not found: " + directory);
        }
    }

    /** A directory's tokenizer.json, with tokenizer_config.json and special_tokens_map.json over it. */
    private static BertTokenizer fromTokenizerJson(Path directory, JsonNode root) {
        JsonNode settings = merge(readOptional(directory.resolve("special_tokens_map.json")),
                readOptional(directory.resolve("tokenizer_config.json")));
        return loadTokenizerJson(root, "tokenizer.json", settings == null ? Json.object() : settings);
    }

    /** A directory's vocab.txt, with bert-base-uncased's settings and tokenizer_config.json over them. */
    private static BertTokenizer fromVocabTxt(Path directory) {
        JsonNode settings = merge(readOptional(directory.resolve("special_tokens_map.json")),
                readOptional(directory.resolve("tokenizer_config.json")));
        return new BertTokenizer(Vocabulary.load(directory.resolve("vocab.txt")), applyOverrides(TokenizerConfig.uncased(), settings));
    }

    /**
     * Whether a tokenizer.json is what {@link #loadTokenizerJson} reads: WordPiece, BERT's normaliser (or none), BERT's
     * pre-tokenizer, BERT's [CLS] A [SEP] B [SEP] (or no post-processor), and added tokens all in the vocabulary. Any
     * other (MPNet's RobertaProcessing, an added {@code <mask>} past the vocabulary) is the pipeline's, as its stages say.
     */
    private static boolean isBert(JsonNode root) {
        JsonNode normalizer = root.path("normalizer");
        JsonNode vocab = root.path("model").path("vocab");
        boolean addedInVocab = true;
        for (JsonNode added : root.path("added_tokens")) {
            addedInVocab &= vocab.has(added.path("content").asText());
        }
        return "WordPiece".equals(root.path("model").path("type").asText(""))
                && (normalizer.isMissingNode() || normalizer.isNull() || "BertNormalizer".equals(normalizer.path("type").asText()))
                && "BertPreTokenizer".equals(root.path("pre_tokenizer").path("type").asText("BertPreTokenizer"))
                && isBertTemplate(root.path("post_processor")) && addedInVocab;
    }

    /** BertProcessing, none, or a TemplateProcessing that is BERT's: [CLS] $A:0 [SEP], and [CLS] $A:0 [SEP] $B:1 [SEP]:1. */
    private static boolean isBertTemplate(JsonNode post) {
        if (post.isMissingNode() || post.isNull() || "BertProcessing".equals(post.path("type").asText())) {
            return true;
        }
        if (!"TemplateProcessing".equals(post.path("type").asText())) {
            return false;
        }
        String single = pieces(post.path("single"));
        String pair = pieces(post.path("pair"));
        JsonNode first = post.path("single").path(0).path("SpecialToken").path("id");
        JsonNode last = post.path("single").path(2).path("SpecialToken").path("id");
        return single.equals("S0 A0 S0") && pair.equals("S0 A0 S0 B1 S1") && "[CLS]".equals(first.asText())
                && "[SEP]".equals(last.asText())
                && post.path("pair").path(0).path("SpecialToken").path("id").equals(first)
                && post.path("pair").path(2).path("SpecialToken").path("id").equals(last)
                && post.path("pair").path(4).path("SpecialToken").path("id").equals(last);
    }

    /** A template's pieces in short: S for a special token, A or B for a sequence, each with its type id. */
    private static String pieces(JsonNode template) {
        List<String> out = new ArrayList<>();
        for (JsonNode piece : template) {
            JsonNode special = piece.path("SpecialToken");
            JsonNode sequence = piece.path("Sequence");
            out.add(special.isObject() ? "S" + special.path("type_id").asInt(0)
                    : sequence.isObject() ? sequence.path("id").asText() + sequence.path("type_id").asInt(0) : "?");
        }
        return String.join(" ", out);
    }

    /**
     * Loads a tokenizer.json. Given {@code overrides} (tokenizer_config.json, possibly empty, when
     * loading a model directory), their settings replace its normaliser's, as BertTokenizerFast does;
     * without, the file alone decides, as the tokenizers library's {@code Tokenizer.from_file} does.
     */
    static BertTokenizer loadTokenizerJson(Path file, JsonNode overrides) {
        return loadTokenizerJson(read(file), file.getFileName().toString(), overrides);
    }

    private static BertTokenizer loadTokenizerJson(JsonNode root, String where, JsonNode overrides) {
        if (!root.isObject()) {
            throw new TokenizerException(where + ": expected a JSON object");
        }
        JsonNode model = root.path("model");
        String modelType = model.path("type").asText("");
        if (!"WordPiece".equals(modelType)) {
            throw new TokenizerException(where + ": model type '" + modelType
                    + "' is not supported; vectorbert reads WordPiece (BERT) tokenizers");
        }
        JsonNode vocabNode = model.path("vocab");
        if (!vocabNode.isObject()) {
            throw new TokenizerException(where + ": model.vocab must be an object of token to id");
        }
        Map<String, Integer> tokenIds = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : vocabNode.properties()) {
            if (!e.getValue().canConvertToInt()) {
                throw new TokenizerException(where + ": token '" + e.getKey() + "' has a non-integer id");
            }
            tokenIds.put(e.getKey(), e.getValue().intValue());
        }
        Vocabulary vocab;
        try {
            vocab = Vocabulary.of(tokenIds);
        } catch (TokenizerException e) {
            throw new TokenizerException(where + ": " + e.getMessage());
        }

        TokenizerConfig config = TokenizerConfig.uncased()
                .withContinuingSubwordPrefix(model.path("continuing_subword_prefix").asText("##"))
                .withMaxInputCharsPerWord(model.path("max_input_chars_per_word").asInt(100));
        SpecialTokens special = config.specialTokens().withUnk(model.path("unk_token").asText("[UNK]"));

        JsonNode normalizer = root.path("normalizer");
        if (normalizer.isMissingNode() || normalizer.isNull()) {
            config = config.withLowercase(false).withCleanText(false).withTokenizeChineseChars(false);
        } else if ("BertNormalizer".equals(normalizer.path("type").asText())) {
            boolean lower = normalizer.path("lowercase").asBoolean(true);
            JsonNode strip = normalizer.path("strip_accents");
            config = config.withLowercase(lower)
                    .withStripAccents(strip.isBoolean() ? strip.booleanValue() : lower)
                    .withCleanText(normalizer.path("clean_text").asBoolean(true))
                    .withTokenizeChineseChars(normalizer.path("handle_chinese_chars").asBoolean(true));
        } else {
            throw new TokenizerException(where + ": normalizer type '" + normalizer.path("type").asText()
                    + "' is not supported; vectorbert reads BERT tokenizers (BertNormalizer)");
        }
        String preTokenizer = root.path("pre_tokenizer").path("type").asText("BertPreTokenizer");
        if (!"BertPreTokenizer".equals(preTokenizer)) {
            throw new TokenizerException(where + ": pre_tokenizer type '" + preTokenizer
                    + "' is not supported; vectorbert reads BERT tokenizers (BertPreTokenizer)");
        }
        JsonNode post = root.path("post_processor");
        if ("BertProcessing".equals(post.path("type").asText())) {
            special = special.withCls(post.path("cls").path(0).asText(special.cls()))
                    .withSep(post.path("sep").path(0).asText(special.sep()));
        }
        JsonNode padToken = root.path("padding").path("pad_token");
        if (padToken.isTextual()) {
            special = special.withPad(padToken.asText());
        }
        List<String> additional = new ArrayList<>();
        for (JsonNode added : root.path("added_tokens")) {
            String content = added.path("content").asText();
            if (!vocab.contains(content)) {
                throw new TokenizerException(where + ": added token '" + content
                        + "' is not in the WordPiece vocabulary; such tokenizers are not supported");
            }
            if (added.path("special").asBoolean(false) && !special.all().contains(content)) {
                additional.add(content);
            }
        }
        config = config.withSpecialTokens(special.withAdditional(additional));
        return new BertTokenizer(vocab, overrides == null ? config : applyOverrides(config, overrides));
    }

    /**
     * Applies tokenizer_config.json. Casing, accent stripping and CJK splitting take the file's
     * values or transformers' defaults (lowercase, strip accents as lowercase, split CJK) over
     * whatever tokenizer.json said, exactly as BertTokenizerFast rebuilds its normaliser.
     */
    static TokenizerConfig applyOverrides(TokenizerConfig config, JsonNode o) {
        if (o == null) {
            o = Json.object();
        }
        boolean lower = o.path("do_lower_case").asBoolean(true);
        JsonNode strip = o.path("strip_accents");
        config = config.withLowercase(lower)
                .withStripAccents(strip.isBoolean() ? strip.booleanValue() : lower)
                .withTokenizeChineseChars(o.path("tokenize_chinese_chars").asBoolean(true));
        if (o.path("clean_up_tokenization_spaces").isBoolean()) {
            config = config.withCleanUpTokenizationSpaces(o.get("clean_up_tokenization_spaces").booleanValue());
        }
        JsonNode max = o.path("model_max_length");
        if (max.isNumber()) {
            // Hugging Face writes 1e30 for "no limit".
            double value = max.doubleValue();
            config = config.withModelMaxLength(value >= Integer.MAX_VALUE ? Integer.MAX_VALUE : Math.max(1, (int) value));
        }
        SpecialTokens s = config.specialTokens();
        s = s.withUnk(tokenText(o.path("unk_token"), s.unk()))
                .withSep(tokenText(o.path("sep_token"), s.sep()))
                .withPad(tokenText(o.path("pad_token"), s.pad()))
                .withCls(tokenText(o.path("cls_token"), s.cls()))
                .withMask(tokenText(o.path("mask_token"), s.mask()));
        if (o.path("additional_special_tokens").isArray()) {
            List<String> additional = new ArrayList<>(s.additional());
            for (JsonNode t : o.get("additional_special_tokens")) {
                String text = tokenText(t, null);
                if (text != null && !additional.contains(text)) {
                    additional.add(text);
                }
            }
            s = s.withAdditional(additional);
        }
        return config.withSpecialTokens(s);
    }

    /** A special token given as a string or as an AddedToken object with "content". */
    private static String tokenText(JsonNode node, String fallback) {
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isObject() && node.path("content").isTextual()) {
            return node.get("content").asText();
        }
        return fallback;
    }

    /** special_tokens_map.json first, tokenizer_config.json over it. */
    private static JsonNode merge(JsonNode base, JsonNode over) {
        if (base == null) {
            return over;
        }
        if (over == null) {
            return base;
        }
        var merged = base.deepCopy();
        if (merged instanceof com.fasterxml.jackson.databind.node.ObjectNode object && over.isObject()) {
            object.setAll((com.fasterxml.jackson.databind.node.ObjectNode) over);
            return object;
        }
        return over;
    }

    private static JsonNode readOptional(Path file) {
        return Files.exists(file) ? read(file) : null;
    }

    static JsonNode read(Path file) {
        return TokenizerFiles.read(file);
    }
}
