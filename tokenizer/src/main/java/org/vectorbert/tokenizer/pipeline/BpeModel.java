package org.vectorbert.tokenizer.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.List;
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
    /** Words already merged: (id, start, end) per token, a token spanning the word's units [start, end). */
    private final WordCache cache = new WordCache();

    private final PairTable merges;
    /** The {@code <0xHH>} token id of each byte, -1 where missing (byte_fallback). */
    private final int[] byteIds = new int[256];
    /** Without prefix and suffix, the id of each one-character token of the BMP (-1 for none): no substring per character. */
    private final int[] charIds;
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
        this.merges = new PairTable(merges.size());
        this.charIds = prefix == null && suffix == null ? new int[0x10000] : null;
        if (charIds != null) {
            java.util.Arrays.fill(charIds, -1);
            for (char c = 0; c < 0xFFFF; c++) {
                charIds[c] = vocab.id(String.valueOf(c));
            }
        }
        for (int b = 0; b < 256; b++) {
            byteIds[b] = vocab.id(String.format("<0x%02X>", b));
        }
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
            this.merges.putIfAbsent(a, b, rank, merged);
        }
    }

    @Override
    public void tokenize(Normalized word, Tokens out) {
        tokenize(new WordChars(word.length()).set(word, 0, word.length()), out);
    }

    /** The tokens of a word (never empty), each spanning the original text its first to last units came from. */
    void tokenize(WordChars w, Tokens out) {
        int[] e = cache.get(w);
        if (e == null) {
            if (ignoreMerges) {
                String s = w.text();
                int whole = vocab.id(s);
                if (whole >= 0) {
                    out.add(whole, s, w.starts[0], w.ends[w.length - 1], 0, 0, 0);
                    return;
                }
            }
            e = merge(w);
        }
        for (int k = WordCache.payload(e); k < e.length; k += 3) {
            out.add(e[k], vocab.token(e[k]), w.starts[e[k + 1]], w.ends[e[k + 2] - 1], 0, 0, 0);
        }
    }

    /** The word's symbols, merged, as the cache keeps them: (id, start, end) per token, in the word's units. */
    private int[] merge(WordChars w) {
        char[] s = w.chars;
        int n = w.length;
        // At most one symbol per UTF-16 unit, or with byte_fallback one per UTF-8 byte (at most 3 per unit).
        int capacity = (byteFallback ? 3 * n : n) + 4;
        int[] ids = new int[capacity];
        int[] starts = new int[capacity];
        int[] ends = new int[capacity];
        int count = 0;
        int unkStart = -1;
        int unkEnd = -1;
        for (int i = 0; i < n; ) {
            int cp = Character.codePointAt(s, i, n);
            int end = i + Character.charCount(cp);
            String sym = null;
            int id;
            if (charIds != null && cp < 0x10000) {
                id = charIds[cp];
            } else {
                sym = symbol(w, i, end);
                id = vocab.id(sym);
            }
            if (id >= 0) {
                if (unkStart >= 0) {
                    count = push(ids, starts, ends, count, unkId, unkStart, unkEnd);
                    unkStart = -1;
                }
                count = push(ids, starts, ends, count, id, i, end);
            } else if (byteFallback && fallback(sym = sym != null ? sym : symbol(w, i, end)) != null) {
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
        int[] payload = new int[3 * count];
        for (int k = 0; k < count; k++) {
            payload[3 * k] = ids[k];
            payload[3 * k + 1] = starts[k];
            payload[3 * k + 2] = ends[k];
        }
        return cache.put(w, payload, payload.length);
    }

    /** Characters {@code [i, end)} of the word as a symbol: the prefix unless first, the suffix if last. */
    private String symbol(WordChars w, int i, int end) {
        String sym = w.text(i, end);
        if (i > 0 && prefix != null) {
            sym = prefix + sym;
        }
        if (end == w.length && suffix != null) {
            sym = sym + suffix;
        }
        return sym;
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
            ids[k] = byteIds[bytes[k] & 0xFF];
            if (ids[k] < 0) {
                return null;
            }
        }
        return ids;
    }

    /**
     * Merges pairs lowest rank first, leftmost among equal ranks, until none has a merge; returns
     * the new count. Pending pairs wait in a heap keyed (rank, left position) and the symbols form
     * a linked list, so a word of n symbols costs O(n log n) instead of a scan per merge; a popped
     * pair whose symbols have changed since is skipped (the library's Word::merge_all does the same).
     */
    private int mergeAll(int[] ids, int[] starts, int[] ends, int count) {
        if (count < 2) {
            return count;
        }
        int[] next = new int[count];
        int[] prev = new int[count];
        LongHeap heap = new LongHeap(count);
        for (int k = 0; k < count; k++) {
            next[k] = k + 1 < count ? k + 1 : -1;
            prev[k] = k - 1;
            if (k + 1 < count) {
                push(heap, ids, k, k + 1);
            }
        }
        while (!heap.isEmpty()) {
            long top = heap.pop();
            int pos = (int) top;
            int rank = (int) (top >>> 32);
            int right = next[pos];
            if (ids[pos] < 0 || right < 0) {
                continue;
            }
            long m = merges.get(ids[pos], ids[right]);
            if (m < 0 || (int) (m >>> 32) != rank) {
                continue;
            }
            ids[pos] = (int) m;
            ends[pos] = ends[right];
            ids[right] = -1;
            next[pos] = next[right];
            if (next[right] >= 0) {
                prev[next[right]] = pos;
                push(heap, ids, pos, next[pos]);
            }
            if (prev[pos] >= 0) {
                push(heap, ids, prev[pos], pos);
            }
        }
        int n = 0;
        for (int k = 0; k >= 0; k = next[k]) {
            ids[n] = ids[k];
            starts[n] = starts[k];
            ends[n] = ends[k];
            n++;
        }
        return n;
    }

    private void push(LongHeap heap, int[] ids, int left, int right) {
        long m = merges.get(ids[left], ids[right]);
        if (m >= 0) {
            heap.push((m >>> 32) << 32 | left);
        }
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

    @Override
    public String continuingSubwordPrefix() {
        return prefix == null || prefix.isEmpty() ? null : prefix;
    }
}
