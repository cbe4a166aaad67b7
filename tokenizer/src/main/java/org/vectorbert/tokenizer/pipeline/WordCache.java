package org.vectorbert.tokenizer.pipeline;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Words already tokenized, as the tokenizers library's models keep them: up to 10,000 words of
 * under 256 units (its Cache's capacity and BPE's MAX_LENGTH), first come first kept, never
 * evicted. Text repeats its words, and a BPE (without dropout) or Unigram word always comes out
 * the same. Looked up straight from a word's chars, with no String made per word.
 *
 * <p>Each entry is one int array: the hash, the word's length, its chars, then the model's payload
 * (three ints per token). An entry of separate objects (record, key array, value record, three
 * value arrays) is a chain of dependent loads per word, scattered once the collector has promoted
 * them.
 *
 * <p>Readers take no lock: entries are published with release and read with acquire semantics, and
 * never change. Writers lock; a reader racing a writer at worst misses and tokenizes the word itself.
 */
final class WordCache {
    static final int CAPACITY = 10_000;
    static final int MAX_LENGTH = 256;
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(int[][].class);

    /** Room for CAPACITY entries at under a third full, so a miss ends after a probe or two. */
    private final int[][] slots = new int[1 << 15][];
    private final int mask = slots.length - 1;
    private int size;

    /** Where an entry's payload starts: after its hash, its word's length and the word's chars. */
    static int payload(int[] entry) {
        return 2 + entry[1];
    }

    /** The entry of a word, or null. */
    int[] get(WordChars w) {
        char[] chars = w.chars;
        int length = w.length;
        int h = mix(w.hash);
        for (int slot = h & mask; ; slot = (slot + 1) & mask) {
            int[] e = (int[]) SLOT.getAcquire(slots, slot);
            if (e == null) {
                return null;
            }
            if (e[0] == h && e[1] == length && matches(e, chars, length)) {
                return e;
            }
        }
    }

    /** The entry of a word with {@code payload[0, n)}, kept if there is room and the word is short enough. */
    synchronized int[] put(WordChars w, int[] payload, int n) {
        char[] chars = w.chars;
        int length = w.length;
        int h = hash(chars, length);
        int[] entry = new int[2 + length + n];
        entry[0] = h;
        entry[1] = length;
        for (int i = 0; i < length; i++) {
            entry[2 + i] = chars[i];
        }
        System.arraycopy(payload, 0, entry, 2 + length, n);
        if (size >= CAPACITY || length >= MAX_LENGTH) {
            return entry;
        }
        int slot = h & mask;
        for (int[] e; (e = slots[slot]) != null; slot = (slot + 1) & mask) {
            if (e[0] == h && e[1] == length && matches(e, chars, length)) {
                return e;
            }
        }
        SLOT.setRelease(slots, slot, entry);
        size++;
        return entry;
    }

    private static boolean matches(int[] e, char[] chars, int length) {
        for (int i = 0; i < length; i++) {
            if (e[2 + i] != chars[i]) {
                return false;
            }
        }
        return true;
    }

    /** WordChars' running hash of the chars, spread over the slots. */
    private static int hash(char[] s, int length) {
        int h = 0;
        for (int i = 0; i < length; i++) {
            h = h * 31 + s[i];
        }
        return mix(h);
    }

    private static int mix(int h) {
        h *= 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
