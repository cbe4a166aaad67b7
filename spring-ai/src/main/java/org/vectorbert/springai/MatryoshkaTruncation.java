package org.vectorbert.springai;

/**
 * Shorter vectors from a Matryoshka-trained model (nomic-embed, mxbai-embed, EmbeddingGemma, ...):
 * the first {@code n} components kept, then scaled back to unit length, since the leading
 * components of such a model carry most of the meaning and cosine similarity wants unit vectors:
 * what sentence-transformers' {@code truncate_dim} with {@code normalize_embeddings=True} computes.
 * The model cuts through the engine's {@code dimensions} (which knows a model's own recipe); this
 * checks the numbers asked for, and {@link #truncate} is the plain cut's definition.
 */
final class MatryoshkaTruncation {
    private MatryoshkaTruncation() {}

    /**
     * {@code dimensions} itself, if a vector of {@code modelDimension} components can be cut to it;
     * else an {@link IllegalArgumentException} naming both and where the number came from.
     */
    static int requireValid(int dimensions, int modelDimension, String source) {
        if (dimensions < 1 || dimensions > modelDimension) {
            throw new IllegalArgumentException(source + " is " + dimensions + ", but the model's vectors have " + modelDimension
                    + " dimensions: ask for 1 to " + modelDimension + " (fewer keeps the first components, renormalised)");
        }
        return dimensions;
    }

    /**
     * The first {@code dimensions} components of {@code vector}, scaled to unit length (left as they are
     * if all are zero). A vector already that short is returned as it is, not renormalised, so that
     * asking for the model's own dimension gives exactly the engine's vector.
     */
    static float[] truncate(float[] vector, int dimensions) {
        if (dimensions == vector.length) {
            return vector;
        }
        requireValid(dimensions, vector.length, "the number of dimensions asked for");
        double sumOfSquares = 0;
        for (int i = 0; i < dimensions; i++) {
            sumOfSquares += (double) vector[i] * vector[i];
        }
        float[] cut = new float[dimensions];
        double scale = sumOfSquares > 0 ? 1 / Math.sqrt(sumOfSquares) : 1;
        for (int i = 0; i < dimensions; i++) {
            cut[i] = (float) (vector[i] * scale);
        }
        return cut;
    }
}
