package org.vectorbert.convert.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * An ELECTRA pre-training checkpoint shaped as Google's release is (electra_small/: the checkpoint and vocab.txt, no
 * config), with random weights: 64-wide heads; a discriminator 128 wide (2 heads, 2 layers) and a narrower generator
 * (48 wide, so one head, 1 layer), both reading the shared 32-wide embeddings through their own projections (which
 * ELECTRA's modeling.py makes only where the widths differ); every variable named as modeling.py and
 * run_pretraining.py name it, plus a step counter (int64, as TensorFlow keeps it) and an Adam slot.
 */
public final class ElectraReleases {
    private ElectraReleases() {}

    /** Writes the release into {@code dir} (electra_small.index, .data-00000-of-00001, vocab.txt); returns {@code dir}. */
    public static Path write(Path dir) {
        Map<String, TfBundles.Variable> v = new TreeMap<>();
        Random random = new Random(7);
        int vocab = 50;
        int embedding = 32;
        put(v, random, "electra/embeddings/word_embeddings", vocab, embedding);
        put(v, random, "electra/embeddings/position_embeddings", 24, embedding);
        put(v, random, "electra/embeddings/token_type_embeddings", 2, embedding);
        put(v, random, "electra/embeddings/LayerNorm/gamma", embedding);
        put(v, random, "electra/embeddings/LayerNorm/beta", embedding);
        encoder(v, random, "electra", embedding, 128, 2);
        put(v, random, "discriminator_predictions/dense/kernel", 128, 128);
        put(v, random, "discriminator_predictions/dense/bias", 128);
        put(v, random, "discriminator_predictions/dense_1/kernel", 128, 1);
        put(v, random, "discriminator_predictions/dense_1/bias", 1);
        encoder(v, random, "generator", embedding, 48, 1);
        put(v, random, "generator_predictions/dense/kernel", 48, embedding);
        put(v, random, "generator_predictions/dense/bias", embedding);
        put(v, random, "generator_predictions/LayerNorm/gamma", embedding);
        put(v, random, "generator_predictions/LayerNorm/beta", embedding);
        put(v, random, "generator_predictions/output_bias", vocab);
        v.put("global_step", TfBundles.Variable.int64(1_000_000));
        put(v, random, "electra/encoder/layer_0/output/dense/bias/adam_m", 128);
        TfBundles.write(dir.resolve("electra_small"), v);
        try {
            Files.writeString(dir.resolve("vocab.txt"), String.join("\n", java.util.stream.IntStream.range(0, vocab)
                    .mapToObj(i -> i < 5 ? List.of("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]").get(i) : "word" + i).toList()) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return dir;
    }

    /** An encoder's embedding projection and layers, named as ELECTRA's modeling.py names them. */
    private static void encoder(Map<String, TfBundles.Variable> v, Random random, String scope, int embedding, int hidden, int layers) {
        put(v, random, scope + "/embeddings_project/kernel", embedding, hidden);
        put(v, random, scope + "/embeddings_project/bias", hidden);
        for (int l = 0; l < layers; l++) {
            String p = scope + "/encoder/layer_" + l + "/";
            for (String m : List.of("attention/self/query", "attention/self/key", "attention/self/value", "attention/output/dense")) {
                put(v, random, p + m + "/kernel", hidden, hidden);
                put(v, random, p + m + "/bias", hidden);
            }
            put(v, random, p + "intermediate/dense/kernel", hidden, 4 * hidden);
            put(v, random, p + "intermediate/dense/bias", 4 * hidden);
            put(v, random, p + "output/dense/kernel", 4 * hidden, hidden);
            put(v, random, p + "output/dense/bias", hidden);
            for (String norm : List.of("attention/output/LayerNorm", "output/LayerNorm")) {
                put(v, random, p + norm + "/gamma", hidden);
                put(v, random, p + norm + "/beta", hidden);
            }
        }
    }

    private static void put(Map<String, TfBundles.Variable> v, Random random, String name, int... shape) {
        float[] values = new float[java.util.Arrays.stream(shape).reduce(1, (a, b) -> a * b)];
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) random.nextGaussian() * 0.02f;
        }
        v.put(name, new TfBundles.Variable(java.util.Arrays.stream(shape).asLongStream().toArray(), values));
    }
}
