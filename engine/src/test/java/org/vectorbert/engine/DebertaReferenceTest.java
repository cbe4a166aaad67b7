package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.URISyntaxException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * DeBERTa-v2 and v3 against the independent PyTorch reference written from transformers' modeling_deberta_v2.py
 * (tools/torch-reference/make_deberta_fixtures.py; the cases and the semantics are in architectures/deberta/NOTES.md):
 * the log-bucketed relative positions for every distance to 8,192, the tokenizer's ids, the encoder at the real
 * positions (inputs longer than the buckets and the span, padding, pairs), the convolution of the v2 checkpoints,
 * separate position projections, absolute positions with token types and embed_proj, and every head.
 */
class DebertaReferenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(DebertaReferenceTest.class.getResource("/architectures/deberta/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** make_log_bucket_position in float32, as torch computes it, for three (buckets, max position) pairs. */
    @Test
    void relativePositionsFallInTheBucketsTorchGives() throws IOException {
        try (SafetensorsFile table = SafetensorsFile.open(resource("buckets.safetensors"))) {
            int[] distance = ints(table, "distance");
            for (int[] pair : new int[][] {{256, 512}, {16, 64}, {8, 8}}) {
                int[] want = ints(table, "bucket_" + pair[0] + "_max_" + pair[1]);
                for (int i = 0; i < distance.length; i++) {
                    assertEquals(want[i], DebertaAttention.bucket(distance[i], pair[0], pair[1]),
                            "distance " + distance[i] + " with " + pair[0] + " buckets up to " + pair[1]);
                }
            }
        }
    }

    private static int[] ints(SafetensorsFile file, String name) {
        var t = file.tensor(name);
        return IntStream.range(0, (int) t.elementCount())
                .map(i -> t.data().getAtIndex(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), i)).toArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"deberta-v3-base", "deberta-v3-nli", "deberta-v2-xlarge-mlm", "deberta-variant-c2p",
        "deberta-variant-separate-keys"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        Path dir = resource(name);
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : JSON.readTree(dir.resolve("inputs.json").toFile())) {
            Batch batch = FamilyReferenceTest.batch(c, 0);
            for (int s = 0; s < c.get("texts").size(); s++) {
                JsonNode text = c.get("texts").get(s);     // a text, or a pair as [a, b]
                var encoding = text.isArray() ? tokenizer.encode(text.get(0).asText(), text.get(1).asText()) : tokenizer.encode(text.asText());
                int[] want = Arrays.copyOfRange(batch.ids(), s * batch.length(), s * batch.length() + batch.lengths()[s]);
                assertArrayEquals(want, encoding.ids(), name + " " + c.get("name").asText() + " text " + s);
                int[] types = Arrays.copyOfRange(batch.typeIds(), s * batch.length(), s * batch.length() + batch.lengths()[s]);
                assertArrayEquals(types, encoding.typeIds(), name + " " + c.get("name").asText() + " types of text " + s);
            }
        }
    }

    /** deberta-v3's {@code spm.model} alone (no tokenizer.json) tokenizes as the converted tokenizer.json does, [MASK] included. */
    @Test
    void spmModelAloneGivesTheConvertedTokenizersIds() throws IOException {
        Path dir = resource("spm-only");
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : JSON.readTree(dir.resolve("ids.json").toFile())) {
            JsonNode text = c.get("text");
            var encoding = text.isArray() ? tokenizer.encode(text.get(0).asText(), text.get(1).asText()) : tokenizer.encode(text.asText());
            int[] want = IntStream.range(0, c.get("input_ids").size()).map(i -> c.get("input_ids").get(i).asInt()).toArray();
            int[] types = IntStream.range(0, c.get("token_type_ids").size()).map(i -> c.get("token_type_ids").get(i).asInt()).toArray();
            assertArrayEquals(want, encoding.ids(), text.toString());
            assertArrayEquals(types, encoding.typeIds(), text.toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"deberta-v3-base", "deberta-v3-base-pretraining-layout", "deberta-v3-nli", "deberta-v3-tokcls",
        "deberta-v3-qa", "deberta-v2-xlarge-mlm",
        "deberta-v2-xlarge-mlm-lm-predictions", "deberta-variant-c2p", "deberta-variant-separate-keys"})
    void encoderAndHeadsMatchPyTorch(String name) throws IOException {
        Path dir = resource(name);
        Encoder model = Encoder.load(dir);
        assertTrue(model instanceof DebertaEncoder, name);
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                Batch batch = FamilyReferenceTest.batch(cases.get(k), 0);
                String at = name + " case" + k;
                String c = "case" + k + ".";
                Encoder.Request request = Encoder.Request.lastHiddenState();
                if (model.hasMlmHead()) {
                    request = request.withMlmLogitsAt(IntStream.range(0, batch.rows()).toArray());
                }
                for (HeadKind kind : model.heads()) {
                    if (kind != HeadKind.MASKED_LM) {
                        request = request.withHead(kind, kind == HeadKind.SEQUENCE_CLASSIFIER ? null : IntStream.range(0, batch.rows()).toArray());
                    }
                }
                Encoder.Output out = model.forward(batch, request);
                ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", out.lastHiddenState(), batch, at);
                if (model.hasMlmHead()) {
                    ModernBertReferenceTest.assertRealClose(expected, c + "logits", out.mlmLogits(), batch, at);
                }
                if (model.heads().contains(HeadKind.SEQUENCE_CLASSIFIER)) {
                    ModernBertReferenceTest.assertClose(expected, c + "logits", out.heads().get(HeadKind.SEQUENCE_CLASSIFIER), at);
                }
                if (model.heads().contains(HeadKind.TOKEN_CLASSIFIER)) {
                    ModernBertReferenceTest.assertRealClose(expected, c + "logits", out.heads().get(HeadKind.TOKEN_CLASSIFIER), batch, at);
                }
                if (model.heads().contains(HeadKind.QUESTION_ANSWERING)) {
                    float[] both = out.heads().get(HeadKind.QUESTION_ANSWERING);
                    float[] start = new float[both.length / 2];
                    float[] end = new float[both.length / 2];
                    for (int r = 0; r < start.length; r++) {
                        start[r] = both[2 * r];
                        end[r] = both[2 * r + 1];
                    }
                    ModernBertReferenceTest.assertRealClose(expected, c + "start_logits", start, batch, at);
                    ModernBertReferenceTest.assertRealClose(expected, c + "end_logits", end, batch, at);
                }
                float[] packed = model.forward(batch, Encoder.Request.lastHiddenState(), o -> o.lastHiddenState().clone());
                ModernBertReferenceTest.assertRealClose(expected, c + "last_hidden_state", packed, batch, at + " (packed)");
            }
        }
    }

    /**
     * The zero-shot pipeline on a DeBERTa-v3 NLI classifier (entailment first, so contradiction is the last column):
     * single- and multi-label, another template, one candidate; labels in the pipeline's order, scores within 1e-4.
     */
    @Test
    void zeroShotClassificationGivesThePipelinesOutput() throws IOException {
        Path dir = resource("deberta-v3-nli");
        ZeroShotClassifier zeroShot = ZeroShotClassifier.load(dir.toString());
        JsonNode cases = JSON.readTree(dir.resolve("zeroshot.json").toFile()).get("cases");
        for (JsonNode c : cases) {
            List<String> labels = new ArrayList<>();
            c.get("candidate_labels").forEach(l -> labels.add(l.asText()));
            ZeroShotClassifier.Result result = zeroShot.classify(List.of(c.get("sequence").asText()), labels,
                    c.get("hypothesis_template").asText(), c.get("multi_label").asBoolean()).getFirst();
            JsonNode want = c.get("output");
            assertEquals(want.get("labels").size(), result.labels().size());
            for (int i = 0; i < result.labels().size(); i++) {
                assertEquals(want.get("labels").get(i).asText(), result.labels().get(i).label(), c.toString());
                assertEquals(want.get("scores").get(i).asDouble(), result.labels().get(i).score(), 1e-4, c.toString());
            }
        }
    }

    /**
     * A cross-encoder (one label, as mxbai-rerank-v1's classifiers are): the NLI checkpoint cut to its entailment row ranks
     * each premise and hypothesis by that column's logit, its sigmoid unless raw scores are asked for.
     */
    @Test
    void aOneLabelClassifierReranksWithItsLogit(@TempDir Path tmp) throws IOException {
        Path nli = resource("deberta-v3-nli");
        for (String f : List.of("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json")) {
            Files.copy(nli.resolve(f), tmp.resolve(f));
        }
        ObjectNode config = (ObjectNode) JSON.readTree(nli.resolve("config.json").toFile());
        config.putObject("id2label").put("0", "LABEL_0");
        config.putObject("label2id").put("LABEL_0", 0);
        JSON.writeValue(tmp.resolve("config.json").toFile(), config);
        try (SafetensorsFile weights = SafetensorsFile.open(nli.resolve("model.safetensors"))) {
            List<SafetensorsWriter.Spec> specs = new ArrayList<>();
            for (Tensor t : weights.tensors().values()) {
                long[] shape = t.name().startsWith("classifier.") ? (t.shape().length == 2 ? new long[] {1, t.shape()[1]} : new long[] {1}) : t.shape();
                specs.add(new SafetensorsWriter.Spec(t.name(), DType.F32, shape));
            }
            try (SafetensorsWriter w = new SafetensorsWriter(tmp.resolve("model.safetensors"), specs, Map.of("format", "pt"))) {
                for (SafetensorsWriter.Spec spec : specs) {
                    float[] all = weights.tensor(spec.name()).toFloatArray();
                    w.write(Arrays.copyOf(all, Math.toIntExact(Tensor.elementCount(spec.shape()))));
                }
                w.finish();
            }
        }
        JsonNode pairs = JSON.readTree(nli.resolve("inputs.json").toFile()).get(1).get("texts");
        Reranker reranker = Reranker.load(tmp.toString());
        try (SafetensorsFile expected = SafetensorsFile.open(nli.resolve("expected.safetensors"))) {
            float[] logits = expected.tensor("case1.logits").toFloatArray();
            for (int s = 0; s < pairs.size(); s++) {
                List<String> document = List.of(pairs.get(s).get(1).asText());
                float entailment = logits[3 * s];
                assertEquals(entailment, reranker.scores(pairs.get(s).get(0).asText(), document, true)[0], 1e-4, "pair " + s);
                assertEquals(1 / (1 + Math.exp(-entailment)), reranker.scores(pairs.get(s).get(0).asText(), document, false)[0], 1e-4);
            }
        }
    }

    @Test
    void configsItCannotRunAreRefusedByName(@TempDir Path tmp) throws IOException {
        Path v3 = resource("deberta-v3-base");
        NomicBertReferenceTest.assertRefused(tmp.resolve("a"), v3, c -> c.putArray("pos_att_type").add("p2p").add("c2p"),
                "pos_att_type 'p2p'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("b"), v3, c -> c.put("attention_head_size", 4), "attention_head_size");
        NomicBertReferenceTest.assertRefused(tmp.resolve("c"), v3, c -> c.put("norm_rel_ebd", "layer_norm|rms"), "norm_rel_ebd 'rms'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("d"), v3, c -> c.put("pooler_hidden_size", 16), "pooler_hidden_size");
        NomicBertReferenceTest.assertRefused(tmp.resolve("e"), v3, c -> c.put("position_buckets", 16), "rel_embeddings.weight");
        NomicBertReferenceTest.assertRefused(tmp.resolve("f"), v3, c -> c.put("hidden_act", "mish"), "hidden_act 'mish'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("g"), v3, c -> c.put("conv_kernel_size", 3), "conv.weight");
    }
}
