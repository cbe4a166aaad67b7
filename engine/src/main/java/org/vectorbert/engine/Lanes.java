package org.vectorbert.engine;

import jdk.incubator.vector.VectorShape;

/**
 * How wide the kernels' vectors are: the machine's preferred shape, or the one the system property
 * {@code vectorbert.vector.bits} (128, 256 or 512) forces, so that the 256-bit path most laptops take is
 * tested on a 512-bit machine too. Known from the shape alone, without making the float species and the
 * shuffles {@link VectorMath} holds: those cost a fresh JVM tens of milliseconds, which the JVM's
 * first pass, run by {@link PlainKernels}, and the weights' layout do without. A JVM without the Vector API's
 * module, whose every pass runs plain, is told the width by that property (see {@link PlainKernels#checkVectorModule}).
 */
final class Lanes {
    /** Bits per vector. */
    static final int BITS = bits(System.getProperty("vectorbert.vector.bits"));
    /** Floats per vector. */
    static final int L = BITS / Float.SIZE;

    private Lanes() {}

    static int bits(String forced) {
        if (forced == null || forced.isBlank()) {
            PlainKernels.checkVectorModule();
            return VectorShape.preferredShape().vectorBitSize();
        }
        return switch (forced.trim()) {
            case "128", "256", "512" -> Integer.parseInt(forced.trim());
            default -> throw new EngineException("vectorbert.vector.bits must be 128, 256 or 512, was '" + forced + "'");
        };
    }
}
