package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.engine.Batch;
import org.vectorbert.engine.BertModel;
import org.vectorbert.engine.Encoder;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Tokenizer;

/** {@code embed --pooling none --layer N}: a middle layer's token vectors, as the library's hidden states hold them. */
@Tag("heavy")
class EmbedLayerTest {
    @TempDir
    Path work;

    @Test
    void aLayersTokenVectorsAreTheLibrarysHiddenState() throws IOException {
        Path model = TestModels.bertBaseUncased();
        List<String> texts = List.of("Paris is the capital of France.", "hello world");
        BertModel library = BertModel.load(model);
        Tokenizer tokenizer = Tokenizer.fromDirectory(model);
        for (String layer : List.of("0", "5", "-2", "-13")) {
            var r = run("embed", "--model", model.toString(), "--pooling", "none", "--layer", layer, "--json", texts.get(0), texts.get(1));
            assertEquals(0, r.exit(), r.err());
            int index = Math.floorMod(Integer.parseInt(layer), 13);
            for (int t = 0; t < texts.size(); t++) {
                JsonNode line = r.jsonLines().get(t);
                assertEquals(index, line.get("layer").asInt());
                Encoding e = tokenizer.encode(texts.get(t));
                float[] want = library.forward(Batch.of(e.ids(), e.typeIds()), Encoder.Request.lastHiddenState().withAllHiddenStates())
                        .hiddenStates().get(index);
                JsonNode rows = line.get("hidden_state");
                assertEquals(e.ids().length, rows.size());
                for (int i = 0; i < rows.size(); i++) {
                    for (int j = 0; j < 768; j++) {
                        assertEquals(want[i * 768 + j], rows.get(i).get(j).floatValue(), 1e-5, "layer " + layer + ", token " + i);
                    }
                }
            }
        }
        // -1 is the last layer: what --pooling none gives without --layer.
        var last = run("embed", "--model", model.toString(), "--pooling", "none", "--layer", "-1", "--json", texts.get(1));
        var plain = run("embed", "--model", model.toString(), "--pooling", "none", "--json", texts.get(1));
        assertEquals(plain.jsonLines().getFirst().get("last_hidden_state"), last.jsonLines().getFirst().get("hidden_state"));
        // .npy: [texts, longest, hidden], zero-padded, as --pooling none writes the last layer.
        Path npy = work.resolve("layer.npy");
        var written = run("embed", "--model", model.toString(), "--pooling", "none", "--layer", "3", "--output", npy.toString(),
                texts.get(0), texts.get(1));
        assertEquals(0, written.exit(), written.err());
        float[] values = ModelCommandsTest.Npy.read(npy).floats();
        var json = run("embed", "--model", model.toString(), "--pooling", "none", "--layer", "3", "--json", texts.get(0));
        JsonNode rows = json.jsonLines().getFirst().get("hidden_state");
        float[] first = new float[rows.size() * 768];
        for (int i = 0; i < first.length; i++) {
            first[i] = rows.get(i / 768).get(i % 768).floatValue();
        }
        assertArrayEquals(first, java.util.Arrays.copyOf(values, first.length));

        assertUserError(run("embed", "--model", model.toString(), "--layer", "3", "x"), "--layer gives a layer's token vectors: use it"
                + " with --pooling none");
        assertUserError(run("embed", "--model", model.toString(), "--pooling", "none", "--layer", "13", "x"),
                "--layer 13 is out of range: the model has 12 layers, so hidden states 0 (the embeddings' output) to 12, or -13 to -1");
    }
}
