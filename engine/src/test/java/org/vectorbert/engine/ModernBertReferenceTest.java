package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * ModernBERT against the independent PyTorch reference (tools/torch-reference/make_modernbert_fixtures.py; the cases and
 * what transformers does are in architectures/modernbert/NOTES.md): the tokenizer's ids, the encoder and each head at
 * the real positions (padded ones hold what transformers' eager path computes there, which its other paths do not),
 * both config spellings, a 3,000-token input, the sentence-transformers directories, and configs that do not fit.
 */
class ModernBertReferenceTest {
    private static final double TOLERANCE = 1e-4;
    private static final int PAD = 377;
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(ModernBertReferenceTest.class.getResource("/architectures/modernbert/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"modernbert-mlm", "modernbert-mlm-rope-parameters", "modernbert-seqcls-cls", "modernbert-seqcls-mean",
        "modernbert-rerank", "modernbert-tokcls", "modernbert-qa", "modernbert-sentence-mean", "modernbert-sentence-cls", "modernbert-long"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        Path dir = resource(name);
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : JSON.readTree(dir.resolve("inputs.json").toFile())) {
            String prompt = c.path("prompt").asText("");
            for (int s = 0; s < c.get("texts").size(); s++) {
                JsonNode text = c.get("texts").get(s);
                int[] ids = text.isArray() ? tokenizer.encode(text.get(0).asText(), text.get(1).asText()).ids()
                        : tokenizer.encode(prompt + text.asText()).ids();
                assertArrayEquals(unpadded(c, s), ids, name + " " + c.get("name").asText() + " text " + s);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"modernbert-mlm", "modernbert-mlm-rope-parameters", "modernbert-seqcls-cls", "modernbert-seqcls-mean",
        "modernbert-rerank", "modernbert-tokcls", "modernbert-qa", "modernbert-long"})
    void encoderAndHeadsMatchPyTorch(String name) throws IOException {
        Path dir = resource(name);
        Encoder model = Encoder.load(dir);
        assertTrue(model instanceof ModernBertModel, name);
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                Batch batch = FamilyReferenceTest.batch(cases.get(k), PAD);
                int[] every = IntStream.range(0, batch.rows()).toArray();
                String at = name + " case" + k;
                String c = "case" + k + ".";
                if (name.endsWith("-mlm") || name.endsWith("-rope-parameters")) {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withMlmLogitsAt(every));
                    assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    assertRealClose(expected, c + "logits", out.mlmLogits(), batch, at);
                } else if (name.startsWith("modernbert-seqcls") || name.endsWith("-rerank")) {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.SEQUENCE_CLASSIFIER, null));
                    assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    assertClose(expected, c + "logits", out.heads().get(HeadKind.SEQUENCE_CLASSIFIER), at);
                } else if (name.endsWith("-tokcls")) {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.TOKEN_CLASSIFIER, every));
                    assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    assertRealClose(expected, c + "logits", out.heads().get(HeadKind.TOKEN_CLASSIFIER), batch, at);
                } else if (name.endsWith("-qa")) {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.QUESTION_ANSWERING, every));
                    assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    float[] logits = out.heads().get(HeadKind.QUESTION_ANSWERING);
                    float[] start = new float[batch.rows()];
                    float[] end = new float[batch.rows()];
                    for (int r = 0; r < batch.rows(); r++) {
                        start[r] = logits[2 * r];
                        end[r] = logits[2 * r + 1];
                    }
                    assertRealClose(expected, c + "start_logits", start, batch, at);
                    assertRealClose(expected, c + "end_logits", end, batch, at);
                } else {
                    Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState());
                    assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                    // The pass that computes no padding gives the real rows the same floats.
                    float[] packed = model.forward(batch, Encoder.Request.lastHiddenState(), o -> o.lastHiddenState().clone());
                    assertRealClose(expected, c + "last_hidden_state", packed, batch, at + " (packed)");
                }
            }
        }
    }

    /** A one-logit classifier (gte-reranker-modernbert-base's shape) reranks: each pair's score is the sigmoid of its logit. */
    @Test
    void aCrossEncoderRerankAsTheReferenceSays() throws IOException {
        Path dir = resource("modernbert-rerank");
        JsonNode pair = JSON.readTree(dir.resolve("inputs.json").toFile()).get(1);
        Reranker reranker = Reranker.load(dir.toString());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case1.logits").toFloatArray();
            for (int s = 0; s < pair.get("texts").size(); s++) {
                JsonNode texts = pair.get("texts").get(s);
                String query = texts.get(0).asText();
                float[] raw = reranker.scores(query, List.of(texts.get(1).asText()), true);
                float[] scores = reranker.scores(query, List.of(texts.get(1).asText()), false);
                assertEquals(logits[s], raw[0], 1e-4, "raw score of pair " + s);
                assertEquals(1 / (1 + Math.exp(-logits[s])), scores[0], 1e-4, "score of pair " + s);
            }
        }
    }

    @Test
    void theTransformers5SpellingGivesTheSameBits() throws IOException {
        Encoder legacy = Encoder.load(resource("modernbert-mlm"));
        Encoder newer = Encoder.load(resource("modernbert-mlm-rope-parameters"));
        assertEquals(legacy.config(), newer.config());
        for (JsonNode c : JSON.readTree(resource("modernbert-mlm").resolve("inputs.json").toFile())) {
            Batch batch = FamilyReferenceTest.batch(c, PAD);
            Encoder.Request request = Encoder.Request.lastHiddenState().withMlmLogitsAt(IntStream.range(0, batch.rows()).toArray());
            Encoder.Output a = legacy.forward(batch, request);
            Encoder.Output b = newer.forward(batch, request);
            assertArrayEquals(a.lastHiddenState(), b.lastHiddenState());
            assertArrayEquals(a.mlmLogits(), b.mlmLogits());
        }
    }

    /** The tasks run ModernBERT through the Encoder seam unchanged: fill-mask's top 5 and a mean-pooling classifier's logits. */
    @Test
    void theTasksRunItAsTheReferenceSays() throws IOException {
        Path mlm = resource("modernbert-mlm");
        JsonNode c = JSON.readTree(mlm.resolve("inputs.json").toFile()).get(0);
        List<String> texts = new ArrayList<>();
        c.get("texts").forEach(t -> texts.add(t.asText()));
        List<FillMask.Prediction> predictions = FillMask.load(mlm.toString()).predict(texts);
        try (SafetensorsFile expected = SafetensorsFile.open(mlm.resolve("expected.safetensors"))) {
            var logits = expected.tensor("case0.logits");
            float[] all = logits.toFloatArray();
            int length = (int) logits.shape()[1];
            for (int s = 0; s < texts.size(); s++) {
                int at = -1;
                for (int i = 0; i < length; i++) {
                    at = c.get("input_ids").get(s).get(i).asInt() == 378 ? i : at;
                }
                int row = (s * length + at) * 384;
                double max = Double.NEGATIVE_INFINITY;
                double sum = 0;
                for (int v = 0; v < 384; v++) {
                    max = Math.max(max, all[row + v]);
                }
                for (int v = 0; v < 384; v++) {
                    sum += Math.exp(all[row + v] - max);
                }
                double total = sum;
                double top = max;
                int[] best = IntStream.range(0, 384).boxed().sorted((a, b) -> Float.compare(all[row + b], all[row + a]))
                        .limit(5).mapToInt(Integer::intValue).toArray();
                List<FillMask.Candidate> got = predictions.get(s).masks().getFirst();
                assertArrayEquals(best, got.stream().mapToInt(FillMask.Candidate::token).toArray(), "text " + s);
                for (FillMask.Candidate k : got) {
                    assertEquals(Math.exp(all[row + k.token()] - top) / total, k.score(), 1e-4, "text " + s + " token " + k.token());
                }
            }
        }
        Path seqcls = resource("modernbert-seqcls-mean");
        TextClassifier classifier = TextClassifier.load(seqcls.toString());
        JsonNode cases = JSON.readTree(seqcls.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(seqcls.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                List<String> first = new ArrayList<>();
                List<String> second = new ArrayList<>();
                for (JsonNode t : cases.get(k).get("texts")) {
                    first.add(t.isArray() ? t.get(0).asText() : t.asText());
                    second.add(t.isArray() ? t.get(1).asText() : null);
                }
                float[] got = classifier.logits(first, second.contains(null) ? null : second, false);
                assertClose(expected, "case" + k + ".logits", got, "TextClassifier case" + k);
            }
        }
    }

    /** The JVM's plain first pass gives the vector kernels' bits in every output a request can ask for. */
    @ParameterizedTest
    @ValueSource(strings = {"modernbert-mlm", "modernbert-qa"})
    void aPlainPassGivesTheVectorBits(String name) throws IOException {
        Encoder model = Encoder.load(resource(name));
        Batch batch = FamilyReferenceTest.batch(JSON.readTree(resource(name).resolve("inputs.json").toFile()).get(0), PAD);
        HeadKind head = name.endsWith("-qa") ? HeadKind.QUESTION_ANSWERING : HeadKind.MASKED_LM;
        Encoder.Request request = Encoder.Request.lastHiddenState().withAllHiddenStates().withAttentions().withQueriesAndKeys()
                .withHead(head, IntStream.range(0, batch.rows()).toArray());
        Encoder.Output vector = model.forward(batch, request);
        Encoder.Output plain = PlainKernels.runPlain(() -> model.forward(batch, request));
        assertArrayEquals(vector.lastHiddenState(), plain.lastHiddenState());
        assertEquals(model.config().numHiddenLayers() + 1, vector.hiddenStates().size());
        assertArrayEquals(vector.lastHiddenState(), vector.hiddenStates().getLast(), "the last of the hidden states is after final_norm");
        for (int l = 0; l < vector.hiddenStates().size(); l++) {
            assertArrayEquals(vector.hiddenStates().get(l), plain.hiddenStates().get(l), "hidden state " + l);
        }
        for (int l = 0; l < vector.attentions().size(); l++) {
            assertArrayEquals(vector.attentions().get(l), plain.attentions().get(l), "attentions of layer " + l);
            assertArrayEquals(vector.queries().get(l), plain.queries().get(l), "queries of layer " + l);
            assertArrayEquals(vector.keys().get(l), plain.keys().get(l), "keys of layer " + l);
        }
        assertArrayEquals(vector.heads().get(head), plain.heads().get(head), head.title());
        assertArrayEquals(model.forward(batch, Encoder.Request.lastHiddenState()).lastHiddenState(), vector.lastHiddenState(),
                "asking for more changes no float");
    }

    /** bfloat16 matrices (the word embeddings stay float32; the tied decoder is packed again at bf16) stay near float32. */
    @Test
    void bf16StaysNearTheReference() throws IOException {
        Path dir = resource("modernbert-mlm");
        Encoder model = Encoder.load(dir, Precision.BF16);
        assertEquals(Precision.BF16, model.precision());
        JsonNode c = JSON.readTree(dir.resolve("inputs.json").toFile()).get(0);
        Batch batch = FamilyReferenceTest.batch(c, PAD);
        Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withMlmLogitsAt(0));
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] want = expected.tensor("case0.last_hidden_state").toFloatArray();
            double worst = 0;
            for (int i = 0; i < batch.lengths()[0] * 32; i++) {
                worst = Math.max(worst, Math.abs(want[i] - out.lastHiddenState()[i]));
            }
            assertTrue(worst < 0.1, "bf16 differs by " + worst);
            float[] logits = expected.tensor("case0.logits").toFloatArray();
            for (int v = 0; v < 384; v++) {
                assertEquals(logits[v], out.mlmLogits()[v], 0.1, "logit " + v);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"modernbert-sentence-mean", "modernbert-sentence-cls"})
    void sentenceTransformersDirectoriesGiveTheReferenceEmbeddings(String name) throws IOException {
        Path dir = resource(name);
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                String at = name + " case" + k;
                EmbeddingOptions options = c.has("prompt_name") ? EmbeddingOptions.defaults().withPromptName(c.get("prompt_name").asText())
                        : EmbeddingOptions.defaults();
                Embeddings embeddings = Embeddings.load(dir.toString(), options);
                Batch batch = FamilyReferenceTest.batch(c, PAD);
                Encoder.Output out = embeddings.model().forward(batch, Encoder.Request.lastHiddenState());
                assertRealClose(expected, "case" + k + ".token_embeddings", out.lastHiddenState(), batch, at);
                List<String> texts = new ArrayList<>();
                c.get("texts").forEach(t -> texts.add(t.asText()));
                List<float[]> vectors = embeddings.embed(texts);
                float[] all = concat(vectors);
                assertClose(expected, "case" + k + ".sentence_embedding", all, at);
            }
        }
    }

    @Test
    void aConfigThatContradictsTheWeightsNamesTheTensor(@TempDir Path tmp) throws IOException {
        assertRefused(tmp.resolve("a"), "modernbert-qa", c -> c.put("intermediate_size", 40), "mlp.Wi.weight has shape [96, 32], expected [80, 32]");
        assertRefused(tmp.resolve("b"), "modernbert-qa", c -> c.put("attention_bias", false), "model.layers.0.attn.Wo.bias is not part of");
        assertRefused(tmp.resolve("c"), "modernbert-qa", c -> c.put("num_hidden_layers", 1), "model.layers.1.");
        assertRefused(tmp.resolve("d"), "modernbert-mlm", c -> c.put("vocab_size", 400), "model.embeddings.tok_embeddings.weight");
    }

    @Test
    void anUnknownKeySpellingIsRefusedByName(@TempDir Path tmp) throws IOException {
        assertRefused(tmp.resolve("a"), "modernbert-mlm", c -> c.put("rope_theta", 10000.0), "rope_theta");
        assertRefused(tmp.resolve("b"), "modernbert-mlm-rope-parameters",
                c -> ((ObjectNode) c.get("rope_parameters")).putObject("chunked_attention"), "rope_parameters.chunked_attention");
        assertRefused(tmp.resolve("c"), "modernbert-mlm-rope-parameters",
                c -> ((ObjectNode) c.get("rope_parameters").get("full_attention")).put("factor", 2.0), "rope_parameters.full_attention.factor");
        assertRefused(tmp.resolve("d"), "modernbert-mlm-rope-parameters",
                c -> c.putArray("layer_types").add("full_attention").add("global").add("full_attention"), "layer_types");
    }

    /** A copy of fixture {@code name} with its config.json changed by {@code edit} must fail to load, naming {@code what}. */
    private static void assertRefused(Path dir, String name, Consumer<ObjectNode> edit, String what) throws IOException {
        Files.createDirectories(dir);
        for (String f : List.of("model.safetensors", "tokenizer.json")) {
            Files.copy(resource(name).resolve(f), dir.resolve(f));
        }
        ObjectNode config = (ObjectNode) JSON.readTree(resource(name).resolve("config.json").toFile());
        edit.accept(config);
        JSON.writeValue(dir.resolve("config.json").toFile(), config);
        LoaderException e = assertThrows(LoaderException.class, () -> Encoder.load(dir));
        assertTrue(e.getMessage().contains(what), e.getMessage());
    }

    /** The vectors side by side, as the reference's [n, dim] tensor holds them. */
    static float[] concat(List<float[]> vectors) {
        float[] all = new float[vectors.size() * vectors.getFirst().length];
        for (int i = 0; i < vectors.size(); i++) {
            System.arraycopy(vectors.get(i), 0, all, i * vectors.get(i).length, vectors.get(i).length);
        }
        return all;
    }

    static void assertClose(SafetensorsFile expected, String tensor, float[] actual, String at) {
        double d = ReferenceTest.maxAbsDiff(expected, tensor, actual);
        assertTrue(d <= TOLERANCE, at + ": " + tensor + " differs by " + d);
    }

    /** Expected [n, length, width] against actual [n, batch length, width], at each sequence's real positions only. */
    static void assertRealClose(SafetensorsFile expected, String tensor, float[] actual, Batch batch, String at) {
        var t = expected.tensor(tensor);
        float[] want = t.toFloatArray();
        int n = (int) t.shape()[0];
        int length = (int) t.shape()[1];
        int width = t.shape().length == 3 ? (int) t.shape()[2] : 1;
        assertEquals(batch.size(), n, at + " " + tensor);
        double worst = 0;
        for (int b = 0; b < n; b++) {
            for (int i = 0; i < batch.lengths()[b]; i++) {
                for (int c = 0; c < width; c++) {
                    float a = actual[(b * batch.length() + i) * width + c];
                    worst = Math.max(worst, Math.abs(want[(b * length + i) * width + c] - a));
                    if (Float.isNaN(a)) {
                        worst = Double.POSITIVE_INFINITY;
                    }
                }
            }
        }
        assertTrue(worst <= TOLERANCE, at + ": " + tensor + " differs by " + worst + " at real positions");
    }

    private static int[] unpadded(JsonNode c, int s) {
        JsonNode ids = c.get("input_ids").get(s);
        JsonNode mask = c.get("attention_mask").get(s);
        return IntStream.range(0, ids.size()).filter(i -> mask.get(i).asInt() == 1).map(i -> ids.get(i).asInt()).toArray();
    }
}
