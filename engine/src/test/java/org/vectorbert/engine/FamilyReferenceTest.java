package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;

/**
 * Every family's encoder (and its MLM head, where the checkpoint has one) against an independent
 * PyTorch forward pass over random weights in the exact Hugging Face layout
 * (tools/torch-reference/make_family_fixtures.py; the cases are described in families/README.md):
 * each case's padded batch, pairs and single text, every position, padding included.
 */
class FamilyReferenceTest {
    private static final double TOLERANCE = 1e-4;

    @ParameterizedTest
    @ValueSource(strings = {"distilbert-mlm", "distilbert-sinusoidal-seqcls", "distilbert-tokcls", "distilbert-qa",
        "roberta-mlm", "roberta-seqcls", "roberta-tokcls", "roberta-qa", "xlm-roberta-seqcls-regression", "camembert-mlm",
        "electra-discriminator", "electra-generator-mlm", "electra-seqcls", "electra-tokcls",
        "bert-seqcls-multilabel", "bert-tokcls", "bert-qa", "bert-seqcls-1label"})
    void encoderAndHeadsMatchPyTorch(String name) throws IOException {
        Path dir = resource(name);
        assertMatchesReference(name, BertModel.load(dir), dir, name.endsWith("-mlm"), task(name));
    }

    /** The last hidden state of {@code batch}, with the MLM logits ({@code mlm}) and {@code task}'s outputs at every row. */
    static Encoder.Request request(Batch batch, boolean mlm, HeadKind task) {
        Encoder.Request request = Encoder.Request.lastHiddenState();
        int[] everyRow = IntStream.range(0, batch.rows()).toArray();
        if (mlm) {
            request = request.withMlmLogitsAt(everyRow);
        }
        if (task != null) {
            request = request.withHead(task, task == HeadKind.SEQUENCE_CLASSIFIER ? null : everyRow);
        }
        return request;
    }

    /** The task head a fixture's name says it has (-seqcls, -tokcls, -qa), or null. */
    static HeadKind task(String name) {
        return name.contains("-seqcls") ? HeadKind.SEQUENCE_CLASSIFIER : name.endsWith("-tokcls") ? HeadKind.TOKEN_CLASSIFIER
                : name.endsWith("-qa") ? HeadKind.QUESTION_ANSWERING : null;
    }

