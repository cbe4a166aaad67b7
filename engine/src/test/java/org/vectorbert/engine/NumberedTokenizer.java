package org.vectorbert.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A tokenizer.json for the family fixtures' random-weight models: WordPiece over tokens "t0", "t1",
 * ... split on whitespace, the family's special tokens at their ids and its template, so that a text
 * "t69 <mask> t127" is exactly the ids [0, 69, 159, 127, 2] a reference case holds.
 */
final class NumberedTokenizer {
    private NumberedTokenizer() {}

    /** BERT's: [PAD] 0, [UNK] 100, [CLS] 101, [SEP] 102, [MASK] 103, with BertProcessing. */
    static String bert(int size) {
        ObjectNode post = new ObjectMapper().createObjectNode().put("type", "BertProcessing");
        post.putArray("sep").add("[SEP]").add(102);
        post.putArray("cls").add("[CLS]").add(101);
        return json(size, Map.of(0, "[PAD]", 100, "[UNK]", 101, "[CLS]", 102, "[SEP]", 103, "[MASK]"), "[UNK]", post);
    }

    /** RoBERTa's: {@code <s>} at {@code bos}, {@code <pad>} 1, {@code </s>} at {@code eos}, {@code <unk>} 3, {@code <mask>} last. */
    static String roberta(int size, int bos, int eos) {
        ObjectNode post = new ObjectMapper().createObjectNode().put("type", "RobertaProcessing").put("trim_offsets", true)
                .put("add_prefix_space", false);
        post.putArray("sep").add("</s>").add(eos);
        post.putArray("cls").add("<s>").add(bos);
        return json(size, Map.of(bos, "<s>", 1, "<pad>", eos, "</s>", 3, "<unk>", size - 1, "<mask>"), "<unk>", post);
    }

    /** The text whose encoding is {@code ids} without its special tokens: "t5 t17 ...", a special token by its name. */
    static String text(int[] ids, Map<Integer, String> specials) {
        return IntStream.of(ids).mapToObj(i -> specials.getOrDefault(i, "t" + i)).collect(Collectors.joining(" "));
    }

    private static String json(int size, Map<Integer, String> specials, String unk, ObjectNode post) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("version", "1.0");
        root.putNull("truncation");
        root.putNull("padding");
        var added = root.putArray("added_tokens");
        for (Map.Entry<Integer, String> e : new TreeMap<>(specials).entrySet()) {
            boolean mask = e.getValue().contains("ask");
            added.addObject().put("id", e.getKey()).put("content", e.getValue()).put("single_word", false).put("lstrip", mask)
                    .put("rstrip", false).put("normalized", false).put("special", true);
        }
        root.putNull("normalizer");
        root.putObject("pre_tokenizer").put("type", "WhitespaceSplit");
        root.set("post_processor", post);
        root.putObject("decoder").put("type", "WordPiece").put("prefix", "##").put("cleanup", true);
        ObjectNode model = root.putObject("model");
        model.put("type", "WordPiece").put("unk_token", unk).put("continuing_subword_prefix", "##").put("max_input_chars_per_word", 100);
        ObjectNode vocab = model.putObject("vocab");
        for (int i = 0; i < size; i++) {
            vocab.put(specials.getOrDefault(i, "t" + i), i);
        }
        return root.toString();
    }
}
