package org.vectorbert.engine;

import java.util.Arrays;

/**
 * The rows of a pass's layout that its reader reads of the last hidden state (the heads' rows, a [CLS] or last token):
 * all the last layer needs to compute ({@link BertLayer#forwardAt}). Keys and values need every row, but the queries,
 * the attention output, the feed-forward block and the LayerNorms work row by row, so a row computed alone has the same
 * floats as in the whole pass. For fill-mask, a classifier or a cross-encoder that is most of the last layer: a
 * twelfth of bert-base's matrix work, a sixth of a six-layer MiniLM's.
 *
 * @param rows   the layout's rows, sequence after sequence, in order within each
 * @param starts each sequence's first entry in rows
 * @param counts each sequence's entries in rows (0 for a sequence read nowhere)
 */
record RowSelection(int[] rows, int[] starts, int[] counts) {
    /**
     * The layout rows of {@code batchRows} (row = sequence · length + position, duplicates allowed), or null when the
     * selection would save nothing (every row is read) or a row is not one the layout computes (padding of a packed pass).
     */
    static RowSelection of(Batch batch, RowLayout layout, int[] batchRows) {
        boolean[] read = new boolean[batch.rows()];
        for (int r : batchRows) {
            int b = r / batch.length();
            if (r % batch.length() >= layout.lengths()[b]) {
                return null;
            }
            read[r] = true;
        }
        int sequences = batch.size();
        int[] starts = new int[sequences];
        int[] counts = new int[sequences];
        int[] rows = new int[batchRows.length];
        int n = 0;
        for (int b = 0; b < sequences; b++) {
            starts[b] = n;
            for (int i = 0; i < layout.lengths()[b]; i++) {
                if (read[b * batch.length() + i]) {
                    rows[n++] = layout.starts()[b] + i;
                }
            }
            counts[b] = n - starts[b];
        }
        return n == layout.rows() ? null : new RowSelection(Arrays.copyOf(rows, n), starts, counts);
    }

    /** Rows selected. */
    int size() {
        return rows.length;
    }

    /** Copies the selected rows of {@code from} ([layout rows, width]) to rows 0 .. size() - 1 of {@code to}. */
    void gather(float[] from, int width, float[] to) {
        for (int i = 0; i < rows.length; i++) {
            System.arraycopy(from, rows[i] * width, to, i * width, width);
        }
    }

    /** Copies rows 0 .. size() - 1 of {@code from} back to the selected rows of {@code to} ([layout rows, width]). */
    void scatter(float[] from, int width, float[] to) {
        for (int i = 0; i < rows.length; i++) {
            System.arraycopy(from, i * width, to, rows[i] * width, width);
        }
    }
}
