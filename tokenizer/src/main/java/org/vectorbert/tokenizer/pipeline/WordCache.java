package org.vectorbert.tokenizer.pipeline;

/**
 * Words already tokenized, as the tokenizers library's models keep them: up to 10,000 words of
 * under 256 units (its Cache's capacity and BPE's MAX_LENGTH), first come first kept, never
 * evicted. Text repeats its words, and a BPE (without dropout) or Unigram word always comes out
 * the same. Looked up straight from a word's chars, with no String made per word.
 *
 * <p>Readers take no lock: a slot holds an immutable entry or null, and an entry's final fields
 * make its key and value visible to any thread that sees the entry. Writers lock, and a reader
 * racing a writer at worst misses and tokenizes the word itself.
 */
final class WordCache<V> {
    static final int CAPACITY = 10_000;
    static final int MAX_LENGTH = 256;

    private record Entry<V>(char[] key, int hash, V value) {}

    /** Room for CAPACITY entries at under a third full, so a miss ends after a probe or two. */
    private final Object[] slots = new Object[1 << 15];
    private final int mask = slots.length - 1;
    private int size;

    /** The value stored for {@code chars[0, length)}, or null. */
    @SuppressWarnings("unchecked")
    V get(char[] chars, int length) {
        int h = hash(chars, length);
        for (int slot = h & mask; ; slot = (slot + 1) & mask) {
            Entry<V> e = (Entry<V>) slots[slot];
            if (e == null) {
                return null;
            }
            if (e.hash == h && matches(e.key, chars, length)) {
                return e.value;
            }
        }
    }

    /** Keeps {@code value} for {@code chars[0, length)} if there is room and the word is short enough. */
    synchronized void put(char[] chars, int length, V value) {
        if (size >= CAPACITY || length >= MAX_LENGTH) {
            return;
        }
        int h = hash(chars, length);
        int slot = h & mask;
        for (Object o; (o = slots[slot]) != null; slot = (slot + 1) & mask) {
            Entry<?> e = (Entry<?>) o;
            if (e.hash == h && matches(e.key, chars, length)) {
                return;
            }
        }
        slots[slot] = new Entry<>(java.util.Arrays.copyOf(chars, length), h, value);
        size++;
    }

    private static boolean matches(char[] key, char[] chars, int length) {
        return key.length == length && java.util.Arrays.equals(key, 0, length, chars, 0, length);
    }

    private static int hash(char[] s, int length) {
        int h = length;
        for (int i = 0; i < length; i++) {
            h = h * 31 + s[i];
        }
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
