package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * EmbeddingGemma (Gemma 3's text model, bidirectional) against the independent PyTorch reference written from transformers'
 * modeling_gemma3.py (tools/torch-reference/make_gemma3_fixtures.py; cases and semantics in architectures/gemma3/NOTES.md):
 * the byte-fallback BPE's ids with bos and eos, the states at the real positions (sliding layers chosen by layer_types,
 * a window of sliding_window / 2 each side, two rotary bases, query_pre_attn_scalar, (1 + w) norms), the f32 weights
 * and their bf16 rounding in two shards, and the sentence-transformers pipeline: mean, 2_Dense, 3_Dense, normalise, with
 * prompts and Matryoshka cuts.
 */
class Gemma3ReferenceTest {
    private static final double TOLERANCE = 1e-4;

    static Path resource(String name) {
        try {
            return Path.of(Gemma3ReferenceTest.class.getResource("/architectures/gemma3/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"embeddinggemma", "embeddinggemma-bf16"})
    void theTokenizerGivesTheLibrarysIds(String name) throws IOException {
        Path dir = resource(name);
        Tokenizer tokenizer = Tokenizer.fromDirectory(dir);
        for (JsonNode c : Qwen3ReferenceTest.cases(dir)) {
            for (int s = 0; s < c.get("input_ids").size(); s++) {
                assertArrayEquals(Qwen3ReferenceTest.realIds(c, s), tokenizer.encode(Qwen3ReferenceTest.text(c, s)).ids(),
                        name + " " + c.get("name").asText() + " text " + s);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"embeddinggemma", "embeddinggemma-bf16"})
    void hiddenStatesMatchPyTorchPaddedAndPacked(String name) throws IOException {
        Qwen3ReferenceTest.assertStatesMatch(resource(name), 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"embeddinggemma", "embeddinggemma-bf16"})
    void sentenceEmbeddingsRunTheDenseModulesWithPromptsAndMatryoshkaCuts(String name) throws IOException {
        Qwen3ReferenceTest.assertSentenceEmbeddings(resource(name), Pooling.MEAN);
    }

    /**
     * transformers' Gemma tokenizer rebuilds its template from tokenizer_config.json's add_bos_token / add_eos_token: a
     * tokenizer.json with bos alone still ends every text with eos, and add_eos_token false drops it.
     */
    @Test
    void addBosAndAddEosTokenOverTheFilesTemplate(@TempDir Path tmp) throws IOException {
        Path from = resource("embeddinggemma");
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        var root = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(from.resolve("tokenizer.json").toFile());
        var post = (com.fasterxml.jackson.databind.node.ObjectNode) root.get("post_processor");
        post.putArray("single").addObject().putObject("SpecialToken").put("id", "<bos>").put("type_id", 0);
        ((com.fasterxml.jackson.databind.node.ArrayNode) post.get("single")).addObject().putObject("Sequence").put("id", "A").put("type_id", 0);
        json.writeValue(tmp.resolve("tokenizer.json").toFile(), root);
        var config = (com.fasterxml.jackson.databind.node.ObjectNode) json.readTree(from.resolve("tokenizer_config.json").toFile());
        json.writeValue(tmp.resolve("tokenizer_config.json").toFile(), config);
        JsonNode c = Qwen3ReferenceTest.cases(from).get(0);
        int[] want = Qwen3ReferenceTest.realIds(c, 0);
        assertArrayEquals(want, Tokenizer.fromDirectory(tmp).encode(c.get("texts").get(0).asText()).ids(), "eos from add_eos_token");
        json.writeValue(tmp.resolve("tokenizer_config.json").toFile(), config.put("add_eos_token", false));
        assertArrayEquals(java.util.Arrays.copyOf(want, want.length - 1),
                Tokenizer.fromDirectory(tmp).encode(c.get("texts").get(0).asText()).ids(), "no eos with add_eos_token false");
    }

    @Test
    void denseModulesThatModulesJsonNamesMustBeThere() {
        LoaderException e = assertThrows(LoaderException.class, () -> Embeddings.load(resource("embeddinggemma-no-dense").toString()));
        assertTrue(e.getMessage().contains("names Dense module '2' in 2_Dense, which has no config.json"), e.getMessage());
    }

    @Test
    void configsItCannotRunAreRefusedByName(@TempDir Path tmp) throws IOException {
        Path from = resource("embeddinggemma");
        NomicBertReferenceTest.assertRefused(tmp.resolve("a"), from, c -> c.put("use_bidirectional_attention", false),
                "a causal Gemma 3 language model is not supported");
        NomicBertReferenceTest.assertRefused(tmp.resolve("b"), from, c -> c.put("attn_logit_softcapping", 50.0), "attn_logit_softcapping 50.0");
        NomicBertReferenceTest.assertRefused(tmp.resolve("c"), from, c -> c.putObject("rope_scaling").put("rope_type", "linear")
                .put("factor", 8.0), "rope scaling 'linear'");
        NomicBertReferenceTest.assertRefused(tmp.resolve("d"), from, c -> c.putArray("layer_types").add("sliding_attention"),
                "layer_types has 1 entries for 4 layers");
    }
}
