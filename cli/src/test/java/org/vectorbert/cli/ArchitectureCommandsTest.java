package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commands on architectures other than BERT's (MPNet's, ModernBERT's, NomicBERT's, GTE's, JinaBERT's and DeBERTa's reference fixtures, engine's test
 * resources), and what
 * they refuse: a model type no architecture runs, a config that contradicts the weights, a text past the maximum.
 */
class ArchitectureCommandsTest {
    private static final Path ARCHITECTURES = Path.of(System.getProperty("user.dir")).resolve("../engine/src/test/resources/architectures")
            .normalize();
    private static final Path MPNET = ARCHITECTURES.resolve("mpnet");
    private static final Path MODERNBERT = ARCHITECTURES.resolve("modernbert");
    private static final Path NOMICBERT = ARCHITECTURES.resolve("nomicbert");
    private static final Path GTE = ARCHITECTURES.resolve("gte");
    private static final Path JINABERT = ARCHITECTURES.resolve("jinabert");
    private static final Path BGEM3 = ARCHITECTURES.resolve("bgem3/bgem3");
    private static final Path DEBERTA = ARCHITECTURES.resolve("deberta");
    private static final Path QWEN3 = ARCHITECTURES.resolve("qwen3");
    private static final Path GEMMA3 = ARCHITECTURES.resolve("gemma3");

    @TempDir
    Path work;

    @Test
    void mpnetEmbedsAndFillsMasks() {
        TokenizeCommandTest.Run embedded = run("embed", "--model", MPNET.resolve("mpnet-sentence-mean").toString(), "A man is eating.");
        assertEquals(0, embedded.exit(), embedded.err());
        assertTrue(embedded.out().startsWith("\"A man is eating.\"  [32] "), embedded.out());
        assertTrue(embedded.out().contains("(norm 1.0000)"), embedded.out());
        TokenizeCommandTest.Run filled = run("fill-mask", "--model", MPNET.resolve("mpnet-mlm").toString(), "Where is the <mask> tower?");
        assertEquals(0, filled.exit(), filled.err());
        assertEquals(5, filled.out().lines().filter(l -> l.matches(" +[1-5]  .*")).count(), filled.out());
    }

    @Test
    void inspectSaysWhatMpnetHas() {
        TokenizeCommandTest.Run inspected = run("inspect", "--model", MPNET.resolve("mpnet-qa").toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     mpnet (MPNet family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 326, "
                + "514 positions, gelu, post-LN, relative position bias (32 buckets)\n"), inspected.out());
        assertTrue(inspected.out().contains("heads:      masked-LM no, pooler no, sequence classifier no, token classifier no, "
                + "question answering yes\n"), inspected.out());
    }

    @Test
    void modernBertRunsEveryTaskItHasAHeadFor() {
        String dir = MODERNBERT.toString();
        TokenizeCommandTest.Run filled = run("fill-mask", "--model", dir + "/modernbert-mlm", "The capital of France is [MASK].");
        assertEquals(0, filled.exit(), filled.err());
        assertEquals(5, filled.out().lines().filter(l -> l.matches(" +[1-5]  .*")).count(), filled.out());
        TokenizeCommandTest.Run embedded = run("embed", "--model", dir + "/modernbert-sentence-mean", "--prompt-name", "query", "what is it");
        assertEquals(0, embedded.exit(), embedded.err());
        assertTrue(embedded.out().startsWith("\"what is it\"  [32] ") && embedded.out().contains("(norm 1.0000)"), embedded.out());
        for (String[] task : new String[][] {{"classify", "/modernbert-seqcls-mean", "nice"}, {"ner", "/modernbert-tokcls", "john lives here"}}) {
            TokenizeCommandTest.Run r = run(task[0], "--model", dir + task[1], task[2]);
            assertEquals(0, r.exit(), task[0] + ": " + r.err());
        }
        TokenizeCommandTest.Run answered = run("qa", "--model", dir + "/modernbert-qa", "--question", "where", "--context", "in paris");
        assertEquals(0, answered.exit(), answered.err());
    }

