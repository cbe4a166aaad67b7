package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * SPLADE pooling against the PyTorch reference's MLM logits of the family fixtures: for every single text of
 * every case, each vocabulary entry's value is the largest log(1 + relu(logit)) over the text's positions,
 * computed here from the reference logits, and an entry is present exactly where that is above zero.
 */
class SparseEmbeddingsTest {
    @ParameterizedTest
    @ValueSource(strings = {"distilbert-mlm", "electra-generator-mlm", "roberta-mlm", "camembert-mlm"})
    void spladePoolsTheReferenceLogits(String name, @TempDir Path dir) throws IOException {
        Path weights = FamilyReferenceTest.resource(name);
        for (String f : List.of("config.json", "model.safetensors")) {
            Files.copy(weights.resolve(f), dir.resolve(f));
        }
        int vocab = org.vectorbert.loader.BertConfig.load(weights.resolve("config.json")).vocabSize();
        Files.writeString(dir.resolve("tokenizer.json"), name.startsWith("roberta") ? NumberedTokenizer.roberta(vocab, 0, 2)
                : name.startsWith("camembert") ? NumberedTokenizer.roberta(vocab, 5, 6) : NumberedTokenizer.bert(vocab));
        SparseEmbeddings splade = SparseEmbeddings.load(dir.toString());
        boolean bert = !name.startsWith("roberta") && !name.startsWith("camembert");
        Tokenizer tokenizer = Tokenizer.fromTokenizerJson(dir.resolve("tokenizer.json"));
        assertEquals(vocab, splade.dimension());
        JsonNode cases = new ObjectMapper().readTree(weights.resolve("inputs.json").toFile());
        List<String> texts = new ArrayList<>();
        List<double[]> expected = new ArrayList<>();
        try (SafetensorsFile reference = SafetensorsFile.open(weights.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                float[] logits = reference.tensor("case" + k + ".logits").toFloatArray();
                int sequences = c.get("input_ids").size();
                int width = c.get("input_ids").get(0).size();
                for (int s = 0; s < sequences; s++) {
                    int length = 0;
                    for (JsonNode m : c.get("attention_mask").get(s)) {
                        length += m.asInt();
                    }
                    int[] ids = new int[length];
                    for (int t = 0; t < length; t++) {
                        ids[t] = c.get("input_ids").get(s).get(t).asInt();
                    }
                    String text = NumberedTokenizer.text(Arrays.copyOfRange(ids, 1, length - 1), bert
                            ? java.util.Map.of(103, "[MASK]") : java.util.Map.of(vocab - 1, "<mask>"));
                    if (!Arrays.equals(ids, tokenizer.encode(text).ids())) {
                        continue;                   // a pair, or special tokens inside: not a single text
                    }
                    double[] want = new double[vocab];
                    for (int t = 0; t < length; t++) {
                        for (int v = 0; v < vocab; v++) {
                            want[v] = Math.max(want[v], Math.log1p(Math.max(0, logits[(s * width + t) * vocab + v])));
                        }
                    }
                    texts.add(text);
                    expected.add(want);
                }
            }
        }
        assertTrue(texts.size() >= 2, name + ": " + texts.size() + " single texts");
        List<SparseEmbeddings.SparseVector> got = splade.embed(texts);
        for (int i = 0; i < texts.size(); i++) {
            float[] dense = new float[vocab];
            SparseEmbeddings.SparseVector v = got.get(i);
            for (int k = 0; k < v.size(); k++) {
                assertTrue(v.values()[k] > 0, "only nonzero entries");
                assertTrue(k == 0 || v.indices()[k] > v.indices()[k - 1], "indices increase");
                dense[v.indices()[k]] = v.values()[k];
            }
            for (int d = 0; d < vocab; d++) {
                assertEquals(expected.get(i)[d], dense[d], 1e-4, name + " text " + i + ", entry " + d);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aModelWithoutAnMlmHeadIsRefused(@TempDir Path dir) throws IOException {
        Path weights = FamilyReferenceTest.resource("roberta-seqcls");
        for (String f : List.of("config.json", "model.safetensors")) {
            Files.copy(weights.resolve(f), dir.resolve(f));
        }
        int vocab = org.vectorbert.loader.BertConfig.load(weights.resolve("config.json")).vocabSize();
        Files.writeString(dir.resolve("tokenizer.json"), NumberedTokenizer.roberta(vocab, 0, 2));
        EngineException e = assertThrows(EngineException.class, () -> SparseEmbeddings.load(dir.toString()));
        assertTrue(e.getMessage().contains("masked"), e.getMessage());
    }
}
