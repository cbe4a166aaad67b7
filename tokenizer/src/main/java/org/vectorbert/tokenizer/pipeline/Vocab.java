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

    private Vocab(Map<String, Integer> ids, String[] tokens) {
        this.ids = ids;
        this.tokens = tokens;
        int spelled = 0;
        for (String t : tokens) {
            if (t != null) {
                spelled++;
            }
        }
        this.aliases = spelled != ids.size();
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

    /** Every spelling with its id, and how many chars they hold in all. */
    record Spellings(String[] tokens, int[] ids, int units) {}

    /**
     * Every token in id order (a second spelling of an id after all the others): tables built in this order
     * probe least for the low ids, which vocabularies give their most frequent tokens.
     */
    Spellings spellings() {
        String[] found = new String[ids.size()];
        int[] foundIds = new int[ids.size()];
        int n = 0;
        int units = 0;
        for (int id = 0; id < tokens.length; id++) {
            if (tokens[id] != null) {
                found[n] = tokens[id];
                foundIds[n++] = id;
                units += tokens[id].length();
            }
        }
        if (aliases) {
            for (Map.Entry<String, Integer> e : ids.entrySet()) {
                if (!e.getKey().equals(tokens[e.getValue()])) {
                    found[n] = e.getKey();
                    foundIds[n++] = e.getValue();
                    units += e.getKey().length();
                }
            }
        }
        return new Spellings(found, foundIds, units);
    }
}
