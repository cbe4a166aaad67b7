package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * Qwen3 against the independent PyTorch reference written from transformers' modeling_qwen3.py
 * (tools/torch-reference/make_qwen3_fixtures.py; cases and semantics in architectures/qwen3/NOTES.md): the byte-level BPE's
 * ids with the appended end-of-text token, the decoder's states at the real positions of left- and right-padded batches
 * (grouped-query attention, per-head q/k norms, causal), the f32 weights and their bf16 rounding in two shards, and
 * last-token pooling with the prompts and Matryoshka cuts.
 */
class Qwen3ReferenceTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAD = 407;
    private static final double TOLERANCE = 1e-4;

    static Path resource(String name) {
        try {
            return Path.of(Qwen3ReferenceTest.class.getResource("/architectures/qwen3/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static JsonNode cases(Path dir) throws IOException {
        return JSON.readTree(dir.resolve("inputs.json").toFile());
    }

    /** Each sequence's real ids (attention_mask 1, on either side), padded right again by the batch. */
    static Batch batch(JsonNode c) {
        return batch(c, PAD);
    }

    /** The same, padded with {@code pad}. */
    static Batch batch(JsonNode c, int pad) {
        List<int[]> ids = new ArrayList<>();
        List<int[]> types = new ArrayList<>();
        for (int s = 0; s < c.get("input_ids").size(); s++) {
            ids.add(realIds(c, s));
            types.add(new int[ids.getLast().length]);
        }
        return Batch.of(ids, types, pad);
    }

    static int[] realIds(JsonNode c, int s) {
        List<Integer> real = new ArrayList<>();
        for (int i = 0; i < c.get("input_ids").get(s).size(); i++) {
            if (c.get("attention_mask").get(s).get(i).asInt() == 1) {
                real.add(c.get("input_ids").get(s).get(i).asInt());
            }
        }
        return real.stream().mapToInt(Integer::intValue).toArray();
    }

    /** expected's [n, len, width] {@code name} at its real positions against {@code actual}'s right-padded rows. */
    static void assertRealClose(SafetensorsFile expected, String name, float[] actual, Batch batch, JsonNode c, String at) {
        float[] want = expected.tensor(name).toFloatArray();
        int n = c.get("input_ids").size();
        int len = c.get("input_ids").get(0).size();
        int width = want.length / (n * len);
        double worst = 0;
        for (int s = 0; s < n; s++) {
            int k = 0;
            for (int i = 0; i < len; i++) {
                if (c.get("attention_mask").get(s).get(i).asInt() == 0) {
                    continue;
                }
                for (int d = 0; d < width; d++) {
                    worst = Math.max(worst, Math.abs(want[(s * len + i) * width + d] - actual[(s * batch.length() + k) * width + d]));
                }
                k++;
            }
            assertEquals(batch.lengths()[s], k, at + " sequence " + s);
        }
        assertTrue(worst <= TOLERANCE, at + ": " + name + " differs by " + worst);
    }

    /** The text a case's sequence s is made from, as the reference tokenized it (with its prompt, or the reranker's template). */
    static String text(JsonNode c, int s) {
        if (c.has("prefix")) {
            JsonNode pair = c.get("pairs").get(s);
            return c.get("prefix").asText() + "<Instruct>: " + c.get("instruction").asText() + "\n<Query>: " + pair.get(0).asText()
                    + "\n<Document>: " + pair.get(1).asText() + c.get("suffix").asText();
        }
        return c.path("prompt").asText("") + c.get("texts").get(s).asText();
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen3-embedding", "qwen3-embedding-bf16", "qwen3-reranker"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        Path dir = resource(name);
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : cases(dir)) {
            for (int s = 0; s < c.get("input_ids").size(); s++) {
                JsonNode texts = c.path("texts").path(s);
                var encoding = texts.isArray() ? tokenizer.encode(texts.get(0).asText(), texts.get(1).asText()) : tokenizer.encode(text(c, s));
                assertArrayEquals(realIds(c, s), encoding.ids(), name + " " + c.get("name").asText() + " text " + s);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen3-embedding", "qwen3-embedding-bf16"})
    void hiddenStatesMatchPyTorchPaddedAndPacked(String name) throws IOException {
        assertStatesMatch(resource(name), PAD);
    }

    /** Every case's last hidden state at its real positions, through a padded pass and a packed one, the batch padded with {@code pad}. */
    static void assertStatesMatch(Path dir, int pad) throws IOException {
        String name = dir.getFileName().toString();
        Encoder model = Encoder.load(dir);
        assertTrue(model instanceof DecoderModel, name);
        JsonNode cases = cases(dir);
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                Batch batch = batch(c, pad);
                String at = name + " case" + k + " " + c.get("name").asText();
                Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState());
                assertRealClose(expected, "case" + k + ".last_hidden_state", out.lastHiddenState(), batch, c, at);
                float[] packed = model.forward(batch, Encoder.Request.lastHiddenState(), o -> o.lastHiddenState().clone());
                assertRealClose(expected, "case" + k + ".last_hidden_state", packed, batch, c, at + " (packed)");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"qwen3-embedding", "qwen3-embedding-bf16"})
    void sentenceEmbeddingsTakeTheLastTokenWithPromptsAndMatryoshkaCuts(String name) throws IOException {
        assertSentenceEmbeddings(resource(name), Pooling.LAST_TOKEN);
    }

    /**
     * Every case of single texts through the directory's sentence-transformers pipeline, pooled by {@code pooling} into 64
     * values, with the case's prompt: the full vectors and the Matryoshka cuts to 32 and 16.
     */
    static void assertSentenceEmbeddings(Path dir, Pooling pooling) throws IOException {
        String name = dir.getFileName().toString();
        JsonNode cases = cases(dir);
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                if (c.get("texts").get(0).isArray()) {
                    continue;     // sentence-transformers embeds texts, not pairs
                }
                List<String> texts = new ArrayList<>();
                c.get("texts").forEach(t -> texts.add(t.asText()));
                EmbeddingOptions options = EmbeddingOptions.defaults();
                if (c.has("prompt_name")) {
                    options = options.withPromptName(c.get("prompt_name").asText());
                }
                String at = name + " case" + k;
                Embeddings embeddings = Embeddings.load(dir.toString(), options);
                assertEquals(List.of(pooling), embeddings.options().pooling(), at);
                assertEquals(64, embeddings.dimension(), at);
                assertClose(expected.tensor("case" + k + ".sentence_embedding").toFloatArray(), embeddings.embed(texts), at);
                for (int dims : new int[] {32, 16}) {
                    List<float[]> cut = Embeddings.load(dir.toString(), options.withDimensions(dims)).embed(texts);
                    assertClose(expected.tensor("case" + k + ".sentence_embedding_" + dims).toFloatArray(), cut, at + " " + dims);
                }
            }
        }
    }

    /**
     * Weights held as bf16 (--dtype bf16; the word embeddings and norms stay float32) move the vectors by what bf16's
     * 8-bit significand implies: each stays within cosine 0.999 of the float32 reference.
     */
    @ParameterizedTest
    @ValueSource(strings = {"qwen3/qwen3-embedding", "gemma3/embeddinggemma"})
    void bf16WeightsStayWithinBf16sError(String name) throws IOException {
        Path dir = resource("qwen3-embedding").getParent().getParent().resolve(name);
        JsonNode c = cases(dir).get(1);
        List<String> texts = new ArrayList<>();
        c.get("texts").forEach(t -> texts.add(t.asText()));
        EmbeddingOptions options = EmbeddingOptions.defaults().withPrecision(Precision.BF16);
        options = c.has("prompt_name") ? options.withPromptName(c.get("prompt_name").asText()) : options;
        List<float[]> got = Embeddings.load(dir.toString(), options).embed(texts);
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] want = expected.tensor("case1.sentence_embedding").toFloatArray();
            int dim = want.length / texts.size();
            for (int s = 0; s < texts.size(); s++) {
                double dot = 0;
                for (int i = 0; i < dim; i++) {
                    dot += want[s * dim + i] * got.get(s)[i];
                }
                assertTrue(dot > 0.999, name + " text " + s + ": cosine " + dot);
                assertTrue(dot < 1 - 1e-7, name + " text " + s + ": bf16 changed nothing");
            }
        }
    }

    static void assertClose(float[] want, List<float[]> vectors, String at) {
        float[] all = ModernBertReferenceTest.concat(vectors);
        assertEquals(want.length, all.length, at);
        for (int i = 0; i < want.length; i++) {
            assertEquals(want[i], all[i], TOLERANCE, at + " [" + i + "]");
        }
    }

    @Test
    void theRerankersLastTokenLogitsMatch() throws IOException {
        Path dir = resource("qwen3-reranker");
        Encoder model = Encoder.load(dir);
        assertTrue(model.heads().contains(HeadKind.CAUSAL_LM));
        JsonNode c = cases(dir).get(0);
        Batch batch = batch(c);
        int[] last = new int[batch.size()];
        for (int b = 0; b < last.length; b++) {
            last[b] = b * batch.length() + batch.lengths()[b] - 1;
        }
        Encoder.Output out = model.forward(batch, Encoder.Request.lastHiddenState().withHead(HeadKind.CAUSAL_LM, last));
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            assertRealClose(expected, "case0.last_hidden_state", out.lastHiddenState(), batch, c, "reranker");
            float[] want = expected.tensor("case0.last_logits").toFloatArray();
            float[] got = out.heads().get(HeadKind.CAUSAL_LM);
            assertEquals(want.length, got.length);
            for (int i = 0; i < want.length; i++) {
                assertEquals(want[i], got[i], TOLERANCE, "last_logits[" + i + "]");
            }
        }
    }

    /** Reranker scores each pair through the card's template: sigmoid(yes − no), or yes − no as the raw score; one batch or one at a time. */
    @Test
    void theRerankerScoresAsTheModelCardSays() throws IOException {
        Path dir = resource("qwen3-reranker");
        JsonNode c = cases(dir).get(0);
        Reranker reranker = Reranker.load(dir.toString());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            float[] score = expected.tensor("case0.score").toFloatArray();
            float[] yes = expected.tensor("case0.yes_logit").toFloatArray();
            float[] no = expected.tensor("case0.no_logit").toFloatArray();
            for (int s = 0; s < score.length; s++) {
                String query = c.get("pairs").get(s).get(0).asText();
                List<String> document = List.of(c.get("pairs").get(s).get(1).asText());
                assertEquals(score[s], reranker.scores(query, document, false)[0], TOLERANCE, "score of pair " + s);
                assertEquals(yes[s] - no[s], reranker.scores(query, document, true)[0], TOLERANCE, "raw score of pair " + s);
            }
            String query = c.get("pairs").get(0).get(0).asText();
            List<String> documents = List.of(c.get("pairs").get(0).get(1).asText(), c.get("pairs").get(1).get(1).asText());
            float[] both = reranker.scores(query, documents, false);
            assertEquals(score[0], both[0], TOLERANCE);
            assertEquals(score[1], both[1], TOLERANCE);
        }
        EngineException e = org.junit.jupiter.api.Assertions.assertThrows(EngineException.class,
                () -> reranker.classifier().classify("a text alone"));
        assertTrue(e.getMessage().contains("scores a query and a document"), e.getMessage());
    }

    /** Qwen3-Embedding carries the tied head and the tokens too, but its sentence-transformers modules make it an embedder. */
    @Test
    void anEmbedderIsNotTakenForAReranker() {
        EngineException e = org.junit.jupiter.api.Assertions.assertThrows(EngineException.class,
                () -> Reranker.load(resource("qwen3-embedding").toString()));
        assertTrue(e.getMessage().contains("has no sequence-classification head"), e.getMessage());
    }

    @Test
    void aCausalModelRefusesFillMaskByName(@TempDir Path tmp) {
        Encoder model = Encoder.load(resource("qwen3-embedding"));
        EngineException e = org.junit.jupiter.api.Assertions.assertThrows(EngineException.class, model::requireMlmHead);
        assertTrue(e.getMessage().contains("Qwen3 is a causal model"), e.getMessage());
    }
}
