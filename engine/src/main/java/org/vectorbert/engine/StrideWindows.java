package org.vectorbert.engine;

import java.util.ArrayList;
import java.util.List;
import org.vectorbert.tokenizer.Encoding;

/**
 * Overflow windows as the tokenizers library cut them up to 0.22.2, which transformers' pipelines were written
 * for: 0.23.1 and later stop tokenizing a right-truncated text at the limit, so their windows stop short
 * (huggingface/tokenizers#2091). Windows are cut here from the whole encoding instead: the tokens before and after
 * the cut text in each, and the cut text's tokens in windows of {@code room}, each starting {@code room - stride}
 * tokens after the one before, the last ending at the text's end.
 */
final class StrideWindows {
    private StrideWindows() {}

    /** Where sequence {@code sequence}'s tokens lie in {@code e}: {first, count}, first = e.length() when it has none. */
    static int[] span(Encoding e, int sequence) {
        int first = -1;
        int count = 0;
        for (int i = 0; i < e.length(); i++) {
            if (e.sequenceIds()[i] == sequence) {
                first = first < 0 ? i : first;
                count++;
            }
        }
        return new int[] {first < 0 ? e.length() : first, count};
    }

    /** The [from, to) token ranges of a text of {@code n} tokens. */
    static List<int[]> ranges(int n, int room, int stride) {
        if (room <= 0 || stride < 0 || stride >= room) {
            throw new IllegalArgumentException("room " + room + ", stride " + stride);
        }
        List<int[]> ranges = new ArrayList<>();
        for (int start = 0; ; start += room - stride) {
            int stop = Math.min(start + room, n);
            ranges.add(new int[] {start, stop});
            if (stop == n) {
                return ranges;
            }
        }
    }

    /**
     * {@code e} with only tokens [from, to) of the cut text, which spans positions [first, first + n): the
     * tokens before the text, those of the range, and the tokens after the text.
     */
    static Encoding slice(Encoding e, int first, int n, int from, int to) {
        int after = e.length() - first - n;
        int length = first + (to - from) + after;
        int[][] parts = {e.ids(), e.typeIds(), e.attentionMask(), e.specialTokensMask(), e.starts(), e.ends(), e.sequenceIds()};
        int[][] out = new int[parts.length][length];
        for (int k = 0; k < parts.length; k++) {
            System.arraycopy(parts[k], 0, out[k], 0, first);
            System.arraycopy(parts[k], first + from, out[k], first, to - from);
            System.arraycopy(parts[k], first + n, out[k], first + (to - from), after);
        }
        List<String> tokens = new ArrayList<>(length);
        tokens.addAll(e.tokens().subList(0, first));
        tokens.addAll(e.tokens().subList(first + from, first + to));
        tokens.addAll(e.tokens().subList(first + n, e.length()));
        return new Encoding(tokens, out[0], out[1], out[2], out[3], out[4], out[5], out[6]);
    }
}