    /** nomic-embed-text-v1.5's layout: a prompt by name, mean pooling and no Normalize module, so the vector's norm is its own. */
    @Test
    void nomicBertEmbedsWithItsPromptsAndFillsMasks() {
        TokenizeCommandTest.Run embedded = run("embed", "--model", NOMICBERT.resolve("nomicbert-sentence").toString(), "--prompt-name",
                "search_query", "what is it");
        assertEquals(0, embedded.exit(), embedded.err());
        assertTrue(embedded.out().startsWith("\"what is it\"  [32] ") && !embedded.out().contains("(norm 1.0000)"), embedded.out());
        TokenizeCommandTest.Run filled = run("fill-mask", "--model", NOMICBERT.resolve("nomicbert-mlm").toString(), "paris is the [MASK].");
        assertEquals(0, filled.exit(), filled.err());
        assertEquals(5, filled.out().lines().filter(l -> l.matches(" +[1-5]  .*")).count(), filled.out());
        TokenizeCommandTest.Run inspected = run("inspect", "--model", NOMICBERT.resolve("nomicbert-scaled").toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     nomic_bert (NomicBERT family), 2 layers, hidden 32, 2 heads, SwiGLU 256 wide,"
                + " vocab 384, 48 positions, post-LN, rotary positions (base 1000, 16 of 16 columns, dynamic NTK ×2 past 64)\n"), inspected.out());
    }

    @Test
    void gteEmbedsAndReranks() {
        TokenizeCommandTest.Run embedded = run("embed", "--model", GTE.resolve("gte-multilingual").toString(), "Paris est la capitale.");
        assertEquals(0, embedded.exit(), embedded.err());
        assertTrue(embedded.out().contains("[32] ") && embedded.out().contains("(norm 1.0000)"), embedded.out());
        TokenizeCommandTest.Run reranked = run("rerank", "--model", GTE.resolve("gte-multilingual-reranker").toString(), "--json",
                "--query", "what is the capital of France?", "Paris est la capitale de la France.", "The river is long.");
        assertEquals(0, reranked.exit(), reranked.err());
        assertTrue(reranked.out().matches("\\[\\{\"index\":\\d,\"score\":[-0-9.eE]+}(,\\{\"index\":\\d,\"score\":[-0-9.eE]+})]\n"),
                reranked.out());
        TokenizeCommandTest.Run inspected = run("inspect", "--model", GTE.resolve("gte-base-en").toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     new (GTE family), 2 layers, hidden 32, 2 heads, gated gelu 48 wide, vocab 325,"
                + " 8192 positions, no token types, post-LN, rotary positions (base 500000, NTK ×2)\n"), inspected.out());
    }

    /** jina-embeddings-v2's layout (model_type bert, auto_map to Jina's code) embeds; jina-reranker-v1's shape reranks. */
    @Test
    void jinaBertEmbedsAndReranks() {
        TokenizeCommandTest.Run embedded = run("embed", "--model", JINABERT.resolve("jinabert-sentence-mean").toString(), "A man is eating.");
        assertEquals(0, embedded.exit(), embedded.err());
        assertTrue(embedded.out().contains("[48] ") && embedded.out().contains("(norm 1.0000)"), embedded.out());
        TokenizeCommandTest.Run reranked = run("rerank", "--model", JINABERT.resolve("jinabert-rerank").toString(), "--json",
                "--query", "how big is london", "London has nine million people.", "who wrote the book");
        assertEquals(0, reranked.exit(), reranked.err());
        TokenizeCommandTest.Run filled = run("fill-mask", "--model", JINABERT.resolve("jinabert-mlm").toString(), "paris is the [MASK].");
        assertEquals(0, filled.exit(), filled.err());
        TokenizeCommandTest.Run inspected = run("inspect", "--model", JINABERT.resolve("jinabert-base").toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     bert (JinaBERT family), 2 layers, hidden 32, 4 heads, geglu 48 wide, vocab 384,"
                + " 8192 positions, post-LN, ALiBi\n"), inspected.out());
    }

    /** DeBERTa-v3's heads (an NLI classifier, zero-shot on it, NER, QA) and v2's MLM head with the convolution; inspect. */
    @Test
    void debertaRunsEveryTaskItHasAHeadFor() {
        TokenizeCommandTest.Run classified = run("classify", "--model", DEBERTA.resolve("deberta-v3-nli").toString(), "--json",
                "The team won the final match.");
        assertEquals(0, classified.exit(), classified.err());
        assertTrue(classified.out().contains("\"label\":\"entailment\""), classified.out());
        TokenizeCommandTest.Run zeroShot = run("classify", "--zero-shot", "--labels", "politics,sports,science,cooking", "--model",
                DEBERTA.resolve("deberta-v3-nli").toString(), "--json", "The government announced new taxes on imported cars today.");
        assertEquals(0, zeroShot.exit(), zeroShot.err());
        assertTrue(zeroShot.out().startsWith("{\"sequence\":\"The government announced new taxes on imported cars today.\","
                + "\"labels\":[\"cooking\",\"science\",\"politics\",\"sports\"],\"scores\":[0.284"), zeroShot.out());
        TokenizeCommandTest.Run ner = run("ner", "--model", DEBERTA.resolve("deberta-v3-tokcls").toString(), "John Smith lives in Paris.");
        assertEquals(0, ner.exit(), ner.err());
        TokenizeCommandTest.Run answered = run("qa", "--model", DEBERTA.resolve("deberta-v3-qa").toString(), "--question", "Who went to Rome?",
                "--context", "Maria went to Rome in the summer.");
        assertEquals(0, answered.exit(), answered.err());
        TokenizeCommandTest.Run filled = run("fill-mask", "--model", DEBERTA.resolve("deberta-v2-xlarge-mlm").toString(),
                "Paris is the [MASK] of France.");
        assertEquals(0, filled.exit(), filled.err());
        assertEquals(5, filled.out().lines().filter(l -> l.matches(" +[1-5]  .*")).count(), filled.out());
        TokenizeCommandTest.Run inspected = run("inspect", "--model", DEBERTA.resolve("deberta-v3-base").toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     deberta-v2 (DeBERTa-v2 family), 2 layers, hidden 32, 4 heads, gelu 64 wide, vocab 480,"
                + " 512 positions, no token types, post-LN, disentangled attention (c2p+p2c, 8 log buckets)\n"), inspected.out());
    }

    /**
     * Qwen3-Embedding's last-token vector with its query prompt and a Matryoshka cut, Qwen3-Reranker's yes/no score, and the
     * refusals a causal model gets: fill-mask, and classifying one text with the reranker.
     */
    @Test
    void qwen3EmbedsAndReranksAsTheReferenceSays() throws IOException {
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        String embedder = QWEN3.resolve("qwen3-embedding").toString();
        String reranker = QWEN3.resolve("qwen3-reranker").toString();
        try (var expected = org.vectorbert.loader.SafetensorsFile.open(QWEN3.resolve("qwen3-embedding/expected.safetensors"))) {
            float[] want = expected.tensor("case2.sentence_embedding").toFloatArray();
            TokenizeCommandTest.Run embedded = run("embed", "--model", embedder, "--prompt-name", "query", "--json", "What is the capital of China?");
            assertEquals(0, embedded.exit(), embedded.err());
            var vector = mapper.readTree(embedded.out()).get("embedding");
            assertEquals(64, vector.size());
            for (int i = 0; i < 64; i++) {
                assertEquals(want[i], vector.get(i).floatValue(), 1e-4, "dimension " + i);
            }
            float[] cut = expected.tensor("case2.sentence_embedding_16").toFloatArray();
            TokenizeCommandTest.Run short16 = run("embed", "--model", embedder, "--prompt-name", "query", "--dimensions", "16", "--json",
                    "What is the capital of China?");
            assertEquals(0, short16.exit(), short16.err());
            var vector16 = mapper.readTree(short16.out()).get("embedding");
            for (int i = 0; i < 16; i++) {
                assertEquals(cut[i], vector16.get(i).floatValue(), 1e-4, "dimension " + i + " of 16");
            }
        }
        try (var expected = org.vectorbert.loader.SafetensorsFile.open(QWEN3.resolve("qwen3-reranker/expected.safetensors"))) {
            float[] score = expected.tensor("case0.score").toFloatArray();
            TokenizeCommandTest.Run ranked = run("rerank", "--model", reranker, "--json", "--query", "What is the capital of China?",
                    "The capital of China is Beijing.", "Gravity is a force that attracts two bodies towards each other.");
            assertEquals(0, ranked.exit(), ranked.err());
            for (var r : mapper.readTree(ranked.out())) {
                assertEquals(score[r.get("index").asInt()], r.get("score").floatValue(), 1e-4, ranked.out());
            }
        }
        assertUserError(run("fill-mask", "--model", embedder, "Paris is the <mask>."), "Qwen3 is a causal model, with no masked-LM head");
        assertUserError(run("classify", "--model", reranker, "one text"), "it scores a query and a document, not a text alone");
        TokenizeCommandTest.Run inspected = run("inspect", "--model", reranker);
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     qwen3 (Qwen3 family), 3 layers, hidden 64, 4 query heads sharing 2 key/value heads"
                + " of 32, SwiGLU 96 wide, vocab 412, 32768 positions, pre-norm (RMSNorm), causal, rotary positions (base 1000000), tied"
                + " word embeddings\n"), inspected.out());
        assertTrue(inspected.out().contains("causal LM yes\n"), inspected.out());
        assertTrue(inspected.out().contains("pooling:    lasttoken  (no sentence-transformers files: vectorbert's default for a decoder)"),
                inspected.out());
    }

    /** EmbeddingGemma's document prompt through mean pooling and both Dense modules; inspect; a directory missing 2_Dense. */
    @Test
    void embeddingGemmaEmbedsThroughItsDenseModules() throws IOException {
        String dir = GEMMA3.resolve("embeddinggemma").toString();
        try (var expected = org.vectorbert.loader.SafetensorsFile.open(GEMMA3.resolve("embeddinggemma/expected.safetensors"))) {
            float[] want = expected.tensor("case2.sentence_embedding").toFloatArray();
            TokenizeCommandTest.Run embedded = run("embed", "--model", dir, "--prompt-name", "document", "--json",
                    "The capital of France is Paris.");
            assertEquals(0, embedded.exit(), embedded.err());
            var vector = new com.fasterxml.jackson.databind.ObjectMapper().readTree(embedded.out()).get("embedding");
            assertEquals(64, vector.size());
            for (int i = 0; i < 64; i++) {
                assertEquals(want[i], vector.get(i).floatValue(), 1e-4, "dimension " + i);
            }
        }
        TokenizeCommandTest.Run inspected = run("inspect", "--model", dir);
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     gemma3_text (Gemma 3 family), 4 layers, hidden 64, 4 query heads sharing 1 key/value"
                + " heads of 32, GeGLU 96 wide (gelu_pytorch_tanh), vocab 480, 2048 positions, pre- and post-norm (RMSNorm), bidirectional,"
                + " rotary positions (base 1000000 global, 10000 local), 2 of 4 layers a window of 4 each side\n"), inspected.out());
        assertTrue(inspected.out().contains("dense:      2_Dense 64 -> 256, 3_Dense 256 -> 64  (modules.json's Dense modules, after the"
                + " pooling)\n"), inspected.out());
        assertUserError(run("embed", "--model", GEMMA3.resolve("embeddinggemma-no-dense").toString(), "text"),
                "names Dense module '2' in 2_Dense, which has no config.json");
    }

    /** bge-m3's lexical weights and ColBERT vectors (JSON lines, .npy) and its score modes, as the reference computed them. */
    @Test
    void bgeM3GivesItsSparseAndMultiVectorOutputsAndScores() throws IOException {
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var lexical = mapper.readTree(BGEM3.resolve("expected_lexical_weights.json").toFile()).get("case0").get(2);
        TokenizeCommandTest.Run sparse = run("embed", "--model", BGEM3.toString(), "--sparse", "--json", "no warranty");
        assertEquals(0, sparse.exit(), sparse.err());
        var weights = mapper.readTree(sparse.out()).get("lexical_weights");
        assertEquals(lexical.size(), weights.size(), sparse.out());
        lexical.fieldNames().forEachRemaining(id -> assertEquals(lexical.get(id).floatValue(), weights.get(id).floatValue(), 1e-4, id));
        TokenizeCommandTest.Run summary = run("embed", "--model", BGEM3.toString(), "--sparse", "no warranty");
        assertTrue(summary.out().startsWith("\"no warranty\"  2 weights: "), summary.out());
        Path npy = work.resolve("colbert.npy");
        TokenizeCommandTest.Run multi = run("embed", "--model", BGEM3.toString(), "--multi-vector", "--output", npy.toString(),
                "no warranty", "who may copy and distribute the program");
        assertEquals(0, multi.exit(), multi.err());
        assertTrue(Files.readString(npy, java.nio.charset.StandardCharsets.ISO_8859_1).contains("'shape': (2, 8, 32)"), "[2 texts, 8 vectors, 32]");
        assertTrue(Files.isRegularFile(work.resolve("colbert.lengths.npy")));
        TokenizeCommandTest.Run ranked = run("rerank", "--model", BGEM3.toString(), "--json", "--mode", "colbert", "--query", "no warranty",
                "warranty", "You may copy the program and distribute the program.");
        assertEquals(0, ranked.exit(), ranked.err());
        try (var expected = org.vectorbert.loader.SafetensorsFile.open(BGEM3.resolve("expected.safetensors"))) {
            float[] colbert = expected.tensor("scores.colbert").toFloatArray();
            for (var r : mapper.readTree(ranked.out())) {
                int document = r.get("index").asInt() == 0 ? 3 : 1;
                assertEquals(colbert[2 * 4 + document], r.get("score").floatValue(), 1e-4, ranked.out());
            }
        }
        assertUserError(run("embed", "--model", BGEM3.toString(), "--sparse", "--multi-vector", "t"), "give --sparse or --multi-vector, not both");
        assertUserError(run("rerank", "--model", BGEM3.toString(), "--weights", "0,0,0", "--query", "q", "t"),
                "--weights must be three non-negative numbers, not all 0");
        assertUserError(run("rerank", "--model", BGEM3.toString(), "--mode", "hybrid", "--query", "q", "t"), "unknown score mode 'hybrid'");
        assertUserError(run("embed", "--model", GTE.resolve("gte-base-en").toString(), "--sparse", "t"), "has no sparse_linear.pt");
    }

    @Test
    void inspectSaysWhatModernBertHas() {
        TokenizeCommandTest.Run inspected = run("inspect", "--model", MODERNBERT.resolve("modernbert-sentence-mean").toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("config:     modernbert (ModernBERT family), 2 layers, hidden 32, 2 heads, intermediate 48 (GeGLU),"
                + " vocab 384, 8192 positions, gelu, pre-LN, rotary positions (base 160000 global, 10000 local), 1 of 2 layers global,"
                + " the others a window of 8\n"), inspected.out());
        assertTrue(inspected.out().contains("prompts:    query \"search_query: \", document \"search_document: \""), inspected.out());
        assertTrue(!inspected.out().contains("problem:"), inspected.out());
    }

    @Test
    void inspectNamesWhereModernBertsConfigContradictsItsWeights() throws IOException {
        Path dir = Files.createDirectories(work.resolve("modernbert-contradicts"));
        try (Stream<Path> files = Files.list(MODERNBERT.resolve("modernbert-mlm"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        Files.writeString(dir.resolve("config.json"), Files.readString(dir.resolve("config.json"))
                .replaceFirst("\"num_hidden_layers\": 3", "\"num_hidden_layers\": 2"));
        TokenizeCommandTest.Run inspected = run("inspect", "--model", dir.toString());
        assertEquals(0, inspected.exit(), inspected.err());
        assertTrue(inspected.out().contains("problem:    config.json says num_hidden_layers 2 but the weights hold 3 layers\n"), inspected.out());
        assertUserError(run("embed", "--model", dir.toString(), "text"), "is not part of the model config.json describes");
    }

    @Test
    void anUnknownModelTypeNamesTheSupportedOnes() throws IOException {
        Path dir = copy("mpnet-mlm", "unknown");
        Files.writeString(dir.resolve("config.json"), Files.readString(dir.resolve("config.json")).replace("\"mpnet\"", "\"gpt2\""));
        assertUserError(run("embed", "--model", dir.toString(), "text"),
                "model_type 'gpt2' is not supported (supported: bert, distilbert, roberta, xlm-roberta, camembert, electra, mpnet, modernbert, nomic_bert, new, gte, deberta-v2, qwen3, gemma3_text)");
    }

    /** jina-embeddings-v3's config says model_type bert here, but its auto_map names code vectorbert does not implement: never run. */
    @Test
    void aModelWhoseCodeLivesOnTheHubIsRefusedNamingIt() throws IOException {
        Path dir = copy("mpnet-mlm", "remote-code");
        Files.writeString(dir.resolve("config.json"), Files.readString(dir.resolve("config.json")).replace("\"mpnet\"", "\"bert\"")
                .replaceFirst("\\{", "{\"auto_map\": {\"AutoConfig\": \"jinaai/xlm-roberta-flash-implementation--configuration_xlm_roberta.XLMRobertaFlashConfig\","
                        + " \"AutoModel\": \"jinaai/xlm-roberta-flash-implementation--modeling_xlm_roberta.XLMRobertaModel\"},"));
        assertUserError(run("embed", "--model", dir.toString(), "text"), "config.json: auto_map names code on the hub"
                + " (jinaai/xlm-roberta-flash-implementation--modeling_xlm_roberta.XLMRobertaModel), an architecture vectorbert does not implement");
        assertUserError(run("inspect", "--model", dir.toString()), "auto_map names code on the hub");
    }

    @Test
    void aConfigThatContradictsTheWeightsNamesTheTensor() throws IOException {
        Path dir = copy("mpnet-mlm", "contradicts");
        Files.writeString(dir.resolve("config.json"), Files.readString(dir.resolve("config.json"))
                .replace("\"relative_attention_num_buckets\": 32", "\"relative_attention_num_buckets\": 64"));
        assertUserError(run("embed", "--model", dir.toString(), "text"),
                "weight mpnet.encoder.relative_attention_bias.weight has shape [32, 4], expected [64, 4] for this config");
    }

    /** Without sentence-transformers' max_seq_length to cut at, a text past the 512 positions is refused. */
    @Test
    void aTextPastTheMaximumIsRefused() {
        String text = "the ".repeat(600);
        assertUserError(run("embed", "--model", MPNET.resolve("mpnet-mlm").toString(), text), "is 602 tokens, longer than the model's 512");
    }

    private Path copy(String fixture, String name) throws IOException {
        Path to = Files.createDirectories(work.resolve(name));
        try (Stream<Path> files = Files.list(MPNET.resolve(fixture))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, to.resolve(f.getFileName()));
            }
        }
        return to;
    }
}
