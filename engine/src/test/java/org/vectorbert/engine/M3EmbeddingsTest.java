package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.vectorbert.loader.SafetensorsFile;

/**
 * bge-m3's dense, sparse and ColBERT outputs and scores against the independent reference written from FlagEmbedding's
 * code (tools/torch-reference/make_bgem3_fixtures.py; the semantics are in architectures/bgem3/NOTES.md), with the
 * heads read from their torch.save files: both pickle shapes of {@code .pt}, and an encoder from pytorch_model.bin.
 */
class M3EmbeddingsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    static Path resource(String name) {
        try {
            return Path.of(M3EmbeddingsTest.class.getResource("/architectures/bgem3/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bgem3", "bgem3-bin"})
    void theThreeOutputsAreTheReferences(String name) throws IOException {
        Path dir = resource(name);
        M3Embeddings m3 = M3Embeddings.load(dir.toString());
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        JsonNode lexical = JSON.readTree(dir.resolve("expected_lexical_weights.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                List<String> texts = new ArrayList<>();
                cases.get(k).get("texts").forEach(t -> texts.add(t.asText()));
                List<M3Embeddings.Output> out = m3.encode(texts);
                float[] dense = expected.tensor("case" + k + ".dense_vecs").toFloatArray();
                for (int s = 0; s < texts.size(); s++) {
                    String at = name + " case" + k + " text " + s;
                    M3Embeddings.Output o = out.get(s);
                    assertArrayEquals(ints(cases.get(k).get("input_ids").get(s), o.ids().length), o.ids(), at);
                    for (int c = 0; c < o.dense().length; c++) {
                        assertEquals(dense[s * o.dense().length + c], o.dense()[c], 1e-4, at + " dense [" + c + "]");
                    }
                    JsonNode want = lexical.get("case" + k).get(s);
                    List<String> keys = new ArrayList<>();
                    want.fieldNames().forEachRemaining(keys::add);
                    assertEquals(keys, o.lexicalWeights().keySet().stream().map(String::valueOf).toList(), at + ": ids in first-positive order");
                    for (Map.Entry<Integer, Float> e : o.lexicalWeights().entrySet()) {
                        assertEquals(want.get(String.valueOf(e.getKey())).floatValue(), e.getValue(), 1e-4, at + " weight of " + e.getKey());
                    }
                    float[] colbert = expected.tensor("case" + k + ".colbert_vecs." + s).toFloatArray();
                    assertEquals(colbert.length / o.dense().length, o.multiVector().length, at);
                    for (int v = 0; v < o.multiVector().length; v++) {
                        for (int c = 0; c < o.multiVector()[v].length; c++) {
                            assertEquals(colbert[v * o.multiVector()[v].length + c], o.multiVector()[v][c], 1e-4, at + " colbert " + v);
                        }
                    }
                }
            }
        }
    }

    /** Every score matrix of 3 queries by 4 documents: dense, sparse, ColBERT, and the combinations with both weight sets. */
    @ParameterizedTest
    @ValueSource(strings = {"bgem3", "bgem3-bin"})
    void theScoresAreTheReferences(String name) throws IOException {
        Path dir = resource(name);
        M3Embeddings m3 = M3Embeddings.load(dir.toString());
        JsonNode cases = JSON.readTree(dir.resolve("inputs.json").toFile());
        List<String> queries = new ArrayList<>();
        List<String> documents = new ArrayList<>();
        cases.get(0).get("texts").forEach(t -> queries.add(t.asText()));
        cases.get(1).get("texts").forEach(t -> documents.add(t.asText()));
        float[] card = {0.4f, 0.2f, 0.4f};
        try (SafetensorsFile expected = SafetensorsFile.open(dir.resolve("expected.safetensors"))) {
            for (Object[] m : new Object[][] {{"dense", M3Embeddings.Mode.DENSE, card}, {"sparse", M3Embeddings.Mode.SPARSE, card},
                {"colbert", M3Embeddings.Mode.COLBERT, card}, {"sparse+dense", M3Embeddings.Mode.SPARSE_DENSE, card},
                {"colbert+sparse+dense", M3Embeddings.Mode.ALL, card},
                {"colbert+sparse+dense.default", M3Embeddings.Mode.ALL, M3Embeddings.DEFAULT_WEIGHTS}}) {
                float[] want = expected.tensor("scores." + m[0]).toFloatArray();
                for (int q = 0; q < queries.size(); q++) {
                    float[] got = m3.rerank(queries.get(q), documents, (M3Embeddings.Mode) m[1], (float[]) m[2]);
                    for (int d = 0; d < documents.size(); d++) {
                        assertEquals(want[q * documents.size() + d], got[d], 1e-4, name + " " + m[0] + " query " + q + " document " + d);
                    }
                }
            }
        }
        assertEquals(M3Embeddings.Mode.ALL, M3Embeddings.Mode.of("colbert+sparse+dense"));
        assertEquals(M3Embeddings.Mode.SPARSE_DENSE, M3Embeddings.Mode.of("sparse_dense"));
    }

    @Test
    void aDirectoryWithoutTheHeadFilesIsRefusedNamingThem(@TempDir Path tmp) throws IOException {
        Path dir = copy(resource("bgem3"), tmp.resolve("no-heads"));
        Files.delete(dir.resolve(M3Embeddings.COLBERT_FILE));
        EngineException e = assertThrows(EngineException.class, () -> M3Embeddings.load(dir.toString()));
        assertTrue(e.getMessage().contains("has no colbert_linear.pt"), e.getMessage());
        Path swapped = copy(resource("bgem3"), tmp.resolve("swapped"));
        Files.copy(swapped.resolve(M3Embeddings.COLBERT_FILE), swapped.resolve(M3Embeddings.SPARSE_FILE),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        e = assertThrows(EngineException.class, () -> M3Embeddings.load(swapped.toString()));
        assertTrue(e.getMessage().contains("sparse_linear.pt: expected an nn.Linear state dict (weight and bias) with weight of shape [1, 32]"),
                e.getMessage());
    }

    private static Path copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
        return to;
    }

    private static int[] ints(JsonNode array, int length) {
        int[] out = new int[length];
        for (int i = 0; i < length; i++) {
            out[i] = array.get(i).asInt();
        }
        return out;
    }
}
