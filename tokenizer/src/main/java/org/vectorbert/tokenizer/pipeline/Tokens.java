package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A growing list of tokens with everything an {@link org.vectorbert.tokenizer.Encoding} holds;
 * spans are in UTF-16 units of the original text, (0, 0) for added special tokens.
 */
public final class Tokens {
    int size;
    int[] ids;
    String[] values;
    int[] starts;
    int[] ends;
    int[] typeIds;
    int[] special;
    int[] attention;
    int[] sequenceIds;
    final List<Tokens> overflowing = new ArrayList<>();
    /** The model's token strings' spaces, for byte-level offset trimming; null to count them per token. */
    TokenSpaces spaces;
    /** An overflow window: a template does not retype it (the tokenizers library sets type ids on the main encodings only). */
    boolean window;

    public Tokens() {
        this(16);
    }

    /** Room for {@code capacity} tokens before growing (one special token needs one, not sixteen). */
    public Tokens(int capacity) {
        int n = Math.max(1, capacity);
        ids = new int[n];
        values = new String[n];
        starts = new int[n];
        ends = new int[n];
        typeIds = new int[n];
        special = new int[n];
        attention = new int[n];
        sequenceIds = new int[n];
    }

    public int size() {
        return size;
    }

    /** A token of text {@code sequence}, spanning normalised units {@code [from, to)} of {@code piece}. */
    public void add(int id, String value, Normalized piece, int from, int to) {
        add(id, value, piece.originalStartOf(from, to), piece.originalEndOf(from, to), 0, 0, 0);
    }

    public void add(int id, String value, int start, int end, int typeId, int isSpecial, int sequenceId) {
        if (size == ids.length) {
            grow(Math.max(16, size * 2));
        }
        ids[size] = id;
        values[size] = value;
        starts[size] = start;
        ends[size] = end;
        typeIds[size] = typeId;
        special[size] = isSpecial;
        attention[size] = 1;
        sequenceIds[size] = sequenceId;
        size++;
    }

    private void grow(int n) {
        ids = Arrays.copyOf(ids, n);
        values = Arrays.copyOf(values, n);
        starts = Arrays.copyOf(starts, n);
        ends = Arrays.copyOf(ends, n);
        typeIds = Arrays.copyOf(typeIds, n);
        special = Arrays.copyOf(special, n);
        attention = Arrays.copyOf(attention, n);
        sequenceIds = Arrays.copyOf(sequenceIds, n);
    }

    /** Appends all of {@code other}'s tokens, array by array. */
    void addAll(Tokens other) {
        int n = size + other.size;
        if (n > ids.length) {
            grow(n);
        }
        System.arraycopy(other.ids, 0, ids, size, other.size);
        System.arraycopy(other.values, 0, values, size, other.size);
        System.arraycopy(other.starts, 0, starts, size, other.size);
        System.arraycopy(other.ends, 0, ends, size, other.size);
        System.arraycopy(other.typeIds, 0, typeIds, size, other.size);
        System.arraycopy(other.special, 0, special, size, other.size);
        System.arraycopy(other.attention, 0, attention, size, other.size);
        System.arraycopy(other.sequenceIds, 0, sequenceIds, size, other.size);
        size = n;
    }

    /** Appends token {@code i} of {@code other}. */
    void addFrom(Tokens other, int i) {
        add(other.ids[i], other.values[i], other.starts[i], other.ends[i], other.typeIds[i], other.special[i],
                other.sequenceIds[i]);
        attention[size - 1] = other.attention[i];
    }

    /** Tokens {@code [from, to)} as a new list, without overflow windows. */
    Tokens range(int from, int to) {
        Tokens t = new Tokens(to - from);
        for (int i = from; i < to; i++) {
            t.addFrom(this, i);
        }
        return t;
    }

    void setSequence(int sequenceId, int typeId) {
        Arrays.fill(sequenceIds, 0, size, sequenceId);
        Arrays.fill(typeIds, 0, size, typeId);
    }

    /**
     * The encoding of these tokens. Full arrays are handed over, not copied (Assembly sizes its
     * result exactly), so these tokens must not change afterwards.
     */
    org.vectorbert.tokenizer.Encoding toEncoding() {
        List<org.vectorbert.tokenizer.Encoding> windows = new ArrayList<>(overflowing.size());
        for (Tokens o : overflowing) {
            windows.add(o.toEncoding());
        }
        if (size != ids.length) {
            grow(size);
        }
        return new org.vectorbert.tokenizer.Encoding(Collections.unmodifiableList(Arrays.asList(values)), ids,
                typeIds, attention, special, starts, ends, sequenceIds, windows);
    }
}
