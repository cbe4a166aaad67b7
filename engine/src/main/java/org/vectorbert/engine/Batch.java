package org.vectorbert.engine;

import java.util.List;
import org.vectorbert.tokenizer.Encoding;

/**
 * Token ids of one or more sequences, padded on the right to a common length.
 *
 * @param size     number of sequences
 * @param length   padded length of each
 * @param ids      token ids, [size, length]
 * @param typeIds  token type ids, [size, length]
 * @param lengths  real (unpadded) length of each sequence
 */
public record Batch(int size, int length, int[] ids, int[] typeIds, int[] lengths) {

    /** {@return positions in the batch, padding included: size · length} */
    public int rows() {
        return size * length;
    }

    /** The rows of every real (unpadded) token, sequence after sequence: b·length + i for i below lengths[b]. */
    int[] realRows() {
        int[] rows = new int[java.util.Arrays.stream(lengths).sum()];
        int r = 0;
        for (int b = 0; b < size; b++) {
            for (int i = 0; i < lengths[b]; i++) {
                rows[r++] = b * length + i;
            }
        }
        return rows;
    }

    /** The first token's row of each sequence: b·length. */
    int[] firstRows() {
        int[] rows = new int[size];
        for (int b = 0; b < size; b++) {
            rows[b] = b * length;
        }
        return rows;
    }

    /**
     * A batch of one sequence.
     *
     * @param ids     the token ids
     * @param typeIds their token type ids, or null for zeros
     * @return the batch
     */
    public static Batch of(int[] ids, int[] typeIds) {
        return of(List.of(ids), List.of(typeIds), 0);
    }

    /** The encodings' ids and type ids, padded with {@code padId} to the longest. */
    static Batch of(List<Encoding> encodings, int padId) {
        return of(encodings.stream().map(Encoding::ids).toList(), encodings.stream().map(Encoding::typeIds).toList(), padId);
    }

    /**
     * Pads the sequences with {@code padId} to the longest; type ids default to 0 when null.
     *
     * @param ids     each sequence's token ids
     * @param typeIds each sequence's token type ids, or null for zeros
     * @param padId   the padding token's id
     * @return the batch
     */
    public static Batch of(List<int[]> ids, List<int[]> typeIds, int padId) {
        if (ids.isEmpty()) {
            throw new EngineException("a batch needs at least one sequence");
        }
        int length = ids.stream().mapToInt(a -> a.length).max().orElse(0);
        if (length == 0) {
            throw new EngineException("cannot encode an empty sequence");
        }
        int n = ids.size();
        int[] flat = new int[n * length];
        int[] types = new int[n * length];
        int[] lengths = new int[n];
        java.util.Arrays.fill(flat, padId);
        for (int b = 0; b < n; b++) {
            int[] seq = ids.get(b);
            if (seq.length == 0) {
                throw new EngineException("cannot encode an empty sequence (number " + b + " of the batch)");
            }
            System.arraycopy(seq, 0, flat, b * length, seq.length);
            if (typeIds != null && typeIds.get(b) != null) {
                if (typeIds.get(b).length != seq.length) {
                    throw new EngineException("sequence " + b + " has " + seq.length + " ids but " + typeIds.get(b).length + " type ids");
                }
                System.arraycopy(typeIds.get(b), 0, types, b * length, seq.length);
            }
            lengths[b] = seq.length;
        }
        return new Batch(n, length, flat, types, lengths);
    }
}
