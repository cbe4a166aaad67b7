package org.vectorbert.tokenizer.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.vectorbert.tokenizer.pipeline.SplitPattern.Behavior;

/**
 * GPT-2's byte-level pre-tokenizer ({@code ByteLevel}): optionally a space before each piece,
 * the GPT-2 regex, then every UTF-8 byte as one printable character (bytes_to_unicode).
 */
public record ByteLevel(boolean addPrefixSpace, boolean trimOffsets, boolean useRegex) implements PreTokenizer {
    /** GPT-2's split: contractions, letters, numbers, other symbols, each with one optional leading space; whitespace runs. */
    private static final SplitPattern GPT2 = new SplitPattern(Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
            Pattern.UNICODE_CHARACTER_CLASS));

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
        List<Normalized> pieces = useRegex
                ? SplitPattern.split(piece, GPT2.matches(piece.text()), Behavior.ISOLATED, false)
                : (piece.isEmpty() ? List.of() : List.of(piece));
        List<Normalized> out = new ArrayList<>(pieces.size());
        for (Normalized p : pieces) {
            out.add(toBytes(p));
        }
        return out;
    }

    /** Each code point becomes one character per UTF-8 byte, the first replacing it, the rest inserted. */
    static Normalized toBytes(Normalized p) {
        Normalized.Edit e = p.edit();
        while (e.hasNext()) {
            int cp = e.peek();
            if (cp < 128) {
                e.keep(BYTE_CHAR[cp]);
                continue;
            }
            byte[] bytes = Character.toString(cp).getBytes(StandardCharsets.UTF_8);
            e.keep(BYTE_CHAR[bytes[0] & 0xFF]);
            for (int k = 1; k < bytes.length; k++) {
                e.insert(BYTE_CHAR[bytes[k] & 0xFF]);
            }
        }
        return e.done();
    }
}
