package org.vectorbert.explorer;

import java.util.Collections;
import java.util.List;
import org.vectorbert.convert.testing.RealModels;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;

/** The real bert-base-uncased and bertviz's seed pair, shared by the explorer's tests. */
final class Seed {
    static final String TEXT = "time flies like an arrow";
    static final String PAIR = "fruit flies like a banana";
    private static Embeddings pipeline;

    private Seed() {}

    static synchronized Embeddings pipeline() {
        if (pipeline == null) {
            pipeline = Embeddings.load(RealModels.bertBaseUncased().toString(), EmbeddingOptions.defaults());
        }
        return pipeline;
    }

    static AttentionRun pair() {
        return AttentionRun.capture(pipeline(), "bert-base-uncased", TEXT, PAIR);
    }

    /** A text of exactly {@code tokens} tokens, [CLS] and [SEP] included (one word piece per common word). */
    static AttentionRun ofLength(int tokens) {
        String words = String.join(" ", Collections.nCopies((tokens - 2) / 10 + 1,
                "the quick brown fox jumps over the lazy dog ."));
        List<String> cut = List.of(words.split(" ")).subList(0, tokens - 2);
        AttentionRun run = AttentionRun.capture(pipeline(), "bert-base-uncased", String.join(" ", cut), null);
        if (run.length() != tokens) {
            throw new IllegalStateException("expected " + tokens + " tokens, got " + run.length());
        }
        return run;
    }
}
