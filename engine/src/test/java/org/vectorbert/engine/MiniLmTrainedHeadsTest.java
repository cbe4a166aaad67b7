package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;

/**
 * Three heads trained on the real all-MiniLM-L6-v2 encoder (frozen) from local text
 * (tools/torch-reference/train_minilm_heads.py): a cross-encoder, a licence classifier and a number/date tagger. Each
 * is assembled here into transformers' sharded layout of BertForSequenceClassification / BertForTokenClassification:
 * the encoder shard written from langchain4j's MiniLM jar (converted, every name given the {@code bert.} prefix), the
 * committed head shard and config beside it. Every held-out example must get the reference's prediction, logits and
 * scores within 1e-4, so the held-out accuracy vectorbert reaches is the one PyTorch reported (accuracy.json).
 */
@Tag("heavy")
class MiniLmTrainedHeadsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ENCODER_SHARD = "model-00001-of-00002.safetensors";

    @TempDir
    static Path temp;

    private static Path encoderShard;

    /** MiniLM's encoder as a {@code Bert*} model's shard: bert.* names, its pooler left to the head shard. */
    @BeforeAll
    static void writeEncoderShard() {
        Path minilm = RealModels.allMiniLm();
        encoderShard = temp.resolve(ENCODER_SHARD);
        try (SafetensorsFile source = SafetensorsFile.open(minilm.resolve("model.safetensors"))) {
            List<Tensor> tensors = source.tensors().values().stream()
                    .filter(t -> !t.name().startsWith("pooler.")).sorted(java.util.Comparator.comparing(Tensor::name)).toList();
            List<SafetensorsWriter.Spec> specs = tensors.stream()
                    .map(t -> new SafetensorsWriter.Spec("bert." + t.name(), t.dtype(), t.shape())).toList();
            try (SafetensorsWriter writer = new SafetensorsWriter(encoderShard, specs, Map.of("format", "pt"))) {
                tensors.forEach(t -> writer.write(t.data()));
                writer.finish();
            }
        }
    }

    private static Path resource(String name) {
        try {
            return Path.of(MiniLmTrainedHeadsTest.class.getResource("/minilm-heads/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A model directory: the head's committed files, the encoder shard and MiniLM's tokenizer. */
    private static String model(String head) throws IOException {
        Path dir = Files.createDirectories(temp.resolve(head));
        try (var files = Files.list(resource(head))) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (!name.equals("heldout.jsonl") && !name.equals("accuracy.json")) {
                    Files.copy(f, dir.resolve(name));
                }
            }
        }
        Files.createSymbolicLink(dir.resolve(ENCODER_SHARD), encoderShard);
        Files.copy(RealModels.allMiniLm().resolve("tokenizer.json"), dir.resolve("tokenizer.json"));
        return dir.toString();
    }

    private static List<JsonNode> heldOut(String head) throws IOException {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(resource(head + "/heldout.jsonl"))) {
            rows.add(JSON.readTree(line));
        }
        return rows;
    }

    private static JsonNode accuracy(String head) throws IOException {
        return JSON.readTree(resource(head + "/accuracy.json").toFile());
    }

    private static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }

    @Test
    void crossEncoderRanksTheHeldOutQueriesAsPyTorch() throws IOException {
        Reranker reranker = Reranker.load(model("rerank"));
        List<JsonNode> rows = heldOut("rerank");
        int pairsRight = 0;
        int pairs = 0;
        int top1 = 0;
        for (JsonNode row : rows) {
            List<String> passages = strings(row.get("passages"));
            // Raw scores (the logits): one pass a query. The sigmoid of 45 is 1 in float32, so it would hide differences.
            String where = "query " + row.get("query").asText();
            float[] logits = reranker.scores(row.get("query").asText(), passages, true);
            for (int i = 0; i < passages.size(); i++) {
                double want = row.get("logits").get(i).asDouble();
                // Logits reach 45 here: float32 agrees to about 2e-5 of a logit (1.15e-4 measured at -6.3), not to 1e-4 absolute.
                assertEquals(want, logits[i], 1e-4 * Math.max(1, Math.abs(want)), where + " passage " + i);
                assertEquals(want > 0, logits[i] > 0, where + " passage " + i + " side of 0");
                pairsRight += (logits[i] > 0) == (i == row.get("positive").asInt()) ? 1 : 0;
                pairs++;
            }
            // The top passage, as rank's order (by score, ties in the passages' order) would put it first.
            int best = 0;
            for (int i = 1; i < logits.length; i++) {
                best = logits[i] > logits[best] ? i : best;
            }
            int wantBest = 0;
            for (int i = 1; i < logits.length; i++) {
                wantBest = row.get("logits").get(i).asDouble() > row.get("logits").get(wantBest).asDouble() ? i : wantBest;
            }
            assertEquals(wantBest, best, where + " top passage");
            top1 += best == row.get("positive").asInt() ? 1 : 0;
        }
        JsonNode reference = accuracy("rerank");
        assertEquals(reference.get("heldout_pairs").asInt(), pairs);
        assertEquals(reference.get("pair_accuracy").asDouble(), (double) pairsRight / pairs, 1e-12);
        assertEquals(reference.get("top1_accuracy").asDouble(), (double) top1 / rows.size(), 1e-12);
        // Chance is 1 in 5: a head that learnt nothing, or an encoder read wrong, falls far below this.
        assertTrue(top1 > 0.6 * rows.size(), top1 + " of " + rows.size() + " queries rank their own paragraph first");
    }

    @Test
    void licenceClassifierLabelsTheHeldOutLinesAsPyTorch() throws IOException {
        TextClassifier classifier = TextClassifier.load(model("licence"));
        List<JsonNode> rows = heldOut("licence");
        List<String> texts = rows.stream().map(r -> r.get("text").asText()).toList();
        int n = classifier.labels().count();
        float[] logits = classifier.logits(texts, null, false);
        List<TextClassifier.Result> labelled = classifier.classify(texts, null, TextClassifier.Function.SOFTMAX, 1, false);
        int right = 0;
        for (int t = 0; t < rows.size(); t++) {
            JsonNode row = rows.get(t);
            for (int i = 0; i < n; i++) {
                assertEquals(row.get("logits").get(i).asDouble(), logits[t * n + i], 1e-4, texts.get(t) + " logit " + i);
            }
            String predicted = labelled.get(t).labels().getFirst().label();
            assertEquals(row.get("predicted").asText(), predicted, texts.get(t));
            right += predicted.equals(row.get("label").asText()) ? 1 : 0;
        }
        JsonNode reference = accuracy("licence");
        assertEquals(reference.get("heldout_lines").asInt(), rows.size());
        assertEquals(reference.get("accuracy").asDouble(), (double) right / rows.size(), 1e-12);
        assertTrue(right > reference.get("majority_class_accuracy").asDouble() * rows.size() + 0.2 * rows.size(),
                right + " of " + rows.size() + " lines");
    }

    @Test
    void numberTaggerTagsTheHeldOutTokensAsPyTorch() throws IOException {
        TokenClassifier tagger = TokenClassifier.load(model("numbers"));
        List<JsonNode> rows = heldOut("numbers");
        List<String> texts = rows.stream().map(r -> r.get("text").asText()).toList();
        List<List<TokenClassifier.Entity>> tagged = tagger.entities(texts, TokenClassifier.Aggregation.NONE, Set.of());
        int right = 0;
        int tokens = 0;
        int tagged0 = 0;
        int taggedRight = 0;
        for (int t = 0; t < rows.size(); t++) {
            JsonNode row = rows.get(t);
            List<TokenClassifier.Entity> got = tagged.get(t);
            String where = texts.get(t);
            assertEquals(row.get("index").size(), got.size(), where + ": " + got);
            for (int k = 0; k < got.size(); k++) {
                TokenClassifier.Entity e = got.get(k);
                assertEquals(row.get("index").get(k).asInt(), e.index(), where + " token " + k);
                assertEquals(row.get("tokens").get(k).asText(), e.word(), where + " token " + k);
                assertEquals(row.get("predicted").get(k).asText(), e.entity(), where + " token " + k + " " + e.word());
                assertEquals(row.get("scores").get(k).asDouble(), e.score(), 1e-4, where + " score " + k);
                String gold = row.get("gold").get(k).asText();
                right += gold.equals(e.entity()) ? 1 : 0;
                tokens++;
                if (!gold.equals("O")) {
                    tagged0++;
                    taggedRight += gold.equals(e.entity()) ? 1 : 0;
                }
            }
        }
        JsonNode reference = accuracy("numbers");
        assertEquals(reference.get("heldout_tokens").asInt(), tokens);
        assertEquals(reference.get("token_accuracy").asDouble(), (double) right / tokens, 1e-12);
        assertEquals(reference.get("tagged_token_accuracy").asDouble(), (double) taggedRight / tagged0, 1e-12);
        // Tagging every token O would get none of the dates' and numbers' tokens right, and fewer tokens in all.
        assertTrue(taggedRight > 0.7 * tagged0, taggedRight + " of " + tagged0 + " dates' and numbers' tokens");
        assertTrue(right > tokens - tagged0, right + " of " + tokens + " tokens");
    }
}
