package org.vectorbert.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.LoaderException;

/** TensorFlow names, and checkpoints that are not what they claim, on small made-up inputs. */
class TfNamesTest {
    @TempDir
    Path dir;

    private static String refusal(Runnable action) {
        return assertThrows(LoaderException.class, action::run).getMessage();
    }

    @Test
    void tensorFlowNamesMapToHuggingFace() {
        assertEquals(new TfNames.Mapped("bert.encoder.layer.10.attention.self.query.weight", true),
                TfNames.fromTensorFlow("module/bert/encoder/layer_10/attention/self/query/kernel"));
        assertEquals(new TfNames.Mapped("bert.embeddings.LayerNorm.weight", false),
                TfNames.fromTensorFlow("bert/embeddings/LayerNorm/gamma"));
        assertEquals(new TfNames.Mapped("bert.embeddings.position_embeddings.weight", false),
                TfNames.fromTensorFlow("bert/embeddings/position_embeddings"));
        assertEquals(new TfNames.Mapped("cls.predictions.bias", false), TfNames.fromTensorFlow("cls/predictions/output_bias"));
        assertEquals(null, TfNames.fromTensorFlow("global_step"));
        assertEquals(null, TfNames.fromTensorFlow("bert/pooler/dense/kernel/adam_m"));
    }

    @Test
    void corruptTensorBundlesAreRefused() throws IOException {
        assertTrue(refusal(() -> TensorBundle.parseIndex(new byte[100], "x.index")).contains("no table magic number"));
        assertTrue(refusal(() -> TfImport.convert(dir.resolve("nothing"), dir.resolve("out"), (d, t) -> { }))
                .startsWith("no TensorFlow checkpoint at " + dir.resolve("nothing")));
        Path notAJar = Files.writeString(dir.resolve("notes.txt"), "hello");
        assertTrue(refusal(() -> TfImport.convert(notAJar, dir.resolve("out"), (d, t) -> { }))
                .contains("is neither a TensorFlow checkpoint nor a jar/zip"));
    }
}
