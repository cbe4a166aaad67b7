package org.vectorbert.engine;

/**
 * Rotary positions' cos and sin per position and frequency, [positions, headSize / 2], as transformers'
 * {@code ModernBertRotaryEmbedding} makes them: inv_freq[i] = 1 / θ^(2i/d) and the angle p·inv_freq[i] each in float32
 * arithmetic (it forces float32), then cos and sin of that angle.
 *
 * @param cos   cos of position p's angles at p·half
 * @param sin   sin, laid out as cos
 * @param theta the base
 */
record Rotary(float[] cos, float[] sin, double theta) {
    /** The tables of base {@code theta} for heads of {@code headSize} over positions 0 .. positions − 1. */
    static Rotary of(double theta, int headSize, int positions) {
        int half = headSize / 2;
        float[] inv = new float[half];
        for (int i = 0; i < half; i++) {
            float exponent = (float) (2 * i) / (float) headSize;
            inv[i] = 1f / (float) Math.pow((float) theta, exponent);
        }
        return of(inv, positions, theta);
    }

    /**
     * The tables of inverse frequencies {@code inv} (one per pair of columns; a 0 leaves its pair as it is) over positions
     * 0 .. positions − 1: the angle p·inv[i] in float32, then its cos and sin.
     */
    static Rotary of(float[] inv, int positions, double theta) {
        int half = inv.length;
        float[] cos = new float[positions * half];
        float[] sin = new float[positions * half];
        for (int p = 0; p < positions; p++) {
            for (int i = 0; i < half; i++) {
                float angle = (float) p * inv[i];
                cos[p * half + i] = (float) Math.cos(angle);
                sin[p * half + i] = (float) Math.sin(angle);
            }
        }
        return new Rotary(cos, sin, theta);
    }

    long bytes() {
        return 4L * (cos.length + sin.length);
    }
}
