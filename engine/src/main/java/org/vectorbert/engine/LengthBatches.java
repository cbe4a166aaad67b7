package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Inputs grouped into forward passes by length: sorted shortest first, each pass grown while its
 * padded size (members times its longest, which is its last) fits the token budget, so that little of
 * a pass is padding. A pass holds at least one input, however long.
 */
final class LengthBatches {
    private LengthBatches() {}

    /** The indices of {@code lengths}, in passes of at most {@code budget} padded positions. */
    static List<List<Integer>> of(int[] lengths, int budget) {
        Integer[] order = new Integer[lengths.length];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.comparingInt(i -> lengths[i]));
        List<List<Integer>> passes = new ArrayList<>();
        for (int from = 0; from < order.length; ) {
            int to = from + 1;
            while (to < order.length && (to - from + 1) * lengths[order[to]] <= budget) {
                to++;
            }
            passes.add(List.of(Arrays.copyOfRange(order, from, to)));
            from = to;
        }
        return passes;
    }
}
