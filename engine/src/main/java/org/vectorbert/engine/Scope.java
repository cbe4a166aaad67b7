package org.vectorbert.engine;

import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.WeightSource;

/**
 * A node of the checkpoint's name tree, as Hugging Face names it ({@code bert.encoder.layer.3.attention}).
 * Blocks take their weights through it by the names the checkpoint gives them, each checked
 * against the shape the config implies; the loader finds the spellings checkpoints in the wild use
 * (for BERT's families, without the {@code bert.} prefix, LayerNorm {@code gamma}/{@code beta}) and
 * names the tensor and both shapes when one does not fit.
 *
 * @param checkpoint the opened checkpoint ({@link org.vectorbert.loader.BertCheckpoint}, or another architecture's)
 * @param path       this node's dotted name ("" at the root)
 * @param precision  how matrices taken through {@link #linear} are held
 * @param packed     where packed matrices come from (a packed file, or packing in memory); null to pack in memory
 */
record Scope(WeightSource checkpoint, String path, Precision precision, PackedWeights packed) {
    /** The root of {@code checkpoint}'s tree, for looking at names only: matrices are packed in memory. */
    static Scope root(WeightSource checkpoint, Precision precision) {
        return root(checkpoint, precision, null);
    }

    /** The root of {@code checkpoint}'s tree, its matrices taken from {@code packed}. */
    static Scope root(WeightSource checkpoint, Precision precision, PackedWeights packed) {
        return new Scope(checkpoint, "", precision, packed);
    }

    /** The node {@code name} below this one ({@code child("layer").child("3")}, or {@code child("layer.3")}). */
    Scope child(String name) {
        return new Scope(checkpoint, name(name), precision, packed);
    }

    /** The full name of {@code leaf} under this node. */
    String name(String leaf) {
        return path.isEmpty() ? leaf : path + "." + leaf;
    }

    /** Whether the checkpoint holds {@code leaf} under this node, under any spelling. */
    boolean has(String leaf) {
        return checkpoint.find(name(leaf)).isPresent();
    }

    /** The tensor {@code leaf}, which must exist with exactly this shape. */
    Tensor tensor(String leaf, long... shape) {
        return checkpoint.require(name(leaf), shape);
    }

    /** The float32 vector {@code leaf} of {@code size} values (biases, LayerNorm weights). */
    float[] vector(String leaf, int size) {
        return tensor(leaf, size).toFloatArray();
    }

    /** A float32 matrix {@code leaf} of [rows, cols], row-major (position and token-type embeddings). */
    float[] matrix(String leaf, int rows, int cols) {
        return tensor(leaf, rows, cols).toFloatArray();
    }

    /** This node as a Linear layer: weight [out, in] and bias [out], shape-checked and packed for the matrix kernel. */
    PackedMatrix linear(int in, int out) {
        return packed(tensor("weight", out, in), tensor("bias", out), precision);
    }

    /** This node as a Linear layer whose bias [out] is there only {@code withBias} (ModernBERT's optional biases). */
    PackedMatrix linear(int in, int out, boolean withBias) {
        return packed(tensor("weight", out, in), withBias ? tensor("bias", out) : null, precision);
    }

    /** {@code weight} ([out, in]) packed at {@code precision} with {@code bias} (null for none): mapped from the packed file when there is one. */
    PackedMatrix packed(Tensor weight, Tensor bias, Precision precision) {
        return packed == null ? PackedMatrix.pack(weight, bias, precision) : packed.matrix(weight, bias, precision);
    }
}
