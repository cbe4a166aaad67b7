package org.vectorbert.engine;

import java.util.Locale;

/** How the encoder's weight matrices are held in memory; activations and sums are float32 either way. */
public enum Precision {
    /** float32: the checkpoint's numbers exactly (F16 and BF16 checkpoints widened without loss). The default. */
    F32,
    /**
     * bfloat16 matrices (rounded to nearest even from a float32 checkpoint, taken as they are from a
     * BF16 one), widened to float32 inside the kernel: half the memory and half the bytes read per
     * token, at about three significant digits per weight. Embeddings, biases and norms stay float32.
     */
    BF16;

    /**
     * f32 / fp32 / float32, or bf16 / bfloat16 (any case).
     *
     * @param name the precision's name
     * @return the precision
     */
    public static Precision parse(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "f32", "fp32", "float32" -> F32;
            case "bf16", "bfloat16" -> BF16;
            default -> throw new EngineException("unknown dtype '" + name + "': use f32 or bf16");
        };
    }

    /** {@return the lower-case name: f32 or bf16} */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