    /**
     * {@code model} (loaded from the fixture {@code dir}, or from an import of it) has exactly the heads
     * {@code mlm} and {@code task} say, and its last hidden state and their logits are the reference's in
     * every case.
     */
    static void assertMatchesReference(String name, BertModel model, Path dir, boolean mlm, HeadKind task) throws IOException {
        assertEquals(mlm, model.hasMlmHead(), name + ": MLM head found");
        for (HeadKind kind : List.of(HeadKind.SEQUENCE_CLASSIFIER, HeadKind.TOKEN_CLASSIFIER, HeadKind.QUESTION_ANSWERING)) {
            assertEquals(kind == task, model.heads().contains(kind), name + ": " + kind);
        }
        JsonNode cases = new ObjectMapper().readTree(dir.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                Batch batch = batch(cases.get(k), model.config().padTokenId());
                Encoder.Output out = model.forward(batch, request(batch, mlm, task));
                String c = "case" + k;
                double hidden = ReferenceTest.maxAbsDiff(expected, c + ".last_hidden_state", out.lastHiddenState());
                assertTrue(hidden <= TOLERANCE, name + " " + c + ": last hidden state differs by " + hidden);
                if (mlm) {
                    double logits = ReferenceTest.maxAbsDiff(expected, c + ".logits", out.mlmLogits());
                    assertTrue(logits <= TOLERANCE, name + " " + c + ": MLM logits differ by " + logits);
                }
                if (task == HeadKind.QUESTION_ANSWERING) {
                    float[] spans = out.heads().get(task);
                    float[] start = new float[batch.rows()];
                    float[] end = new float[batch.rows()];
                    for (int r = 0; r < batch.rows(); r++) {
                        start[r] = spans[2 * r];
                        end[r] = spans[2 * r + 1];
                    }
                    double d = Math.max(ReferenceTest.maxAbsDiff(expected, c + ".start_logits", start),
                            ReferenceTest.maxAbsDiff(expected, c + ".end_logits", end));
                    assertTrue(d <= TOLERANCE, name + " " + c + ": start and end logits differ by " + d);
                } else if (task != null) {
                    double d = ReferenceTest.maxAbsDiff(expected, c + ".logits", out.heads().get(task));
                    assertTrue(d <= TOLERANCE, name + " " + c + ": " + task + " logits differ by " + d);
                }
            }
        }
    }

    /**
     * fill-mask end to end for the RoBERTa family: a {@code tokenizer.json} with RoBERTa's template and
     * {@code <mask>} beside the roberta-mlm weights gives case0's first row, [0, 69, 159, 127, 8, 2], for
     * "t69 <mask> t127 t8", and the pipeline's scores are the softmax of the reference logits at the mask.
     */
    @org.junit.jupiter.api.Test
    void robertaFillMaskThroughItsTokenizerMatchesPyTorch(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path weights = resource("roberta-mlm");
        for (String f : List.of("config.json", "model.safetensors")) {
            java.nio.file.Files.copy(weights.resolve(f), dir.resolve(f));
        }
        java.nio.file.Files.writeString(dir.resolve("tokenizer.json"), NumberedTokenizer.roberta(160, 0, 2));
        FillMask fillMask = FillMask.load(dir.toString(), FillMaskOptions.defaults().withTopK(3));
        FillMask.Prediction p = fillMask.predict("t69 <mask> t127 t8");
        float[] logits;
        try (SafetensorsFile expected = SafetensorsFile.open(weights.resolve("expected.safetensors"))) {
            logits = java.util.Arrays.copyOfRange(expected.tensor("case0.logits").toFloatArray(), 2 * 160, 3 * 160);
        }
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) {
            max = Math.max(max, l);
        }
        double sum = 0;
        for (float l : logits) {
            sum += Math.exp(l - max);
        }
        Integer[] order = IntStream.range(0, 160).boxed().toArray(Integer[]::new);
        java.util.Arrays.sort(order, (a, b) -> Float.compare(logits[b], logits[a]));
        for (int r = 0; r < 3; r++) {
            FillMask.Candidate c = p.candidates().get(r);
            assertEquals(order[r], c.token(), "rank " + r);
            assertEquals(Math.exp(logits[order[r]] - max) / sum, c.score(), 1e-5, "rank " + r);
        }
    }

    /**
     * Embeddings for every family: mean pooling of the single case through each family's tokenizer is the
     * mean of the reference's last hidden state over the text's tokens, and CLS pooling its first row.
     */
    @ParameterizedTest
    @ValueSource(strings = {"distilbert-mlm", "electra-generator-mlm", "roberta-mlm", "camembert-mlm"})
    void embeddingsPoolTheReferenceHiddenStates(String name, @org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Path weights = resource(name);
        for (String f : List.of("config.json", "model.safetensors")) {
            java.nio.file.Files.copy(weights.resolve(f), dir.resolve(f));
        }
        int vocab = org.vectorbert.loader.BertConfig.load(weights.resolve("config.json")).vocabSize();
        String tokenizer = name.startsWith("roberta") ? NumberedTokenizer.roberta(vocab, 0, 2)
                : name.startsWith("camembert") ? NumberedTokenizer.roberta(vocab, 5, 6) : NumberedTokenizer.bert(vocab);
        java.nio.file.Files.writeString(dir.resolve("tokenizer.json"), tokenizer);
        JsonNode single = new ObjectMapper().readTree(weights.resolve("inputs.json").toFile()).get(2);
        int[] ids = ints(single.get("input_ids").get(0), single.get("input_ids").get(0).size());
        String text = NumberedTokenizer.text(java.util.Arrays.copyOfRange(ids, 1, ids.length - 1), java.util.Map.of());
        float[] hidden;
        try (SafetensorsFile expected = SafetensorsFile.open(weights.resolve("expected.safetensors"))) {
            hidden = expected.tensor("case2.last_hidden_state").toFloatArray();
        }
        int h = hidden.length / ids.length;
        Embeddings mean = Embeddings.load(dir.toString(), EmbeddingOptions.defaults().withPooling(Pooling.MEAN).withNormalize(false));
        Embeddings cls = Embeddings.load(dir.toString(), EmbeddingOptions.defaults().withPooling(Pooling.CLS).withNormalize(false));
        float[] m = mean.embed(List.of(text)).getFirst();
        float[] c = cls.embed(List.of(text)).getFirst();
        for (int d = 0; d < h; d++) {
            double sum = 0;
            for (int t = 0; t < ids.length; t++) {
                sum += hidden[t * h + d];
            }
            assertEquals(sum / ids.length, m[d], 1e-4, name + " mean, dimension " + d);
            assertEquals(hidden[d], c[d], 1e-4, name + " cls, dimension " + d);
        }
    }

    static Path resource(String name) {
        try {
            return Path.of(FamilyReferenceTest.class.getResource("/families/" + name).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The case's texts without their padding (the batch pads them again, with the model's pad id). */
    static Batch batch(JsonNode c, int padId) {
        List<int[]> ids = new ArrayList<>();
        List<int[]> types = new ArrayList<>();
        for (int s = 0; s < c.get("input_ids").size(); s++) {
            int length = 0;
            for (JsonNode m : c.get("attention_mask").get(s)) {
                length += m.asInt();
            }
            ids.add(ints(c.get("input_ids").get(s), length));
            types.add(c.has("token_type_ids") ? ints(c.get("token_type_ids").get(s), length) : new int[length]);
        }
        return Batch.of(ids, types, padId);
    }

    private static int[] ints(JsonNode array, int length) {
        return IntStream.range(0, length).map(i -> array.get(i).asInt()).toArray();
    }
}
