package org.vectorbert.tokenizer.pipeline;

import java.util.HashMap;
import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/** A model's token to id map and its inverse. */
public final class Vocab {
    private final Map<String, Integer> ids;
    private final String[] tokens;

    private Vocab(Map<String, Integer> ids, String[] tokens) {
        this.ids = ids;
        this.tokens = tokens;
    }

    public static Vocab of(Map<String, Integer> tokenIds, String where) {
        int max = -1;
        for (var e : tokenIds.entrySet()) {
            if (e.getValue() < 0) {
                throw new TokenizerException(where + ": token '" + e.getKey() + "' has a negative id " + e.getValue());
            }
            max = Math.max(max, e.getValue());
        }
        if (max >= 2L * tokenIds.size() + 65_536) {
            // Ids index an array: one stray huge id must not allocate gigabytes.
            throw new TokenizerException(where + ": token id " + max + " is far past the vocabulary's "
                    + tokenIds.size() + " entries");
        }
        String[] tokens = new String[max + 1];
        tokenIds.forEach((t, id) -> tokens[id] = t);
        return new Vocab(new HashMap<>(tokenIds), tokens);
    }

    /** A vocabulary already checked to number its tokens 0..n-1: {@code ids} is kept, not copied. */
    public static Vocab ofChecked(Map<String, Integer> ids, String[] tokens) {
        return new Vocab(ids, tokens);
    }

    public int id(String token) {
        Integer id = ids.get(token);
        return id == null ? -1 : id;
    }

    public String token(int id) {
        return id >= 0 && id < tokens.length ? tokens[id] : null;
    }

    public int size() {
        return ids.size();
    }

    public void forEach(java.util.function.BiConsumer<String, Integer> action) {
        ids.forEach(action);
    }

    /** The token to id map, read-only. */
    public Map<String, Integer> asMap() {
        return java.util.Collections.unmodifiableMap(ids);
    }
}
