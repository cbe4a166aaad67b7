package org.vectorbert.engine;

import java.util.Arrays;
import org.vectorbert.loader.BertConfig;

/**
 * A bias on each head's scores by the key's distance from its query: ALiBi's ({@link #alibi}), or MPNet's relative
 * position bias ({@code encoder.relative_attention_bias}, [buckets, heads]): one table for every layer,
 * read at T5's bidirectional bucket of each key's distance from its query and added to that head's scaled scores.
 * Laid out for the attention kernel: per head one row over every distance key − query from −(span − 1) on, so a query's
 * bias over its keys is a contiguous slice, padded past the longest sequence by whole vector pairs.
 *
 * @param rows      per head, the bias at distance d in column d + span − 1
 * @param rowLength floats per head's row
 * @param span      the longest sequence the model takes
 */
record RelativePositionBias(float[] rows, int rowLength, int span) {
    /** transformers' compute_position_bias calls relative_position_bucket with its defaults whatever the config says. */
    static final int BUCKETS = 32;
    static final int MAX_DISTANCE = 128;

    /** The table under {@code scope} ({@code relative_attention_bias.weight}) laid out for sequences of up to {@code c.maxTokens()} tokens. */
    static RelativePositionBias load(Scope scope, BertConfig c) {
        int heads = c.numAttentionHeads();
        float[] table = scope.matrix("relative_attention_bias.weight", c.relativeAttentionBuckets(), heads);
        int span = c.maxTokens();
        int rowLength = 2 * span + 2 * Lanes.L;
        float[] rows = new float[heads * rowLength];
        for (int h = 0; h < heads; h++) {
            for (int col = 0; col < rowLength; col++) {
                rows[h * rowLength + col] = table[bucket(col - (span - 1)) * heads + h];
            }
        }
        return new RelativePositionBias(rows, rowLength, span);
    }

    /**
     * ALiBi's symmetric bias, −slope[h]·|key − query|, for {@code heads} heads over sequences of up to {@code span} tokens,
     * each a float32 product as JinaBERT's code makes it.
     */
    static RelativePositionBias alibi(int heads, int span) {
        double[] slopes = alibiSlopes(heads);
        int rowLength = 2 * span + 2 * Lanes.L;
        float[] rows = new float[heads * rowLength];
        for (int h = 0; h < heads; h++) {
            float slope = (float) slopes[h];
            for (int col = 0; col < rowLength; col++) {
                rows[h * rowLength + col] = slope * (float) -Math.abs(col - (span - 1));
            }
        }
        return new RelativePositionBias(rows, rowLength, span);
    }

    /**
     * ALiBi's head slopes as JinaBERT's {@code _get_alibi_head_slopes} gives them: 2^(−8(k+1)/n) for n a power of two; else
     * the m slopes of m heads (m the largest power of two below n), then every other slope of 2m heads, n − m of them.
     */
    static double[] alibiSlopes(int n) {
        if (Integer.bitCount(n) == 1) {
            int log = Integer.numberOfTrailingZeros(n);
            double start = Math.pow(2, -Math.pow(2, -(log - 3)));
            double[] slopes = new double[n];
            for (int i = 0; i < n; i++) {
                slopes[i] = start * Math.pow(start, i);
            }
            return slopes;
        }
        int closest = Integer.highestOneBit(n);
        double[] first = alibiSlopes(closest);
        double[] twice = alibiSlopes(2 * closest);
        double[] slopes = Arrays.copyOf(first, n);
        for (int i = 0; i < n - closest; i++) {
            slopes[closest + i] = twice[2 * i];
        }
        return slopes;
    }

    /**
     * The bucket of a key {@code relative} positions after its query (negative: before), as transformers'
     * {@code MPNetEncoder.relative_position_bucket}: the upper half for keys after the query, exact distances below 8,
     * then log-spaced up to 128, the last bucket beyond; the log in float32, as torch computes it, truncated.
     */
    static int bucket(int relative) {
        int half = BUCKETS / 2;
        int base = relative > 0 ? half : 0;
        int d = Math.abs(relative);
        int exact = half / 2;
        if (d < exact) {
            return base + d;
        }
        float log = (float) Math.log(d / (float) exact);
        float scaled = log / (float) Math.log(MAX_DISTANCE / (double) exact) * (half - exact);
        return base + Math.min(half - 1, exact + (int) scaled);
    }

    /** Where head {@code head}'s bias for the query at {@code position} begins: its key 0's entry, keys following. */
    int offset(int head, int position) {
        return head * rowLength + span - 1 - position;
    }
}
