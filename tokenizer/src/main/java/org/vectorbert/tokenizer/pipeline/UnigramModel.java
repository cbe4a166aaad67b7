package org.vectorbert.tokenizer.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * {@code Unigram}: the segmentation with the highest total score (Viterbi). Every vocabulary
 * piece that starts at a character is a candidate; a character no single-character piece
 * covers gets an unknown candidate scored {@code min(scores) - 10}. On equal totals the path
 * through the earlier-starting last piece wins. Adjacent unknown pieces are fused into one token
 * whose string is the text itself; a string not in the vocabulary becomes {@code <0xHH>} byte
 * tokens with byte_fallback, else the unknown id.
 */
public final class UnigramModel implements Model {
    /** The tokenizers library's K_UNK_PENALTY. */
    private static final double UNK_PENALTY = 10.0;

    private final String[] pieces;
    private final double[] scores;
    private final Map<String, Integer> ids;
    private final CharTrie trie;
    private final int unkId;
    private final boolean byteFallback;
    private final double unkScore;
    private final WordCache cache = new WordCache();

    public UnigramModel(List<String> pieces, double[] scores, int unkId, boolean byteFallback, String where) {
        this.pieces = pieces.toArray(String[]::new);
        this.scores = scores;
        this.ids = new HashMap<>(pieces.size() * 2);
        for (int i = 0; i < this.pieces.length; i++) {
            ids.put(this.pieces[i], i);
        }
        if (unkId >= this.pieces.length) {
            throw new TokenizerException(where + ": Unigram unk_id " + unkId + " is outside the vocabulary of "
                    + this.pieces.length);
        }
        this.trie = new CharTrie(this.pieces);
        this.unkId = unkId;
        this.byteFallback = byteFallback;
        double min = Double.POSITIVE_INFINITY;
        for (double s : scores) {
            min = Math.min(min, s);
        }
        this.unkScore = min - UNK_PENALTY;
    }

    @Override
    public void tokenize(Normalized word, Tokens out) {
        tokenize(new WordChars(word.length()).set(word, 0, word.length()), out);
    }

    /**
     * The tokens of a word (never empty). Words already segmented come from the cache, which spares
     * the Viterbi search and its trie walks, the pipeline's largest cost.
     */
    void tokenize(WordChars w, Tokens out) {
        int[] e = cache.get(w);
        if (e == null) {
            e = segment(w);
        }
        for (int k = WordCache.payload(e); k < e.length; k += 3) {
            int code = e[k];
            int start = e[k + 1];
            int end = e[k + 2];
            // A negative code marks a token whose string is its own text (fused unknown characters).
            out.add(code >= 0 ? code : ~code, code >= 0 ? pieces[code] : w.text(start, end), w.starts[start],
                    w.ends[end - 1], 0, 0, 0);
        }
    }

    /**
     * The word's tokens as the cache keeps them: (code, start, end) per token in the word's units, the
     * code the token's id, or ~id when the token's string is its text rather than the piece of its id.
     */
    private int[] segment(WordChars w) {
        char[] s = w.chars;
        int n = w.length;
        double[] best = new double[n + 1];
        int[] from = new int[n + 1];
        int[] pieceId = new int[n + 1];
        boolean[] reached = new boolean[n + 1];
        reached[0] = true;
        for (int start = 0; start < n; ) {
            int width = Character.charCount(Character.codePointAt(s, start, n));
            if (reached[start]) {
                boolean single = false;
                int node = CharTrie.ROOT;
                for (int j = start; j < n; j++) {
                    node = trie.child(node, s[j]);
                    if (node == CharTrie.NONE) {
                        break;
                    }
                    int id = trie.tokenId(node);
                    if (id != CharTrie.NONE) {
                        relax(best, from, pieceId, reached, start, j + 1, id, scores[id]);
                        single |= j + 1 - start == width;
                    }
                }
                if (!single && unkId >= 0) {
                    relax(best, from, pieceId, reached, start, start + width, unkId, unkScore);
                }
            }
            start += width;
        }
        if (!reached[n]) {
            throw new TokenizerException("the Unigram model has no unk_id and no piece for a character of '"
                    + w.text() + "'");
        }
        int count = 0;
        int[] ends = new int[n];
        for (int at = n; at > 0; at = from[at]) {
            ends[count++] = at;
        }
        Tokens out = new Tokens(count);
        int tokenStart = 0;
        int unkFrom = -1;
        for (int k = count - 1; k >= 0; k--) {
            int end = ends[k];
            int start = from[end];
            if (pieceId[end] == unkId) {
                if (unkFrom < 0) {
                    unkFrom = start;
                }
            } else {
                if (unkFrom >= 0) {
                    emit(w.text(unkFrom, start), unkFrom, start, out);
                    unkFrom = -1;
                }
                emit(pieces[pieceId[end]], start, end, out);
            }
            tokenStart = end;
        }
        if (unkFrom >= 0) {
            emit(w.text(unkFrom, tokenStart), unkFrom, tokenStart, out);
        }
        int[] payload = new int[3 * out.size];
        for (int k = 0; k < out.size; k++) {
            String value = out.values[k];
            payload[3 * k] = value.equals(pieces[out.ids[k]]) ? out.ids[k] : ~out.ids[k];
            payload[3 * k + 1] = out.starts[k];
            payload[3 * k + 2] = out.ends[k];
        }
        return cache.put(w, payload, payload.length);
    }

    /** A strictly better total replaces; starts are visited in order, so ties keep the earlier start. */
    private static void relax(double[] best, int[] from, int[] pieceId, boolean[] reached, int start, int end,
                              int id, double score) {
        double total = best[start] + score;
        if (!reached[end] || total > best[end]) {
            reached[end] = true;
            best[end] = total;
            from[end] = start;
            pieceId[end] = id;
        }
    }

    /** One token, its span in the word's units [start, end). */
    private void emit(String text, int start, int end, Tokens out) {
        Integer id = ids.get(text);
        if (id != null) {
            out.add(id, text, start, end, 0, 0, 0);
            return;
        }
        if (byteFallback) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            int[] byteIds = new int[bytes.length];
            boolean all = true;
            for (int k = 0; k < bytes.length && all; k++) {
                Integer b = ids.get(String.format("<0x%02X>", bytes[k] & 0xFF));
                all = b != null;
                byteIds[k] = all ? b : -1;
            }
            if (all) {
                for (int k = 0; k < bytes.length; k++) {
                    out.add(byteIds[k], String.format("<0x%02X>", bytes[k] & 0xFF), start, end, 0, 0, 0);
                }
                return;
            }
        }
        if (unkId < 0) {
            throw new TokenizerException("the Unigram model has no unk_id for '" + text + "'");
        }
        out.add(unkId, text, start, end, 0, 0, 0);
    }

    @Override
    public int tokenToId(String token) {
        Integer id = ids.get(token);
        return id == null ? -1 : id;
    }

    @Override
    public String idToToken(int id) {
        return id >= 0 && id < pieces.length ? pieces[id] : null;
    }

    @Override
    public int vocabSize() {
        return pieces.length;
    }
}
