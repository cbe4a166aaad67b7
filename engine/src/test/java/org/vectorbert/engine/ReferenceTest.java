package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.vectorbert.loader.SafetensorsFile;

/**
 * The encoder against an independent PyTorch implementation (tools/torch-reference) on the real
 * bert-base-uncased weights and on random-weight pre-LN and gelu_new models: max abs difference ≤ 1e-4.
 */
class ReferenceTest {
    static Path resource(String name) {
        try {
            return Path.of(ReferenceTest.class.getResource("/reference/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static double maxAbsDiff(SafetensorsFile expected, String name, float[] actual) {
        float[] want = expected.tensor(name).toFloatArray();
        assertEquals(want.length, actual.length, name);
        double worst = 0;
        for (int i = 0; i < want.length; i++) {
            worst = Math.max(worst, Math.abs(want[i] - actual[i]));
        }
        return worst;
    }

    static Batch batch(JsonNode c) {
        List<int[]> ids = new ArrayList<>();
        List<int[]> types = new ArrayList<>();
        for (int s = 0; s < c.get("ids").size(); s++) {
            ids.add(ints(c.get("ids").get(s)));
            types.add(c.has("types") ? ints(c.get("types").get(s)) : null);
        }
        return Batch.of(ids, types, 0);
    }

    static int[] ints(JsonNode a) {
        int[] v = new int[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asInt();
        }
        return v;
    }

    @Tag("heavy")
    @Test
    void bertBaseUncasedMatchesPyTorch() throws IOException {
        JsonNode cases = new ObjectMapper().readTree(resource("bert-base-uncased.json").toFile());
        BertModel model = RealModel.model();
        try (SafetensorsFile expected = SafetensorsFile.open(resource("bert-base-uncased.safetensors"))) {
            assertTrue(cases.size() >= 6);
            for (int i = 0; i < cases.size(); i++) {
                Encoder.Output out = model.forward(batch(cases.get(i)), Encoder.Request.lastHiddenState().withPooled());
                String name = cases.get(i).get("name").asText();
                double hidden = maxAbsDiff(expected, "case" + i + ".last_hidden_state", out.lastHiddenState());
                double pooled = maxAbsDiff(expected, "case" + i + ".pooler_output", out.pooled());
                assertTrue(hidden <= 1e-4, name + ": last hidden state differs by " + hidden);
                assertTrue(pooled <= 1e-4, name + ": pooler output differs by " + pooled);
            }
        }
    }

    /**
     * What the attention explorer's neuron view shows, for bertviz's seed pair, against PyTorch: every
     * layer's queries and keys split into heads, and the attention probabilities, from the library's
     * pipeline (tokenizer included).
     */
    @Tag("heavy")
    @Test
    void queriesKeysAndAttentionsMatchPyTorch() throws IOException {
        Embeddings pipeline = Embeddings.of(RealModel.model(), RealModel.tokenizer(), EmbeddingOptions.defaults());
        Embeddings.Result r = pipeline.run(List.of("time flies like an arrow"), List.of("fruit flies like a banana"),
                Embeddings.Include.QUERIES_AND_KEYS, Embeddings.Include.ATTENTIONS).getFirst();
        assertEquals(13, r.ids().length);
        try (SafetensorsFile expected = SafetensorsFile.open(resource("bert-base-uncased-neuron.safetensors"))) {
            for (int l = 0; l < 12; l++) {
                for (String name : List.of("query", "key", "attention")) {
                    float[][][] byHead = switch (name) {
                        case "query" -> r.queries()[l];
                        case "key" -> r.keys()[l];
                        default -> r.attentions()[l];
                    };
                    float[] flat = new float[0];
                    for (float[][] head : byHead) {
                        for (float[] row : head) {
                            int at = flat.length;
                            flat = java.util.Arrays.copyOf(flat, at + row.length);
                            System.arraycopy(row, 0, flat, at, row.length);
                        }
                    }
                    double diff = maxAbsDiff(expected, "layer" + l + "." + name, flat);
                    assertTrue(diff <= (name.equals("attention") ? 1e-5 : 1e-4), "layer " + l + " " + name + " differs by " + diff);
                }
            }
        }
    }

    @Tag("heavy")
    @Test
    void paddedSequenceEqualsTheSequenceAlone() {
        BertModel model = RealModel.model();
        int[] shortIds = {101, 2460, 3793, 1012, 102};
        int[] longIds = {101, 1037, 9839, 2936, 6251, 2008, 3791, 11687, 4667, 2005, 1996, 2034, 2028, 1012, 102};
        float[] alone = model.forward(Batch.of(shortIds, new int[5]), Encoder.Request.lastHiddenState()).lastHiddenState();
        float[] padded = model.forward(Batch.of(List.of(shortIds, longIds), null, 0), Encoder.Request.lastHiddenState())
                .lastHiddenState();
        double worst = 0;
        for (int i = 0; i < alone.length; i++) {
            worst = Math.max(worst, Math.abs(alone[i] - padded[i]));
        }
        assertTrue(worst <= 1e-5, "padded vs alone differ by " + worst);
    }

    @Test
    void preLayerNormEncoderMatchesPyTorch() {
        checkTiny("tiny-pre-ln");
    }

    @Test
    void tanhGeluPostLayerNormEncoderMatchesPyTorch() {
        checkTiny("tiny-post-ln-gelu-new");
    }

    private static void checkTiny(String name) {
        Path dir = resource(name);
        BertModel model = BertModel.load(dir);
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            Batch batch = Batch.of(List.of(new int[] {1, 7, 12, 49, 3, 2}, new int[] {1, 30, 2}),
                    List.of(new int[] {0, 0, 0, 1, 1, 1}, new int[] {0, 0, 0}), 0);
            Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withPooled().withAllHiddenStates());
            assertEquals(3, out.hiddenStates().size(), "the embedding output and both layers");
            org.junit.jupiter.api.Assertions.assertArrayEquals(out.lastHiddenState(), out.hiddenStates().getLast());
            double hidden = maxAbsDiff(expected, "last_hidden_state", out.lastHiddenState());
            double pooled = maxAbsDiff(expected, "pooler_output", out.pooled());
            assertTrue(hidden <= 1e-4, name + ": hidden state differs by " + hidden);
            assertTrue(pooled <= 1e-4, name + ": pooled output differs by " + pooled);
        }
    }

    @Tag("heavy")
    @Test
    void inputsTheModelCannotTakeAreRefused() {
        BertModel model = RealModel.model();
        int[] tooLong = new int[513];
        var e = assertThrows(EngineException.class, () -> model.forward(Batch.of(tooLong, new int[513]), Encoder.Request.lastHiddenState()));
        assertEquals("a sequence of 513 tokens is longer than the model's maximum of 512 positions; truncate it to 512 tokens",
                e.getMessage());
        var id = assertThrows(EngineException.class, () -> model.forward(Batch.of(new int[] {101, 40000}, new int[2]),
                Encoder.Request.lastHiddenState()));
        assertEquals("token id 40000 is outside the model's vocabulary (0..30521)", id.getMessage());
    }
}
