package org.vectorbert.engine;

import java.util.Random;

/**
 * A JVM of its own for {@link KernelCompilationTest}: runs a {@link DenseLayer}'s matrix product for {@code args[0]}
 * seconds before any model is loaded, as a program that uses the kernels alone does.
 */
public final class DenseFirstMain {
    private DenseFirstMain() {}

    public static void main(String[] args) {
        Random random = new Random(1);
        float[] w = new float[768 * 768];
        for (int i = 0; i < w.length; i++) {
            w[i] = (float) random.nextGaussian();
        }
        DenseLayer layer = DenseLayer.of(w, 768, 768, new float[768]);
        float[] x = new float[32 * 768];
        float[] y = new float[32 * 768];
        long until = System.nanoTime() + (long) (Double.parseDouble(args[0]) * 1e9);
        while (System.nanoTime() < until) {
            layer.apply(x, 32, y);
        }
    }
}
