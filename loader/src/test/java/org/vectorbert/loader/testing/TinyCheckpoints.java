package org.vectorbert.loader.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.Tensor;

/** Made-up checkpoints for tests: a tiny BERT config and whichever tensors a test names. Shared through the test-jar. */
public final class TinyCheckpoints {
    private TinyCheckpoints() {}

    /**
     * A tiny BERT (hidden 4, 2 heads, 1 layer, intermediate 8, vocab 10, 16 positions) in {@code modelDir},
     * with the given tensors, each filled with its element index; {@code extraConfig} is appended to config.json's fields.
     */
    public static Path write(Path modelDir, Map<String, long[]> tensors, String extraConfig) throws IOException {
        Files.createDirectories(modelDir);
        Files.writeString(modelDir.resolve("config.json"), "{\"hidden_size\": 4, \"num_attention_heads\": 2, \"num_hidden_layers\": 1,"
                + " \"intermediate_size\": 8, \"vocab_size\": 10, \"max_position_embeddings\": 16" + extraConfig + "}");
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        tensors.forEach((name, shape) -> specs.add(new SafetensorsWriter.Spec(name, DType.F32, shape)));
        try (SafetensorsWriter w = new SafetensorsWriter(modelDir.resolve("model.safetensors"), specs, Map.of())) {
            for (SafetensorsWriter.Spec s : specs) {
                float[] values = new float[(int) Tensor.elementCount(s.shape())];
                for (int i = 0; i < values.length; i++) {
                    values[i] = i;
                }
                w.write(values);
            }
            w.finish();
        }
        return modelDir;
    }
}
