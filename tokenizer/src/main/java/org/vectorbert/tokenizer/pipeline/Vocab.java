package org.vectorbert.tokenizer.pipeline;

import java.util.HashMap;
import java.util.Map;
import org.vectorbert.tokenizer.TokenizerException;

/** A model's token to id map and its inverse. */
public final class Vocab {
    private final Map<String, Integer> ids;
    private final String[] tokens;

    /** Whether some id has more than one spelling (only {@link #tokens} holds one per id). */
    private final boolean aliases;

    private Vocab(Map<String, Integer> ids, String[] tokens, boolean aliases) {
        this.ids = ids;
        this.tokens = tokens;
        this.aliases = aliases;
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
        int spelled = 0;
        for (String t : tokens) {
            if (t != null) {
                spelled++;
            }
        }
        return new Vocab(new HashMap<>(tokenIds), tokens, spelled != tokenIds.size());
    }

    /** A vocabulary already checked to number its tokens 0..n-1: {@code ids} is kept, not copied. */
    public static Vocab ofChecked(Map<String, Integer> ids, String[] tokens) {
        return new Vocab(ids, tokens, false);
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

    /** Every spelling with its id: token {@code k} has id {@code ids[k]}, or {@code k} when {@code ids} is null. */
    record Spellings(String[] tokens, int[] ids) {}

    /**
     * Every token in id order (a second spelling of an id after all the others): tables built in this order
     * probe least for the low ids, which vocabularies give their most frequent tokens.
     */
    Spellings spellings() {
        if (!aliases) {
            return new Spellings(tokens, null);
        }
        String[] found = new String[ids.size()];
        int[] foundIds = new int[ids.size()];
        int n = 0;
        for (int id = 0; id < tokens.length; id++) {
            if (tokens[id] != null) {
                found[n] = tokens[id];
                foundIds[n++] = id;
            }
        }
        for (Map.Entry<String, Integer> e : ids.entrySet()) {
            if (!e.getKey().equals(tokens[e.getValue()])) {
                found[n] = e.getKey();
                foundIds[n++] = e.getValue();
            }
        }
        return new Spellings(found, foundIds);
    }
}
