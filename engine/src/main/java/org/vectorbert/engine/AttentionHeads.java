package org.vectorbert.engine;

/** Every head of every sequence of a pass through the attention kernel, on the kernel threads: the shared step of each architecture's attention. */
final class AttentionHeads {
    private AttentionHeads() {}

    /**
     * Sequence b's queries, rows queryStarts[b] .. + queryCounts[b] of ws.q, against its keys and values; context to ws.ctx.
     * The queries are the sequence's positions in order, or with a {@code selection} the positions it selected; each head
     * takes {@code bias} (or none, when null) on its scores and sees only the keys within {@code window} (0: every key;
     * {@link AttentionKernel#CAUSAL}: those up to its own position).
     * With {@code probabilities} ([size, heads, length, length], padded layout only) they are kept there.
     */
    static void attend(RowLayout layout, Workspace ws, int heads, int headSize, int[] queryStarts, int[] queryCounts,
                       RowSelection selection, RelativePositionBias bias, int window, float[] probabilities) {
        int hidden = heads * headSize;
        int longest = layout.longest();
        int square = longest * longest;
        int work = Kernels.attentionScratch(longest, headSize);
        Parallel.forRange(layout.starts().length * heads, 1, (from, to) -> {
            float[] scratch = Kernels.attentionScratch(work);
            for (int task = from; task < to; task++) {
                int b = task / heads;
                int h = task % heads;
                if (queryCounts[b] == 0) {
                    continue;
                }
                int seq = layout.lengths()[b];
                int row0 = layout.starts()[b];
                int[] positions = null;
                if (selection != null) {
                    positions = new int[queryCounts[b]];
                    for (int i = 0; i < positions.length; i++) {
                        positions[i] = selection.rows()[queryStarts[b] + i] - row0;
                    }
                }
                int[] biasRows = null;
                if (bias != null) {
                    biasRows = new int[queryCounts[b]];
                    for (int i = 0; i < biasRows.length; i++) {
                        biasRows[i] = bias.offset(h, positions == null ? i : positions[i]);
                    }
                }
                Kernels.attention(ws.q, queryStarts[b], queryCounts[b], ws.k, ws.v, hidden, row0, seq, h * headSize,
                        headSize, ws.mask, row0, bias == null ? null : bias.rows(), biasRows, positions, window, probabilities,
                        task * square, ws.ctx, scratch, 0);
            }
        });
    }
}
