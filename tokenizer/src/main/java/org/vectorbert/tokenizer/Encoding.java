package org.vectorbert.tokenizer;

import java.util.Arrays;
import java.util.List;

/**
 * One encoded text (or text pair), position by position. The arrays are the encoding's own and
 * are handed out without copying: treat them as read-only.
 *
 * @param tokens            the token strings
 * @param ids               token ids ({@code input_ids})
 * @param typeIds           0 for the first text and its special tokens, 1 for the second ({@code token_type_ids})
 * @param attentionMask     1 for real tokens, 0 for padding
 * @param specialTokensMask 1 for added special tokens and padding, 0 for tokens of the text
 * @param starts            start of each token's span in the source text, in UTF-16 {@code char}s; special tokens get (0, 0)
 * @param ends              end (exclusive) of each token's span, in UTF-16 {@code char}s
 * @param sequenceIds       0 or 1 for the text a token came from, -1 for added special tokens and padding
 * @param overflowing       the windows truncation cut off (with stride, each with the special tokens
 *                          of its own), in the tokenizers library's order; empty without truncation
 */
public record Encoding(
        List<String> tokens,
        int[] ids,
        int[] typeIds,
        int[] attentionMask,
        int[] specialTokensMask,
        int[] starts,
        int[] ends,
        int[] sequenceIds,
        List<Encoding> overflowing) {

    /**
     * Keeps the arrays as given and a copy of the overflow windows.
     *
     * @throws NullPointerException if {@code overflowing} is null
     */
    public Encoding {
        overflowing = List.copyOf(overflowing);
    }

    /**
     * An encoding with no overflow windows.
     *
     * @param tokens            the token strings
     * @param ids               token ids
     * @param typeIds           token type ids
     * @param attentionMask     1 for real tokens, 0 for padding
     * @param specialTokensMask 1 for added special tokens and padding
     * @param starts            start of each token's span in the source text, in UTF-16 chars
     * @param ends              end (exclusive) of each token's span
     * @param sequenceIds       the text each token came from, -1 for special tokens and padding
     */
    public Encoding(List<String> tokens, int[] ids, int[] typeIds, int[] attentionMask, int[] specialTokensMask,
                    int[] starts, int[] ends, int[] sequenceIds) {
        this(tokens, ids, typeIds, attentionMask, specialTokensMask, starts, ends, sequenceIds, List.of());
    }

    /**
     * The number of tokens.
     *
     * @return the length, special tokens and padding included
     */
    public int length() {
        return ids.length;
    }

    /**
     * Spans as code-point indices, the unit Hugging Face's Python offsets use ({@code offset_mapping}).
     *
     * @param first  the first text this encoding came from
     * @param second the second text, or null for a single text
     * @return per token, its start and end in code points; (0, 0) for special tokens and padding
     */
    public int[][] codePointOffsets(String first, String second) {
        int[][] offsets = new int[ids.length][];
        for (int i = 0; i < ids.length; i++) {
            String source = sequenceIds[i] == 1 ? second : first;
            offsets[i] = sequenceIds[i] < 0
                    ? new int[] {0, 0}
                    : new int[] {source.codePointCount(0, starts[i]), source.codePointCount(0, ends[i])};
        }
        return offsets;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Encoding e
                && tokens.equals(e.tokens)
                && Arrays.equals(ids, e.ids)
                && Arrays.equals(typeIds, e.typeIds)
                && Arrays.equals(attentionMask, e.attentionMask)
                && Arrays.equals(specialTokensMask, e.specialTokensMask)
                && Arrays.equals(starts, e.starts)
                && Arrays.equals(ends, e.ends)
                && Arrays.equals(sequenceIds, e.sequenceIds)
                && overflowing.equals(e.overflowing);
    }

    @Override
    public int hashCode() {
        return 31 * tokens.hashCode() + Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
        return "Encoding" + tokens + Arrays.toString(ids);
    }
}
