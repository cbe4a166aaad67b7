package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The hand-written GPT-2 split against the regex it replaces, as java.util.regex runs it. */
class Gpt2SplitTest {
    private static final Pattern GPT2 = Pattern.compile(
            "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+",
            Pattern.UNICODE_CHARACTER_CLASS);

    @Test
    void classifiesEveryCodePointAsTheRegexDoes() {
        Pattern letter = Pattern.compile("\\p{L}");
        Pattern number = Pattern.compile("\\p{N}");
        Pattern space = Pattern.compile("\\s", Pattern.UNICODE_CHARACTER_CLASS);
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
            String s = Character.toString(cp);
            byte expected = letter.matcher(s).matches() ? Gpt2Split.LETTER
                    : number.matcher(s).matches() ? Gpt2Split.NUMBER
                    : space.matcher(s).matches() ? Gpt2Split.SPACE : Gpt2Split.OTHER;
            if (expected != Gpt2Split.kind(cp)) {
                assertEquals(expected, Gpt2Split.kind(cp), "U+" + Integer.toHexString(cp));
            }
        }
    }

    @Test
    void splitsAsTheRegexDoes() {
        String[] atoms = {"'", "s", "t", "re", "ve", "m", "ll", "d", "l", "r", "v", "e", "'s", "'ll", "'ve",
            " ", " ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\u0085", "\u3000",
            "a", "Hello", "é", "ж", "日本", "\u0301", "1", "42", "\u0663", "\u2167", "\u00bd",
            ".", ",", "!?", "-", "\"", "$", "😀", "\ud835\udc00", "\ud835\udfce", "\ud800", "\udc00", "_"};
        Random random = new Random(27);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder b = new StringBuilder();
            int parts = 1 + random.nextInt(12);
            for (int k = 0; k < parts; k++) {
                b.append(atoms[random.nextInt(atoms.length)]);
            }
            String text = b.toString();
            assertEquals(regex(text), hand(text), text);
        }
    }

    private static List<String> regex(String text) {
        List<String> out = new ArrayList<>();
        Matcher m = GPT2.matcher(text);
        int prev = 0;
        while (m.find()) {
            assertEquals(prev, m.start(), "the regex's matches tile the text");
            out.add(m.group());
            prev = m.end();
        }
        assertEquals(text.length(), prev);
        return out;
    }

    private static List<String> hand(String text) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < text.length(); ) {
            int end = Gpt2Split.matchEnd(text, i);
            out.add(text.substring(i, end));
            i = end;
        }
        return out;
    }

    @Test
    void encodesUtf8AsStringGetBytes() {
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp += cp < 0x11000 ? 1 : 97) {
            byte[] expected = Character.toString(cp).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int n = ByteLevel.utf8Length(cp);
            assertEquals(expected.length, n, "U+" + Integer.toHexString(cp));
            for (int k = 0; k < n; k++) {
                assertEquals(expected[k] & 0xFF, ByteLevel.utf8Byte(cp, n, k), "U+" + Integer.toHexString(cp));
            }
        }
    }
}
