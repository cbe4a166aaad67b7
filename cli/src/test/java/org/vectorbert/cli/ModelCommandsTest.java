package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TfImport;

/** {@code vectorbert fill-mask} and {@code vectorbert embed} on the real bert-base-uncased. */
class ModelCommandsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path work;

    static Path model;

    @BeforeAll
    static void convert() throws Exception {
        model = work.resolve("bert-base-uncased");
        TfImport.convert(CheckpointCommandsTest.jar(), model, (d, t) -> { });
    }

    static JsonNode json(String out) throws IOException {
        return JSON.readTree(out);
    }

    @Test
    void fillMaskAnswersInThePipelinesShape() throws IOException {
        var r = run("fill-mask", "--model", model.toString(), "--json", "--top-k", "3", "Paris is the [MASK] of France.");
        assertEquals(0, r.exit(), r.err());
        JsonNode list = json(r.out());
        assertEquals(3, list.size());
        assertEquals("capital", list.get(0).get("token_str").asText());
        assertEquals(3007, list.get(0).get("token").asInt());
        assertEquals("paris is the capital of france.", list.get(0).get("sequence").asText());
        assertTrue(list.get(0).get("score").asDouble() > 0.99);

        var two = run("fill-mask", "--model", model.toString(), "--json", "The [MASK] of France is [MASK].");
        JsonNode lists = json(two.out());
        assertEquals(2, lists.size());
        assertEquals(5, lists.get(1).size());

        var table = run("fill-mask", "--model", model.toString(), "The woman worked as a [MASK].");
        assertTrue(table.out().contains("   1  nurse"), table.out());
    }

    @Test
    void fillMaskRefusesWhatItCannotAnswer() throws IOException {
        assertUserError(run("fill-mask", "--model", model.toString(), "No mask here."), "no [MASK] token in the text");
        assertUserError(run("fill-mask", "--model", model.toString(), "word ".repeat(600) + "[MASK]"),
                "a sequence of 603 tokens is longer than the model's maximum of 512 positions");
        assertUserError(run("fill-mask", "--model", model.toString(), "--top-k", "0", "a [MASK]"), "--top-k must be positive");

        // The same weights without the cls.* head: embeddings work, fill-mask says what is missing.
        Path headless = Files.createDirectories(work.resolve("headless"));
        for (String f : List.of("config.json", "vocab.txt", "tokenizer_config.json")) {
            Files.copy(model.resolve(f), headless.resolve(f));
        }
        try (SafetensorsFile full = SafetensorsFile.open(model.resolve("model.safetensors"))) {
            List<Tensor> kept = full.tensors().values().stream().filter(t -> t.name().startsWith("bert.")).toList();
            List<SafetensorsWriter.Spec> specs = new ArrayList<>();
            kept.forEach(t -> specs.add(new SafetensorsWriter.Spec(t.name(), t.dtype(), t.shape())));
            try (SafetensorsWriter w = new SafetensorsWriter(headless.resolve("model.safetensors"), specs, Map.of())) {
                kept.forEach(t -> w.write(t.data()));
                w.finish();
            }
        }
        assertUserError(run("fill-mask", "--model", headless.toString(), "a [MASK]"),
                "has no masked-language-model head (missing cls.predictions.transform.dense.weight");
        assertEquals(0, run("embed", "--model", headless.toString(), "--json", "still fine").exit());
    }

    @Test
    void embedGivesPooledVectorsTokenVectorsAndAttentions() throws IOException {
        var pooled = run("embed", "--model", model.toString(), "--json", "--pooling", "mean", "--normalize", "hello world");
        assertEquals(0, pooled.exit(), pooled.err());
        JsonNode p = json(pooled.out());
        assertEquals("[101,7592,2088,102]", p.get("input_ids").toString());
        double norm = 0;
        for (JsonNode x : p.get("embedding")) {
            norm += x.asDouble() * x.asDouble();
        }
        assertEquals(768, p.get("embedding").size());
        assertEquals(1.0, norm, 1e-5);

        var none = run("embed", "--model", model.toString(), "--json", "--pooling", "none", "--attentions",
                "--pair", "b", "a");
        JsonNode n = json(none.out());
        assertEquals(5, n.get("last_hidden_state").size());
        assertEquals(768, n.get("last_hidden_state").get(0).size());
        assertEquals(12, n.get("attentions").size());
        assertEquals(12, n.get("attentions").get(0).size());
        assertEquals(5, n.get("attentions").get(0).get(0).size());
        assertEquals(5, n.get("attentions").get(0).get(0).get(0).size());
    }

    @Test
    void embedRefusesBadRequests() {
        assertUserError(run("embed", "--model", model.toString(), "--pooling", "max", "x"), "unknown --pooling 'max'");
        assertUserError(run("embed", "--model", model.toString(), "--attentions", "x"), "--attentions needs --json");
        assertUserError(run("embed", "--model", model.toString(), "word ".repeat(600)),
                "text 1 is 602 tokens, longer than the model's 512");
        assertEquals(0, run("embed", "--model", model.toString(), "--truncate", "word ".repeat(600)).exit());
    }
}
