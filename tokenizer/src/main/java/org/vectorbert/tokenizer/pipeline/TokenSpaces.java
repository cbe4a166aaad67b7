package org.vectorbert.tokenizer.pipeline;

/**
 * For each vocabulary id, the spaces {@link PostProcessor#trimByteLevelOffsets} counts at either end
 * of the token's string, counted once at load instead of for every token (reading them off each
 * token's String is its object, then its array, then one data-dependent loop per end). A token
 * string that is not the model's own for its id (an added token, a fused unknown) is counted on
 * the spot; tokens carry the table only from PipelineTokenizer.tokens to the post-processor
 * (copies for overflow windows do not).
 */
final class TokenSpaces {
    /** The model's token strings by id, to tell its own strings by reference. */
    private final String[] tokens;
    private final byte[] lead;
    private final byte[] trail;

    private TokenSpaces(String[] tokens, byte[] lead, byte[] trail) {
        this.tokens = tokens;
        this.lead = lead;
        this.trail = trail;
    }

    /** The counts for a model's tokens, ids 0 to vocabSize - 1. */
    static TokenSpaces of(Model model) {
        int n = model.vocabSize();
        String[] tokens = new String[n];
        byte[] lead = new byte[n];
        byte[] trail = new byte[n];
        for (int id = 0; id < n; id++) {
            String t = model.idToToken(id);
            if (t == null) {
                continue;
            }
            int l = lead(t);
            int r = trail(t);
            if (l <= Byte.MAX_VALUE && r <= Byte.MAX_VALUE) {
                tokens[id] = t;
                lead[id] = (byte) l;
                trail[id] = (byte) r;
            }
        }
        return new TokenSpaces(tokens, lead, trail);
    }

    /** {@code lead << 16 | trail} of token {@code value} with id {@code id}, or -1 when it is not counted here. */
    int counts(int id, String value) {
        if (id < 0 || id >= tokens.length || tokens[id] != value || value == null) {
            return -1;
        }
        return lead[id] << 16 | trail[id];
    }

    /** The spaces a token string starts with. */
    static int lead(String v) {
        int lead = 0;
        while (lead < v.length() && isSpaceChar(v.charAt(lead))) {
            lead++;
        }
        return lead;
    }

    /** The spaces a token string ends with (all of it when it is all spaces, as the lead is). */
    static int trail(String v) {
        int trail = 0;
        while (trail < v.length() && isSpaceChar(v.charAt(v.length() - 1 - trail))) {
            trail++;
        }
        return trail;
    }

    /**
     * Whether a post-processor trims byte-level offsets (so the tokens' strings are read for spaces). Tested
     * with instanceof, not a pattern switch, whose bootstrap spins a class at every tokenizer's first load.
     */
    static boolean trimsOffsets(PostProcessor p) {
        if (p instanceof PostProcessor.Bert) {
            return false;  // without loading the classes below
        }
        if (p instanceof PostProcessor.Roberta r) {
            return r.trimOffsets();
        }
        if (p instanceof PostProcessor.ByteLevelTrim b) {
            return b.trimOffsets();
        }
        return p instanceof PostProcessor.Sequence s && s.processors().stream().anyMatch(TokenSpaces::trimsOffsets);
    }

    /** A space as byte-level trimming counts it: Ġ (a space, byte-mapped) or Unicode White_Space. */
    static boolean isSpaceChar(char c) {
        if (c < 0x80) {
            // ASCII's whitespace is tab to CR and space; most token characters are ASCII.
            return c == ' ' || (c >= '\t' && c <= '\r');
        }
        return c == '\u0120' || Unicode.isWhitespace(c);
    }
}
