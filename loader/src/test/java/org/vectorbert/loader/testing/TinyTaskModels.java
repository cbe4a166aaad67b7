package org.vectorbert.loader.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;

/**
 * Tiny BERT task models for the commands' tests: random weights (seeded) in Hugging Face's layout,
 * a WordPiece vocabulary of a few English words, and a task head. The numbers mean nothing; the
 * engine's tests hold the heads to PyTorch, these hold the commands and the server to the library.
 * Shared through the test-jar.
 */
public final class TinyTaskModels {
    private TinyTaskModels() {}

    static final List<String> WORDS = List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "a", "capital", "of", "france",
            "is", "paris", "berlin", "germany", "bananas", "are", "yellow", "what", "who", "wrote", "hamlet", "shakespeare", ".", "?",
            "city", "in", "river", "##s", "john", "lives", "london");
    private static final int HIDDEN = 8;

    /** A BertForSequenceClassification with these labels (pooler and classifier). */
    public static Path sequenceClassifier(Path dir, List<String> labels, String extraConfig) throws IOException {
        Map<String, long[]> head = new LinkedHashMap<>();
        head.put("bert.pooler.dense.weight", new long[] {HIDDEN, HIDDEN});
        head.put("bert.pooler.dense.bias", new long[] {HIDDEN});
        head.put("classifier.weight", new long[] {labels.size(), HIDDEN});
        head.put("classifier.bias", new long[] {labels.size()});
        return write(dir, "BertForSequenceClassification", labels, head, extraConfig);
    }

    /** A BertForTokenClassification with these labels ({@code classifier} at every token, no pooler). */
    public static Path tokenClassifier(Path dir, List<String> labels) throws IOException {
        Map<String, long[]> head = new LinkedHashMap<>();
        head.put("classifier.weight", new long[] {labels.size(), HIDDEN});
        head.put("classifier.bias", new long[] {labels.size()});
        return write(dir, "BertForTokenClassification", labels, head, "");
    }

    /** A BertForQuestionAnswering ({@code qa_outputs}: start and end logits at every token, no pooler). */
    public static Path questionAnswerer(Path dir) throws IOException {
        Map<String, long[]> head = new LinkedHashMap<>();
        head.put("qa_outputs.weight", new long[] {2, HIDDEN});
        head.put("qa_outputs.bias", new long[] {2});
        return write(dir, "BertForQuestionAnswering", List.of("LABEL_0", "LABEL_1"), head, "");
    }

    /**
     * A BERT with every head the server routes to: the masked-LM head (its decoder tied to the word embeddings), the
     * pooler and a one-label {@code classifier} (config.json names both a sequence and a token classifier, so it is read
     * as either), and {@code qa_outputs}.
     */
    public static Path allHeads(Path dir) throws IOException {
        Map<String, long[]> head = new LinkedHashMap<>();
        head.put("bert.pooler.dense.weight", new long[] {HIDDEN, HIDDEN});
        head.put("bert.pooler.dense.bias", new long[] {HIDDEN});
        head.put("classifier.weight", new long[] {1, HIDDEN});
        head.put("classifier.bias", new long[] {1});
        head.put("qa_outputs.weight", new long[] {2, HIDDEN});
        head.put("qa_outputs.bias", new long[] {2});
        head.put("cls.predictions.transform.dense.weight", new long[] {HIDDEN, HIDDEN});
        head.put("cls.predictions.transform.dense.bias", new long[] {HIDDEN});
        head.put("cls.predictions.transform.LayerNorm.weight", new long[] {HIDDEN});
        head.put("cls.predictions.transform.LayerNorm.bias", new long[] {HIDDEN});
        head.put("cls.predictions.bias", new long[] {WORDS.size()});
        return write(dir, "BertForSequenceClassification\", \"BertForTokenClassification", List.of("LABEL_0"), head, "");
    }

    private static Path write(Path dir, String architecture, List<String> labels, Map<String, long[]> head, String extraConfig)
            throws IOException {
        Files.createDirectories(dir);
        Files.write(dir.resolve("vocab.txt"), WORDS);
        StringBuilder id2label = new StringBuilder();
        StringBuilder label2id = new StringBuilder();
        for (int i = 0; i < labels.size(); i++) {
            id2label.append(i == 0 ? "" : ", ").append('"').append(i).append("\": \"").append(labels.get(i)).append('"');
            label2id.append(i == 0 ? "" : ", ").append('"').append(labels.get(i)).append("\": ").append(i);
        }
        Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"bert\", \"architectures\": [\"" + architecture + "\"], "
                + "\"hidden_size\": " + HIDDEN + ", \"num_attention_heads\": 2, \"num_hidden_layers\": 1, \"intermediate_size\": 16, "
                + "\"vocab_size\": " + WORDS.size() + ", \"max_position_embeddings\": 32, \"id2label\": {" + id2label + "}, "
                + "\"label2id\": {" + label2id + "}" + extraConfig + "}");
        Map<String, long[]> tensors = new LinkedHashMap<>();
        tensors.put("bert.embeddings.word_embeddings.weight", new long[] {WORDS.size(), HIDDEN});
        tensors.put("bert.embeddings.position_embeddings.weight", new long[] {32, HIDDEN});
        tensors.put("bert.embeddings.token_type_embeddings.weight", new long[] {2, HIDDEN});
        tensors.put("bert.embeddings.LayerNorm.weight", new long[] {HIDDEN});
        tensors.put("bert.embeddings.LayerNorm.bias", new long[] {HIDDEN});
        String l = "bert.encoder.layer.0.";
        for (String m : List.of("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense")) {
            tensors.put(l + m + ".weight", new long[] {HIDDEN, HIDDEN});
            tensors.put(l + m + ".bias", new long[] {HIDDEN});
        }
        tensors.put(l + "attention.output.LayerNorm.weight", new long[] {HIDDEN});
        tensors.put(l + "attention.output.LayerNorm.bias", new long[] {HIDDEN});
        tensors.put(l + "intermediate.dense.weight", new long[] {16, HIDDEN});
        tensors.put(l + "intermediate.dense.bias", new long[] {16});
        tensors.put(l + "output.dense.weight", new long[] {HIDDEN, 16});
        tensors.put(l + "output.dense.bias", new long[] {HIDDEN});
        tensors.put(l + "output.LayerNorm.weight", new long[] {HIDDEN});
        tensors.put(l + "output.LayerNorm.bias", new long[] {HIDDEN});
        tensors.putAll(head);
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        tensors.forEach((name, shape) -> specs.add(new SafetensorsWriter.Spec(name, DType.F32, shape)));
        SplittableRandom random = new SplittableRandom(29);
        try (SafetensorsWriter w = new SafetensorsWriter(dir.resolve("model.safetensors"), specs, Map.of())) {
            for (SafetensorsWriter.Spec s : specs) {
                float[] values = new float[(int) Tensor.elementCount(s.shape())];
                boolean layerNormWeight = s.name().endsWith("LayerNorm.weight");
                for (int i = 0; i < values.length; i++) {
                    values[i] = (float) (layerNormWeight ? 1 + 0.1 * random.nextGaussian() : 0.5 * random.nextGaussian());
                }
                w.write(values);
            }
            w.finish();
        }
        return dir;
    }
}
