package org.vectorbert.tokenizer;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/** Truncation, special tokens and padding: turns the pieces of a text or pair into {@code [CLS] A [SEP] B [SEP]}. */
final class EncodingAssembler {
    private final Vocabulary vocab;
    private final TokenizerConfig config;
    private final int clsId;
    private final int sepId;
    private final int padId;

    EncodingAssembler(Vocabulary vocab, TokenizerConfig config, int clsId, int sepId, int padId) {
        this.vocab = vocab;
        this.config = config;
        this.clsId = clsId;
        this.sepId = sepId;
        this.padId = padId;
    }

    int padTokenId() {
        if (padId < 0) {
            throw new TokenizerException("the vocabulary has no padding token '" + config.specialTokens().pad() + "'");
        }
        return padId;
    }

    /**
     * Whether truncation cuts this text or pair. A cut encoding carries what was cut as overflow
     * windows, as the tokenizers library's does; the pipeline builds them (a cut text pays for a second
     * tokenization, which only texts over the limit do).
     */
    boolean cuts(TokenBuffer first, TokenBuffer second, EncodeOptions options) {
        int added = options.addSpecialTokens() ? (second == null ? 2 : 3) : 0;
        return options.truncation() != Truncation.NONE
                && first.size + (second == null ? 0 : second.size) + added > maxLength(options);
    }

    int padLength(EncodeOptions options) {
        return options.padToLength() > 0 ? options.padToLength() : maxLength(options);
    }

    private int maxLength(EncodeOptions options) {
        return options.maxLength() > 0 ? options.maxLength() : config.modelMaxLength();
    }

    /** Truncates as the tokenizers library does, then adds [CLS] and [SEP]s around the pieces. */
    Encoding assemble(TokenBuffer first, TokenBuffer second, EncodeOptions options) {
        int added = options.addSpecialTokens() ? (second == null ? 2 : 3) : 0;
        if (options.truncation() != Truncation.NONE) {
            int max = maxLength(options);
            if (max < added) {
                throw new TokenizerException("max length " + max + " leaves no room for the " + added
                        + " special tokens");
            }
            truncate(first, second, max - added, options.truncation());
        }
        int n1 = first.size;
        int n2 = second == null ? 0 : second.size;
        int length = n1 + n2 + added;
        int[] ids = new int[length];
        int[] typeIds = new int[length];
        int[] specialMask = new int[length];
        int[] starts = new int[length];
        int[] ends = new int[length];
        int[] sequenceIds = new int[length];
        int[] attention = new int[length];
        Arrays.fill(attention, 1);
        int p = 0;
        if (options.addSpecialTokens()) {
            specialMask[p] = 1;
            sequenceIds[p] = -1;
            ids[p++] = clsId;
        }
        p = copy(first, 0, ids, typeIds, starts, ends, sequenceIds, p);
        if (options.addSpecialTokens()) {
            specialMask[p] = 1;
            sequenceIds[p] = -1;
            ids[p++] = sepId;
        }
        if (second != null) {
            int secondStart = p;
            p = copy(second, 1, ids, typeIds, starts, ends, sequenceIds, p);
            if (options.addSpecialTokens()) {
                specialMask[p] = 1;
                sequenceIds[p] = -1;
                ids[p++] = sepId;
            }
            Arrays.fill(typeIds, secondStart, p, 1);
        }
        return new Encoding(tokenList(ids), ids, typeIds, attention, specialMask, starts, ends, sequenceIds);
    }

    private static int copy(TokenBuffer from, int sequence, int[] ids, int[] typeIds, int[] starts, int[] ends,
                            int[] sequenceIds, int p) {
        System.arraycopy(from.ids, 0, ids, p, from.size);
        System.arraycopy(from.starts, 0, starts, p, from.size);
        System.arraycopy(from.ends, 0, ends, p, from.size);
        Arrays.fill(typeIds, p, p + from.size, sequence);
        Arrays.fill(sequenceIds, p, p + from.size, sequence);
        return p + from.size;
    }

    /**
     * Fits the pieces into {@code max} tokens. Longest-first on a pair keeps the shorter text whole
     * when it fits in half, and otherwise gives each half (the second the odd token), exactly as the
     * tokenizers library computes it.
     */
    private static void truncate(TokenBuffer first, TokenBuffer second, int max, Truncation strategy) {
        int n1 = first.size;
        int n2 = second == null ? 0 : second.size;
        if (n1 + n2 <= max) {
            return;
        }
        int toRemove = n1 + n2 - max;
        switch (strategy) {
            case LONGEST_FIRST -> {
                if (second == null) {
                    first.truncate(max);
                    return;
                }
                boolean swap = n1 > n2;
                int shorter = Math.min(n1, n2);
                int longer = shorter > max ? shorter : Math.max(shorter, max - shorter);
                if (shorter + longer > max) {
                    shorter = max / 2;
                    longer = shorter + max % 2;
                }
                first.truncate(swap ? longer : shorter);
                second.truncate(swap ? shorter : longer);
            }
            case ONLY_FIRST, ONLY_SECOND -> {
                TokenBuffer target = strategy == Truncation.ONLY_FIRST ? first : second;
                if (target == null) {
                    throw new TokenizerException("truncation only_second needs a second text");
                }
                if (target.size <= toRemove) {
                    throw new TokenizerException("cannot truncate with " + strategy.name().toLowerCase()
                            + ": the " + (target == first ? "first" : "second") + " text has " + target.size
                            + " tokens but " + toRemove + " must go to fit in " + max
                            + " (special tokens excluded); use longest_first");
                }
                target.truncate(target.size - toRemove);
            }
            case NONE -> { }
        }
    }

    Encoding pad(Encoding e, int length) {
        int n = e.length();
        if (n >= length) {
            return e;
        }
        int pad = padTokenId();
        int[] ids = Arrays.copyOf(e.ids(), length);
        Arrays.fill(ids, n, length, pad);
        int[] specialMask = Arrays.copyOf(e.specialTokensMask(), length);
        Arrays.fill(specialMask, n, length, 1);
        int[] sequenceIds = Arrays.copyOf(e.sequenceIds(), length);
        Arrays.fill(sequenceIds, n, length, -1);
        return new Encoding(tokenList(ids), ids, Arrays.copyOf(e.typeIds(), length),
                Arrays.copyOf(e.attentionMask(), length), specialMask,
                Arrays.copyOf(e.starts(), length), Arrays.copyOf(e.ends(), length), sequenceIds);
    }

    private List<String> tokenList(int[] ids) {
        String[] tokens = new String[ids.length];
        for (int i = 0; i < ids.length; i++) {
            tokens[i] = vocab.token(ids[i]);
        }
        return Collections.unmodifiableList(Arrays.asList(tokens));
    }
}
