package org.vectorbert.engine;

/**
 * Where a pass keeps each sequence of a {@link Batch} in its [rows, hidden] buffers.
 *
 * <p>{@link #padded}: sequence b in rows b·length .. (b + 1)·length, padding included, as the batch holds its ids; attention
 * masks the padded keys. {@link #packed}: the sequences' real tokens back to back, no padding rows at all, each sequence
 * attending over its own length. Every kernel but attention works row by row, and attention's masked keys add exact zeros,
 * so a real token's floats are the same either way (BertModelTest holds it to that, bit for bit); packed does no work for
 * padding, which a server's passes of mixed lengths are full of.
 *
 * @param rows    rows the pass computes
 * @param starts  each sequence's first row
 * @param lengths each sequence's rows: the batch's length (padded) or its real length (packed)
 * @param longest the largest of lengths
 */
record RowLayout(int rows, int[] starts, int[] lengths, int longest) {
    static RowLayout padded(Batch batch) {
        int[] starts = new int[batch.size()];
        int[] lengths = new int[batch.size()];
        for (int b = 0; b < starts.length; b++) {
            starts[b] = b * batch.length();
            lengths[b] = batch.length();
        }
        return new RowLayout(batch.rows(), starts, lengths, batch.length());
    }

    static RowLayout packed(Batch batch) {
        int[] starts = new int[batch.size()];
        int rows = 0;
        int longest = 0;
        for (int b = 0; b < starts.length; b++) {
            starts[b] = rows;
            rows += batch.lengths()[b];
            longest = Math.max(longest, batch.lengths()[b]);
        }
        return new RowLayout(rows, starts, batch.lengths().clone(), longest);
    }

    /** Whether this is the batch's own padded layout: row b·length + i is token i of sequence b. */
    boolean isPadded(Batch batch) {
        return rows == batch.rows();
    }

    /**
     * Moves a packed pass's rows of {@code width} floats in x to where the padded layout has them, and zeroes the padding
     * rows: x then reads as the batch's [size, length, width]. Last sequence first, as each moves up or stays.
     */
    void unpack(float[] x, Batch batch, int width) {
        for (int b = starts.length - 1; b >= 0; b--) {
            int to = b * batch.length() * width;
            System.arraycopy(x, starts[b] * width, x, to, lengths[b] * width);
            java.util.Arrays.fill(x, to + lengths[b] * width, to + batch.length() * width, 0f);
        }
    }
}
