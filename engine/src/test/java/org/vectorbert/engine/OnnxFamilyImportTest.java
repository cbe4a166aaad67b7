package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vectorbert.convert.testing.OnnxFamilies;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.SafetensorsFile;
import org.vectorbert.loader.Tensor;

/**
 * The ONNX importer's families end to end, where both the importer and the engine are visible: each export in
 * convert's test resources ({@code onnx/families/}, written by tools/torch-reference/export_family_onnx.py from the
 * family fixtures' weights as optimum-style torch.onnx exports) is imported into a model directory whose weights are
 * the fixture's bit for bit, and whose last hidden state, computed by the engine, is the independent PyTorch
 * reference's ({@code expected.safetensors}) within 1e-5 at every unpadded position of every case, and exactly what
 * the engine computes from the fixture's own Hugging Face directory at every position. An export of a {@code *ForXxx}
 * class brings its task head (sequence or token classification, question answering), whose logits are the
 * reference's and, bit for bit, the fixture directory's.
 */
class OnnxFamilyImportTest {
    private static final double TOLERANCE = 1e-5;

    @ParameterizedTest
    @CsvSource({"distilbert, distilbert-mlm", "distilbert-sinusoidal-seqcls, distilbert-sinusoidal-seqcls", "roberta, roberta-mlm",
        "xlm-roberta-seqcls, xlm-roberta-seqcls-regression", "electra, electra-discriminator", "bert-seqcls, bert-seqcls-1label",
        "bert-tokcls, bert-tokcls", "roberta-qa, roberta-qa"})
    void anImportedExportComputesWhatPyTorchComputes(String export, String fixture, @TempDir Path dir) throws IOException {
        Path imported = OnnxFamilies.imported(export, dir);
        Path reference = FamilyReferenceTest.resource(fixture);

        try (BertCheckpoint in = BertCheckpoint.open(imported);
             SafetensorsFile original = SafetensorsFile.open(reference.resolve("model.safetensors"))) {
            for (Tensor t : in.tensors().values()) {
                String name = Stream.of("", "distilbert.", "roberta.", "electra.", "bert.").map(p -> p + t.name())
                        .filter(original.tensors()::containsKey).findFirst().orElseThrow(() -> new AssertionError(t.name() + " is not in " + fixture));
                assertArrayEquals(original.tensor(name).shape(), t.shape(), name);
                assertArrayEquals(original.tensor(name).toFloatArray(), t.toFloatArray(), name + ": the fixture's values, in its layout");
            }
        }

        BertModel model = BertModel.load(imported);
        BertModel direct = BertModel.load(reference);
        // The export's task head (a *ForXxx class's) comes along, and gives the reference's logits; an encoder's export has none.
        HeadKind task = FamilyReferenceTest.task(fixture);
        FamilyReferenceTest.assertMatchesReference(export, model, reference, false, task);
        assertEquals(direct.config().padTokenId(), model.config().padTokenId());
        JsonNode cases = new ObjectMapper().readTree(reference.resolve("inputs.json").toFile());
        try (SafetensorsFile expected = SafetensorsFile.open(reference.resolve("expected.safetensors"))) {
            for (int k = 0; k < cases.size(); k++) {
                JsonNode c = cases.get(k);
                Batch batch = FamilyReferenceTest.batch(c, model.config().padTokenId());
                Encoder.Request request = FamilyReferenceTest.request(batch, false, task);
                Encoder.Output imports = model.forward(batch, request);
                Encoder.Output directly = direct.forward(batch, request);
                float[] got = imports.lastHiddenState();
                assertArrayEquals(directly.lastHiddenState(), got, export + " case" + k + ": the engine on the fixture's own directory");
                if (task != null) {
                    assertArrayEquals(directly.heads().get(task), imports.heads().get(task), export + " case" + k + ": " + task);
                }
                float[] want = expected.tensor("case" + k + ".last_hidden_state").toFloatArray();
                assertEquals(want.length, got.length, export + " case" + k);
                JsonNode mask = c.get("attention_mask");
                int length = mask.get(0).size();
                int hidden = want.length / (mask.size() * length);
                double worst = 0;
                for (int r = 0; r < mask.size(); r++) {
                    for (int t = 0; t < length; t++) {
                        if (mask.get(r).get(t).asInt() == 0) {
                            continue;
                        }
                        for (int d = 0; d < hidden; d++) {
                            int i = (r * length + t) * hidden + d;
                            worst = Math.max(worst, Math.abs(want[i] - got[i]));
                        }
                    }
                }
                assertTrue(worst <= TOLERANCE, export + " case" + k + ": last hidden state differs from PyTorch by " + worst);
            }
        }
    }
}
