package org.vectorbert.tokenizer.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * {@code BPE}: a word starts as one symbol per character (the continuing-subword prefix on all
 * but the first, the end-of-word suffix on the last); characters missing from the vocabulary
 * become {@code <0xHH>} byte tokens (byte_fallback), the unknown token (consecutive ones fused
 * with fuse_unk), or are dropped when there is no unknown token, as the tokenizers library does.
 * Then the adjacent pair with the lowest merge rank is merged, the leftmost on ties, until no
 * pair has a merge. Dropout other than none is refused at load.
 */
public final class BpeModel implements Model {
    private final Vocab vocab;
    /** (left id, right id) to {rank, merged id}. */
    private final Map<Long, int[]> merges;
    private final String unkToken;
    private final int unkId;
    private final String prefix;
    private final String suffix;
    private final boolean fuseUnk;
    private final boolean byteFallback;
    private final boolean ignoreMerges;

    /**
     * @param merges pairs in rank order
     */
    public BpeModel(Vocab vocab, List<String[]> merges, String unkToken, String prefix, String suffix,
                    boolean fuseUnk, boolean byteFallback, boolean ignoreMerges, String where) {
        this.vocab = vocab;
        this.unkToken = unkToken;
        this.unkId = unkToken == null ? -1 : vocab.id(unkToken);
        this.prefix = prefix;
        this.suffix = suffix;
        this.fuseUnk = fuseUnk;
        this.byteFallback = byteFallback;
        this.ignoreMerges = ignoreMerges;
        this.merges = new HashMap<>(merges.size() * 2);
        int prefixLength = prefix == null ? 0 : prefix.length();
        for (int rank = 0; rank < merges.size(); rank++) {
            String[] m = merges.get(rank);
            int a = vocab.id(m[0]);
            int b = vocab.id(m[1]);
            if (a < 0 || b < 0) {
                throw new TokenizerException(where + ": merge " + (rank + 1) + " \"" + m[0] + " " + m[1]
                        + "\" names token '" + (a < 0 ? m[0] : m[1]) + "', which is not in the vocabulary");
            }
            String right = prefixLength > 0 && m[1].startsWith(prefix) ? m[1].substring(prefixLength) : m[1];
            int merged = vocab.id(m[0] + right);
            if (merged < 0) {
                throw new TokenizerException(where + ": merge " + (rank + 1) + " \"" + m[0] + " " + m[1]
                        + "\" makes '" + m[0] + right + "', which is not in the vocabulary");
            }
            this.merges.putIfAbsent(key(a, b), new int[] {rank, merged});
        }
    }

    private static long key(int a, int b) {
        return (long) a << 32 | (b & 0xFFFFFFFFL);
    }

    @Override
    public void tokenize(Normalized word, Tokens out) {
        String s = word.text();
        if (ignoreMerges) {
            int whole = vocab.id(s);
            if (whole >= 0) {
                out.add(whole, s, word, 0, s.length());
                return;
            }
        }
        int n = s.length();
        // At most one symbol per UTF-16 unit, or with byte_fallback one per UTF-8 byte (at most 3 per unit).
        int capacity = (byteFallback ? 3 * n : n) + 4;
        int[] ids = new int[capacity];
        int[] starts = new int[capacity];
        int[] ends = new int[capacity];
        int count = 0;
        int unkStart = -1;
        int unkEnd = -1;
        for (int i = 0; i < n; ) {
            int cp = s.codePointAt(i);
            int end = i + Character.charCount(cp);
            String sym = s.substring(i, end);
            if (i > 0 && prefix != null) {
                sym = prefix + sym;
            }
            if (end == n && suffix != null) {
                sym = sym + suffix;
            }
            int id = vocab.id(sym);
            if (id >= 0) {
                if (unkStart >= 0) {
                    count = push(ids, starts, ends, count, unkId, unkStart, unkEnd);
                    unkStart = -1;
                }
                count = push(ids, starts, ends, count, id, i, end);
            } else if (byteFallback && fallback(sym) != null) {
                int[] bytes = fallback(sym);
                for (int b : bytes) {
                    count = push(ids, starts, ends, count, b, i, end);
                }
            } else if (unkToken != null) {
                if (unkId < 0) {
                    throw new TokenizerException("the BPE unk_token '" + unkToken + "' is not in the vocabulary");
                }
                if (unkStart >= 0 && fuseUnk) {
                    unkEnd = end;
                } else {
                    if (unkStart >= 0) {
                        count = push(ids, starts, ends, count, unkId, unkStart, unkEnd);
                    }
                    unkStart = i;
                    unkEnd = end;
                }
            }
            i = end;
        }
        if (unkStart >= 0) {
            count = push(ids, starts, ends, count, unkId, unkStart, unkEnd);
        }
        count = mergeAll(ids, starts, ends, count);
        for (int k = 0; k < count; k++) {
            out.add(ids[k], vocab.token(ids[k]), word, starts[k], ends[k]);
        }
    }

    private static int push(int[] ids, int[] starts, int[] ends, int count, int id, int start, int end) {
        ids[count] = id;
        starts[count] = start;
        ends[count] = end;
        return count + 1;
    }

    /** The {@code <0xHH>} token ids of a symbol's UTF-8 bytes, or null if one is missing. */
    private int[] fallback(String sym) {
        byte[] bytes = sym.getBytes(StandardCharsets.UTF_8);
        int[] ids = new int[bytes.length];
        for (int k = 0; k < bytes.length; k++) {
            ids[k] = vocab.id(String.format("<0x%02X>", bytes[k] & 0xFF));
            if (ids[k] < 0) {
                return null;
            }
        }
        return ids;
    }

    /** Merges the lowest-ranked adjacent pair, leftmost first, until none has a merge; returns the new count. */
    private int mergeAll(int[] ids, int[] starts, int[] ends, int count) {
        while (count > 1) {
            int best = -1;
            int bestRank = Integer.MAX_VALUE;
            int bestId = -1;
            for (int k = 0; k + 1 < count; k++) {
                int[] m = merges.get(key(ids[k], ids[k + 1]));
                if (m != null && m[0] < bestRank) {
                    bestRank = m[0];
                    best = k;
                    bestId = m[1];
                }
            }
            if (best < 0) {
                break;
            }
            ids[best] = bestId;
            ends[best] = ends[best + 1];
            System.arraycopy(ids, best + 2, ids, best + 1, count - best - 2);
            System.arraycopy(starts, best + 2, starts, best + 1, count - best - 2);
            System.arraycopy(ends, best + 2, ends, best + 1, count - best - 2);
            count--;
        }
        return count;
    }

    @Override
    public int tokenToId(String token) {
        return vocab.id(token);
    }

    @Override
    public String idToToken(int id) {
        return vocab.token(id);
    }

    @Override
    public int vocabSize() {
        return vocab.size();
    }
}
