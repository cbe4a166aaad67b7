package org.vectorbert.tokenizer.pipeline;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vectorbert.tokenizer.TokenizerException;

/**
 * {@code Precompiled}: SentencePiece's normalisation rules as compiled into the model, a
 * Darts-clone double-array trie over UTF-8 and the replacement strings it points into. Applied
 * as the tokenizers library does (not as SentencePiece does): per extended grapheme cluster,
 * a cluster under 6 UTF-8 bytes with any rule matching a prefix is replaced whole by the
 * shortest matching rule's string; otherwise each code point on its own. An empty charsmap is
 * the identity (older library versions crashed on it).
 */
public final class PrecompiledNormalizer implements Normalizer {
    private static final Pattern GRAPHEME = Pattern.compile("\\X");

    private final int[] units;
    private final byte[] strings;

    PrecompiledNormalizer(int[] units, byte[] strings) {
        this.units = units;
        this.strings = strings;
    }

    public static PrecompiledNormalizer fromBase64(String base64, String where) {
        try {
            return fromBytes(Base64.getDecoder().decode(base64), where);
        } catch (IllegalArgumentException e) {
            throw new TokenizerException(where + ": precompiled_charsmap is not valid base64");
        }
    }

    /** The blob: u32 LE trie size in bytes, the trie's u32 LE units, then NUL-terminated UTF-8 strings. */
    public static PrecompiledNormalizer fromBytes(byte[] blob, String where) {
        if (blob.length == 0) {
            return new PrecompiledNormalizer(new int[0], new byte[0]);
        }
        if (blob.length < 4) {
            throw new TokenizerException(where + ": precompiled_charsmap is shorter than its 4-byte header");
        }
        ByteBuffer b = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
        long trieBytes = b.getInt() & 0xFFFFFFFFL;
        if (trieBytes % 4 != 0 || trieBytes > blob.length - 4) {
            throw new TokenizerException(where + ": precompiled_charsmap says its trie has " + trieBytes
                    + " bytes but " + (blob.length - 4) + " follow");
        }
        int[] units = new int[(int) (trieBytes / 4)];
        for (int i = 0; i < units.length; i++) {
            units[i] = b.getInt();
        }
        byte[] strings = new byte[b.remaining()];
        b.get(strings);
        return new PrecompiledNormalizer(units, strings);
    }

    /** The replacement of the shortest rule matching a prefix of {@code utf8}, or null. */
    String lookup(byte[] utf8) {
        if (units.length == 0) {
            return null;
        }
        int pos = offset(units[0]);
        for (byte value : utf8) {
            int c = value & 0xFF;
            if (c == 0) {
                return null;
            }
            pos ^= c;
            if (pos < 0 || pos >= units.length) {
                return null;
            }
            int u = units[pos];
            if ((u & 0x800000FF) != c) {
                return null;
            }
            pos ^= offset(u);
            if (((u >>> 8) & 1) == 1) {
                if (pos < 0 || pos >= units.length) {
                    return null;
                }
                return string(units[pos] & 0x7FFFFFFF);
            }
        }
        return null;
    }

    private static int offset(int u) {
        return (u >>> 10) << ((u & 0x200) >>> 6);
    }

    private String string(int at) {
        if (at < 0 || at > strings.length) {
            return null;
        }
        int end = at;
        while (end < strings.length && strings[end] != 0) {
            end++;
        }
        return new String(strings, at, end - at, StandardCharsets.UTF_8);
    }

    @Override
    public Normalized normalize(Normalized text) {
        if (units.length == 0) {
            return text;
        }
        String s = text.text();
        // (code point, change) pairs exactly as the library builds them, applied in one transform.
        List<int[]> changes = new ArrayList<>(s.length());
        boolean modified = false;
        Matcher g = GRAPHEME.matcher(s);
        while (g.find()) {
            String grapheme = g.group();
            byte[] utf8 = grapheme.getBytes(StandardCharsets.UTF_8);
            if (utf8.length < 6) {
                String norm = lookup(utf8);
                if (norm != null) {
                    modified = true;
                    replace(changes, grapheme, norm);
                    continue;
                }
            }
            for (int i = 0; i < grapheme.length(); ) {
                int cp = grapheme.codePointAt(i);
                String part = Character.toString(cp);
                i += part.length();
                String norm = lookup(part.getBytes(StandardCharsets.UTF_8));
                if (norm != null) {
                    modified = true;
                    replace(changes, part, norm);
                } else {
                    changes.add(new int[] {cp, 0});
                }
            }
        }
        if (!modified) {
            return text;
        }
        Normalized.Edit e = text.edit();
        for (int[] c : changes) {
            if (c[1] > 0) {
                e.insert(c[0]);
            } else if (e.hasNext()) {
                e.keep(c[0]);
                for (int k = 0; k < -c[1] && e.hasNext(); k++) {
                    e.drop();
                }
            } else {
                e.insert(c[0]);
            }
        }
        return e.done();
    }

    /**
     * The library's {@code replace}: the new code points replace the old one for one; extra ones are
     * marked inserted; fewer ones make the last change (possibly a previous part's) remove the difference.
     */
    private static void replace(List<int[]> changes, String old, String norm) {
        int oldCount = old.codePointCount(0, old.length());
        int newCount = norm.codePointCount(0, norm.length());
        int first = changes.size();
        norm.codePoints().forEach(cp -> changes.add(new int[] {cp, 0}));
        int diff = newCount - oldCount;
        if (diff > 0) {
            for (int k = changes.size() - 1; k >= changes.size() - diff && k >= first; k--) {
                changes.get(k)[1] = 1;
            }
        } else if (diff < 0 && !changes.isEmpty()) {
            changes.getLast()[1] += diff;
        }
    }
}
