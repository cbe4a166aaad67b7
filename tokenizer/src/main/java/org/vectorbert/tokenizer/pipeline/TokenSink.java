package org.vectorbert.tokenizer.pipeline;

import java.util.Arrays;

/**
 * One text's tokens as {@link PipelineTokenizer} collects them, word by word, with what truncation
 * needs to know about the words (see PipelineTokenizer.tokens): where each word starts, only when
 * truncating from the left, and when to stop, only when truncating from the right. Without
 * truncation a word costs one call and no bookkeeping.
 */
final class TokenSink {
    final Tokens out;
    private final int limit;
    private final boolean right;
    /** The first token of each word, and whether the word is an added token; left truncation and word ids only. */
    private int[] wordStarts;
    private boolean[] addedWords;
    private int words;

    /** A sink for about {@code expected} tokens (it grows past them). */
    TokenSink(int limit, boolean right, int expected) {
        this(limit, right, !right && limit < Integer.MAX_VALUE, expected);
    }

    private TokenSink(int limit, boolean right, boolean recordWords, int expected) {
        this.out = Tokens.unlabelled(expected);
        this.limit = limit;
        this.right = right;
        if (recordWords) {
            wordStarts = new int[16];
            addedWords = new boolean[16];
        }
    }

    /** A sink with no limit that records where every word starts, for {@link #wordIds}. */
    static TokenSink countingWords() {
        return new TokenSink(Integer.MAX_VALUE, true, true, 16);
    }

    /** Each token's word index, words counted in order (a sink made by {@link #countingWords}). */
    int[] wordIds() {
        int[] ids = new int[out.size];
        for (int k = 0; k < words; k++) {
            int end = k + 1 < words ? wordStarts[k + 1] : out.size;
            Arrays.fill(ids, wordStarts[k], end, k);
        }
        return ids;
    }

    /** A word's tokens, from token {@code before} on, have been added; true when no more words may follow. */
    boolean word(int before) {
        if (wordStarts != null) {
            record(before, false);
        }
        return right && out.size >= limit;
    }

    /** How many words have been recorded (for {@link #rewind}). */
    int words() {
        return words;
    }

    /** Forgets the words recorded after {@code words} (their tokens are the caller's to drop). */
    void rewind(int words) {
        this.words = Math.min(this.words, words);
    }

    /** An added token's word starts at token {@code before}; it never stops the text. */
    void added(int before) {
        if (wordStarts != null) {
            record(before, true);
        }
    }

    private void record(int before, boolean added) {
        if (words == wordStarts.length) {
            wordStarts = Arrays.copyOf(wordStarts, words * 2);
            addedWords = Arrays.copyOf(addedWords, words * 2);
        }
        wordStarts[words] = before;
        addedWords[words++] = added;
    }

    /** The left-side pre-cut (see PipelineTokenizer.tokens) and the sequence id. */
    Tokens finish(int sequence) {
        Tokens t = out;
        if (wordStarts != null && t.size > limit) {
            // The same from the end: the first word, counting back, that brings the kept tokens to limit.
            for (int k = words - 1; k > 0; k--) {
                if (!addedWords[k] && t.size - wordStarts[k] >= limit) {
                    t = t.range(wordStarts[k], t.size);
                    break;
                }
            }
        }
        t.setSequence(sequence, sequence);
        return t;
    }
}
