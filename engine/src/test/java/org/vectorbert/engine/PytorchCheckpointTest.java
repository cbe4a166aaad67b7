package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model directory with only {@code pytorch_model.bin} (the family fixture bert-seqcls-1label's weights re-saved by
 * torch.save, tools/torch-reference/make_pytorch_fixtures.py) gives the bits the safetensors directory gives.
 */
class PytorchCheckpointTest {
    @TempDir
    Path tmp;

    @Test
    void pytorchWeightsGiveTheSafetensorsBits() throws IOException {
        Path family = FamilyReferenceTest.resource("bert-seqcls-1label");
        Path torch = Files.createDirectories(tmp.resolve("bert-seqcls-1label-pytorch"));
        Files.copy(family.resolve("config.json"), torch.resolve("config.json"));
        try (var in = PytorchCheckpointTest.class.getResourceAsStream("/pytorch/bert-seqcls-1label/pytorch_model.bin")) {
            Files.copy(in, torch.resolve("pytorch_model.bin"));
        }
        BertModel safetensors = (BertModel) Encoder.load(family);
        BertModel pytorch = (BertModel) Encoder.load(torch);
        JsonNode cases = new ObjectMapper().readTree(family.resolve("inputs.json").toFile());
        for (int k = 0; k < cases.size(); k++) {
            Batch batch = FamilyReferenceTest.batch(cases.get(k), safetensors.config().padTokenId());
            Encoder.Request request = FamilyReferenceTest.request(batch, false, HeadKind.SEQUENCE_CLASSIFIER);
            Encoder.Output expected = safetensors.forward(batch, request);
            Encoder.Output actual = pytorch.forward(batch, request);
            assertArrayEquals(expected.lastHiddenState(), actual.lastHiddenState(), "case " + k + " last hidden state");
            assertArrayEquals(expected.heads().get(HeadKind.SEQUENCE_CLASSIFIER), actual.heads().get(HeadKind.SEQUENCE_CLASSIFIER),
                    "case " + k + " logits");
        }
    }
}
