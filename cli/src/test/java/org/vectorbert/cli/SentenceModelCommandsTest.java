package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;

/** embed and convert with a sentence-transformers model: langchain4j's all-MiniLM-L6-v2 jar, given to --model as it is. */
@Tag("heavy")
class SentenceModelCommandsTest {
    @TempDir
    Path work;

    @Test
    void aLangchain4jJarIsConvertedOnceAndEmbedsWithItsSettings() throws IOException {
        Path jar = RealModels.allMiniLmJar();
        Path home = work.resolve("home");
        String text = "A sentence to embed, from a jar.";
        ModelCommandsTest.withProperties(Map.of("vectorbert.home", home.toString()), () -> {
            var first = run("embed", "--model", jar.toString(), "--json", text);
            assertEquals(0, first.exit(), first.err());
            assertTrue(first.err().contains("converting the ONNX export " + jar), first.err());
            assertTrue(first.err().contains("is langchain4j's AllMiniLmL6V2EmbeddingModel: embedding as it does, mean pooling"),
                    first.err());
            var second = run("embed", "--model", jar.toString(), "--json", text);
            assertEquals("", second.err(), "converted once");
            var inspected = run("inspect", "--model", jar.toString());
            assertTrue(inspected.out().contains("pooling:    mean  (langchain4j's dev.langchain4j.model.embedding.onnx.allminilml6v2"
                    + ".AllMiniLmL6V2EmbeddingModel: AllMiniLmL6V2EmbeddingModel passes PoolingMode.MEAN)\n"
                    + "normalised: yes  (langchain4j's OnnxBertBiEncoder normalises every vector)\n"
                    + "max length: 128 tokens, longer texts cut  (the truncation block of all-minilm-l6-v2-tokenizer.json)\n"), inspected.out());
            assertEquals(first.out(), second.out());
            try {
                JsonNode line = first.jsonLines().getFirst();
                assertEquals(384, line.get("embedding").size());
                double norm = 0;
                for (JsonNode x : line.get("embedding")) {
                    norm += x.floatValue() * x.floatValue();
                }
                assertEquals(1.0, norm, 1e-5, "langchain4j normalises");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void aTaskOnAnEmbeddingJarNamesTheJarNotTheDirectoryItWasConvertedInto() {
        Path jar = RealModels.allMiniLmJar();
        ModelCommandsTest.withProperties(Map.of("vectorbert.home", work.resolve("home").toString()), () -> {
            List<List<String>> tasks = List.of(List.of("rerank", "--query", "q", "x"), List.of("classify", "x"), List.of("ner", "x"),
                    List.of("qa", "--question", "q", "--context", "c"), List.of("fill-mask", "a [MASK]."));
            List<String> heads = List.of("sequence-classification", "sequence-classification", "token-classification",
                    "question-answering", "masked-language-model");
            for (int i = 0; i < tasks.size(); i++) {
                List<String> args = new java.util.ArrayList<>(List.of(tasks.get(i).getFirst(), "--model", jar.toString()));
                args.addAll(tasks.get(i).subList(1, tasks.get(i).size()));
                var r = run(args.toArray(String[]::new));
                assertUserError(r, "vectorbert: " + jar + " has no " + heads.get(i) + " head");
                String refusal = r.err().lines().toList().getLast();   // after the first run's conversion lines
                assertTrue(refusal.startsWith("vectorbert: " + jar + " has no ") && !refusal.contains("converted"), refusal);
            }
        });
    }

    @Test
    void aFileEmbedsAsTheLibraryDoesAndTheSummarySaysWhatWasCut() throws IOException {
        Path model = RealModels.allMiniLm();
        List<String> lines = List.of("short", "word ".repeat(300).trim(), "a middle-sized line of text about licenses", "x y z");
        Path input = Files.write(work.resolve("in.txt"), lines);
        Path output = work.resolve("out.npy");
        var r = run("embed", "--model", model.toString(), "--file", input.toString(), "--output", output.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().startsWith("embed: 4 texts, "), r.err());
        assertTrue(r.err().contains(" tokens/s); 1 text was cut to 256 tokens"), r.err());
        float[] written = ModelCommandsTest.Npy.read(output).floats();
        List<float[]> library = Embeddings.load(model.toString(), EmbeddingOptions.defaults()).embed(lines);
        for (int i = 0; i < lines.size(); i++) {
            assertArrayEquals(library.get(i), java.util.Arrays.copyOfRange(written, i * 384, (i + 1) * 384), "line " + i);
        }
        var inspected = run("inspect", "--model", model.toString());
        assertTrue(inspected.out().contains("pooling:    mean  (the Pooling module's config.json)\n"
                + "normalised: yes  (modules.json has a Normalize module)\n"
                + "max length: 256 tokens, longer texts cut  (sentence_bert_config.json's max_seq_length)\n"), inspected.out());
        assertUserError(run("embed", "--model", model.toString(), "--no-truncate", "word ".repeat(300)),
                "is 302 tokens, longer than the model's 256; shorten it or turn truncation on (--truncate cuts it to fit)");
    }

    @Test
    void convertFromOnnxAndWhatItRefuses() throws Exception {
        Path out = work.resolve("minilm");
        var converted = run("convert", "--from-onnx", RealModels.allMiniLmJar().toString(), "--out", out.toString());
        assertEquals(0, converted.exit(), converted.err());
        assertTrue(converted.err().contains("wrote " + out + ": 103 tensors, 22,713,216 parameters, 6 layers x 384 hidden"), converted.err());

        String url = getClass().getClassLoader().getResource("all-minilm-l6-v2-q.onnx").toString();
        Path quantised = Path.of(new URI(url.substring("jar:".length(), url.indexOf("!/"))));
        assertUserError(run("embed", "--model", quantised.toString(), "x"), "is langchain4j's quantised (int8) AllMiniLmL6V2QuantizedEmbeddingModel");
        Path broken = Files.write(work.resolve("broken.jar"), new byte[] {1, 2, 3});
        assertUserError(run("embed", "--model", broken.toString(), "x"), "is not a readable jar or zip");
        Path notes = Files.writeString(work.resolve("notes.txt"), "hello");
        assertUserError(run("embed", "--model", notes.toString(), "x"), notes + " is a file vectorbert cannot read as a model: it is not"
                + " a TensorFlow checkpoint (no bert_model.ckpt.index, variables/variables.index or a checkpoint's .index) nor an ONNX export");

        Files.writeString(out.resolve("1_Pooling/config.json"), "{\"pooling_mode_weightedmean_tokens\": true}");
        assertUserError(run("embed", "--model", out.toString(), "x"), "pooling_mode_weightedmean_tokens is a pooling mode vectorbert"
                + " does not implement (it does cls, max, mean, mean_sqrt_len, lasttoken)");
    }
}
