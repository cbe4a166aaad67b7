package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A growing list of tokens with everything an {@link org.vectorbert.tokenizer.Encoding} holds;
 * spans are in UTF-16 units of the original text, (0, 0) for added special tokens.
 *
 * <p>A text's own tokens all have the same labels (type id, special flag 0, attention 1, sequence
 * id) until the post-processor places them, so {@link #unlabelled} lists keep those once instead of
 * in four arrays, which would be half of what a text's tokens allocate; the arrays are made when a
 * token's labels first differ ({@link #label}).
 */
public final class Tokens {
    int size;
    int[] ids;
    String[] values;
    int[] starts;
    int[] ends;
    /** Per token: type id, special-token flag, attention, sequence id; all four null while the labels are uniform. */
    int[] typeIds;
    int[] special;
    int[] attention;
    int[] sequenceIds;
    /** Every token's type and sequence id while the label arrays are null (special 0, attention 1). */
    private int uniformType;
    private int uniformSequence;
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
        this(capacity, true);
    }

    private Tokens(int capacity, boolean labelled) {
        int n = Math.max(1, capacity);
        ids = new int[n];
        values = new String[n];
        starts = new int[n];
        ends = new int[n];
        if (labelled) {
            typeIds = new int[n];
            special = new int[n];
            attention = new int[n];
            sequenceIds = new int[n];
        }
    }

    /** A list whose tokens share type and sequence id 0, special flag 0 and attention 1 until one differs. */
    static Tokens unlabelled(int capacity) {
        return new Tokens(capacity, false);
    }

    public int size() {
        return size;
    }

    int typeId(int i) {
        return typeIds == null ? uniformType : typeIds[i];
    }

    int special(int i) {
        return special == null ? 0 : special[i];
    }

    int attention(int i) {
        return attention == null ? 1 : attention[i];
    }

    int sequenceId(int i) {
        return sequenceIds == null ? uniformSequence : sequenceIds[i];
    }

    /** Gives every token labels of its own, so that they can differ. */
    void label() {
        if (typeIds == null) {
            int n = ids.length;
            typeIds = new int[n];
            special = new int[n];
            attention = new int[n];
            sequenceIds = new int[n];
            Arrays.fill(typeIds, 0, size, uniformType);
            Arrays.fill(attention, 0, size, 1);
            Arrays.fill(sequenceIds, 0, size, uniformSequence);
        }
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
        if (typeIds == null) {
            if (typeId == uniformType && isSpecial == 0 && sequenceId == uniformSequence) {
                size++;
                return;
            }
            label();
        }
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
        if (typeIds != null) {
            typeIds = Arrays.copyOf(typeIds, n);
            special = Arrays.copyOf(special, n);
            attention = Arrays.copyOf(attention, n);
            sequenceIds = Arrays.copyOf(sequenceIds, n);
        }
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
        boolean same = typeIds == null && other.typeIds == null
                && uniformType == other.uniformType && uniformSequence == other.uniformSequence;
        if (!same && other.size > 0) {
            label();
            if (other.typeIds != null) {
                System.arraycopy(other.typeIds, 0, typeIds, size, other.size);
                System.arraycopy(other.special, 0, special, size, other.size);
                System.arraycopy(other.attention, 0, attention, size, other.size);
                System.arraycopy(other.sequenceIds, 0, sequenceIds, size, other.size);
            } else {
                Arrays.fill(typeIds, size, n, other.uniformType);
                Arrays.fill(special, size, n, 0);
                Arrays.fill(attention, size, n, 1);
                Arrays.fill(sequenceIds, size, n, other.uniformSequence);
            }
        }
        size = n;
    }

    /** Appends token {@code i} of {@code other}. */
    void addFrom(Tokens other, int i) {
        add(other.ids[i], other.values[i], other.starts[i], other.ends[i], other.typeId(i), other.special(i),
                other.sequenceId(i));
        if (other.attention(i) != 1) {
            setAttention(size - 1, other.attention(i));
        }
    }

    /** Tokens {@code [from, to)} as a new list, without overflow windows. */
    Tokens range(int from, int to) {
        Tokens t = new Tokens(to - from, typeIds != null);
        t.uniformType = uniformType;
        t.uniformSequence = uniformSequence;
        for (int i = from; i < to; i++) {
            t.addFrom(this, i);
        }
        return t;
    }

    void setAttention(int i, int value) {
        label();
        attention[i] = value;
    }

    void setSequence(int sequenceId, int typeId) {
        setTypeIds(typeId);
        setSequenceIds(sequenceId);
    }

    /** Gives every token this type id. */
    void setTypeIds(int typeId) {
        if (typeIds == null) {
            uniformType = typeId;
        } else {
            Arrays.fill(typeIds, 0, size, typeId);
        }
    }

    /** Gives every token this sequence id. */
    void setSequenceIds(int sequenceId) {
        if (sequenceIds == null) {
            uniformSequence = sequenceId;
        } else {
            Arrays.fill(sequenceIds, 0, size, sequenceId);
        }
    }

    /**
     * The encoding of these tokens. Full arrays are handed over, not copied (Assembly sizes its
     * result exactly), so these tokens must not change afterwards.
     */
    org.vectorbert.tokenizer.Encoding toEncoding() {
        List<org.vectorbert.tokenizer.Encoding> windows = List.of();
        if (!overflowing.isEmpty()) {
            windows = new ArrayList<>(overflowing.size());
            for (Tokens o : overflowing) {
                windows.add(o.toEncoding());
            }
        }
        label();
        if (size != ids.length) {
            grow(size);
        }
        return new org.vectorbert.tokenizer.Encoding(Collections.unmodifiableList(Arrays.asList(values)), ids,
                typeIds, attention, special, starts, ends, sequenceIds, windows);
    }
}
