package org.vectorbert.tokenizer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/** The special tokens present in a vocabulary, matched whole in a text before anything else is split. */
final class SpecialTokenMatcher {
    /** Special tokens present in the vocabulary, longest first so a scan finds the leftmost-longest match. */
    private final String[] tokens;
    private final int[] ids;
    private final BitSet idSet = new BitSet();
    private final String firstChars;

    SpecialTokenMatcher(Vocabulary vocab, SpecialTokens special) {
        List<String> present = new ArrayList<>();
        for (String token : special.all()) {
            if (!token.isEmpty() && vocab.contains(token)) {
                present.add(token);
            }
        }
        present.sort((a, b) -> b.length() - a.length());
        this.tokens = present.toArray(String[]::new);
        this.ids = new int[tokens.length];
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < tokens.length; i++) {
            ids[i] = vocab.id(tokens[i]).orElseThrow();
            idSet.set(ids[i]);
            if (first.indexOf(tokens[i].substring(0, 1)) < 0) {
                first.append(tokens[i].charAt(0));
            }
        }
        this.firstChars = first.toString();
    }

    /** The present special tokens, longest first. */
    List<String> tokens() {
        return Arrays.asList(tokens);
    }

    boolean isSpecialId(int id) {
        return idSet.get(id);
    }

    /** The id of the special token {@link #match} returned. */
    int id(int matched) {
        return ids[matched];
    }

    /** The length in chars of the special token {@link #match} returned. */
    int length(int matched) {
        return tokens[matched].length();
    }

    /** Where a special token might start at or after {@code from} (String.indexOf is vectorised), or -1. */
    int nextStart(String text, int from) {
        int next = -1;
        for (int k = 0; k < firstChars.length(); k++) {
            int at = text.indexOf(firstChars.charAt(k), from);
            if (at >= 0 && (next < 0 || at < next)) {
                next = at;
            }
        }
        return next;
    }

    /** The longest special token starting at {@code at}, or -1. */
    int match(String text, int at) {
        for (int s = 0; s < tokens.length; s++) {
            if (text.startsWith(tokens[s], at)) {
                return s;
            }
        }
        return -1;
    }
}
