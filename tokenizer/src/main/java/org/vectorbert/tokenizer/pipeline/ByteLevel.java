package org.vectorbert.tokenizer.pipeline;

import java.util.ArrayList;
import java.util.List;

/**
 * GPT-2's byte-level pre-tokenizer ({@code ByteLevel}): optionally a space before each piece,
 * the GPT-2 regex ({@link Gpt2Split}), then every UTF-8 byte as one printable character (bytes_to_unicode).
 */
public record ByteLevel(boolean addPrefixSpace, boolean trimOffsets, boolean useRegex) implements PreTokenizer {
    /** The character each byte becomes. */
    static final char[] BYTE_CHAR = new char[256];
    /** The byte each character stands for, -1 for other characters; indexed up to U+0143. */
    static final int[] CHAR_BYTE = new int[0x144];

    static {
        java.util.Arrays.fill(CHAR_BYTE, -1);
        int n = 0;
        for (int b = 0; b < 256; b++) {
            boolean printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            BYTE_CHAR[b] = printable ? (char) b : (char) (256 + n++);
            CHAR_BYTE[BYTE_CHAR[b]] = b;
        }
    }

    /** The byte a character stands for, or -1. */
    static int byteOf(int c) {
        return c < CHAR_BYTE.length ? CHAR_BYTE[c] : -1;
    }

    @Override
    public List<Normalized> split(Normalized piece) {
        if (addPrefixSpace && !piece.text().startsWith(" ")) {
            piece = Normalizer.prepend(piece, " ");
        }
        if (piece.isEmpty()) {
            return List.of();
        }
        if (!useRegex) {
            return List.of(toBytes(piece));
        }
        String s = piece.text();
        List<Normalized> out = new ArrayList<>();
        for (int i = 0; i < s.length(); ) {
            int end = Gpt2Split.matchEnd(s, i);
            out.add(toBytes(piece.slice(i, end)));
            i = end;
        }
        return out;
    }

    /** {@link #split}'s words, byte-mapped into the path's scratch word one by one; false when the path stopped. */
    boolean words(Normalized piece, WordPath path) {
        String s = piece.text();
        if (s.isEmpty()) {
            return true;
        }
        // The prefix space (aligned to the first character, as Normalizer.prepend aligns it) goes into the
        // text the regex reads; unit i of that text is the piece's unit i - shift.
        int shift = addPrefixSpace && s.charAt(0) != ' ' ? 1 : 0;
        String t = shift == 1 ? " " + s : s;
        int to = t.length();
        WordChars w = path.word;
        for (int i = 0; i < to; ) {
            int end = useRegex ? Gpt2Split.matchEnd(t, i) : to;
            for (int k = i; k < end; ) {
                int u = Math.max(k - shift, 0);
                int start = piece.startOf(u);
                int stop = piece.endOf(u);
                char ch = t.charAt(k);
                if (ch < 0x80) {
                    w.add(BYTE_CHAR[ch], start, stop);
                    k++;
                    continue;
                }
                int cp = Character.codePointAt(t, k);
                int bytes = utf8Length(cp);
                for (int b = 0; b < bytes; b++) {
                    w.add(BYTE_CHAR[utf8Byte(cp, bytes, b)], start, stop);
                }
                k += Character.charCount(cp);
            }
            if (!path.flush()) {
                return false;
            }
            i = end;
        }
        return true;
    }

    /** How many UTF-8 bytes String.getBytes writes for a code point: a lone surrogate becomes the one byte '?'. */
    static int utf8Length(int cp) {
        if (cp < 0x80) {
            return 1;
        }
        if (cp < 0x800) {
            return 2;
        }
        if (cp < 0x10000) {
            return Character.isSurrogate((char) cp) ? 1 : 3;
        }
        return 4;
    }

    /** Byte {@code k} of a code point's UTF-8 encoding of {@code length} bytes. */
    static int utf8Byte(int cp, int length, int k) {
        if (length == 1) {
            return cp < 0x80 ? cp : '?';
        }
        if (k == 0) {
            return (length == 2 ? 0xC0 : length == 3 ? 0xE0 : 0xF0) | (cp >>> (6 * (length - 1)));
        }
        return 0x80 | ((cp >>> (6 * (length - 1 - k))) & 0x3F);
    }

    /** Each code point becomes one character per UTF-8 byte, the first replacing it, the rest inserted. */
    static Normalized toBytes(Normalized p) {
        Normalized.Edit e = p.edit();
        while (e.hasNext()) {
            int cp = e.peek();
            int bytes = utf8Length(cp);
            e.keep(BYTE_CHAR[utf8Byte(cp, bytes, 0)]);
            for (int k = 1; k < bytes; k++) {
                e.insert(BYTE_CHAR[utf8Byte(cp, bytes, k)]);
            }
        }
        return e.done();
    }
}
