package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/** The patterns Replace matches without java.util.regex, against the regex. */
class SplitPatternTest {
    @Test
    void knowsRunsAndLiterals() {
        assertEquals((long) ' ' << 32 | 2, SplitPattern.regex(" {2,}", "test").run());
        assertEquals((long) 'a' << 32 | 13, SplitPattern.regex("a{13,}", "test").run());
        for (String none : new String[] {" {0,}", ". {2,}", ".{2,}", "\\s{2,}", " {2,3}", " {2}", " +", "a|b", "[ ]{2,}",
            " {101,}"}) {
            assertEquals(-1, SplitPattern.regex(none, "test").run(), none);
            assertEquals(null, SplitPattern.regex(none, "test").literalText(), none);
        }
        assertEquals(" ", SplitPattern.literal(" ").literalText());
        assertEquals("a.b", SplitPattern.literal("a.b").literalText());
        assertEquals(-1, SplitPattern.literal(" ").run());
        assertEquals(null, SplitPattern.literal("").literalText());
        assertEquals(null, SplitPattern.literal("a\\Eb").literalText());
    }

    @Test
    void replacesAsTheRegexDoes() {
        SplitPattern[] patterns = {SplitPattern.regex(" {2,}", "test"), SplitPattern.regex("x{3,}", "test"),
            SplitPattern.regex("a{1,}", "test"), SplitPattern.literal("ab"), SplitPattern.literal("a\\Eb")};
        String[] atoms = {"a", "b", " ", "x", "\\E", "\ud83d\ude00", "é"};
        Random random = new Random(27);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder b = new StringBuilder();
            for (int k = random.nextInt(14); k > 0; k--) {
                b.append(atoms[random.nextInt(atoms.length)]);
            }
            String text = b.toString();
            // Both an unchanged text and one an earlier stage aligned (its first character dropped).
            Normalized plain = Normalized.of(text, 0, text.length());
            Normalized edited = plain.isEmpty() ? plain : plain.edit().drop().keepRest().done();
            for (SplitPattern p : patterns) {
                for (Normalized in : new Normalized[] {plain, edited}) {
                    String content = n % 2 == 0 ? "_" : "";
                    assertSame(regexReplace(in, p, content), Normalizer.replace(in, p, content), p.regex() + " in '" + text + "'");
                }
            }
        }
    }

    private static void assertSame(Normalized expected, Normalized actual, String what) {
        assertEquals(expected.text(), actual.text(), what);
        assertEquals(expected.originalStart(), actual.originalStart(), what);
        for (int i = 0; i < expected.length(); i++) {
            assertEquals(expected.startOf(i), actual.startOf(i), what + " start " + i);
            assertEquals(expected.endOf(i), actual.endOf(i), what + " end " + i);
        }
    }

    /** Normalizer.replace as it was, every pattern through java.util.regex. */
    private static Normalized regexReplace(Normalized text, SplitPattern pattern, String content) {
        Matcher m = pattern.regex().matcher(text.text());
        if (!m.find()) {
            return text;
        }
        Normalized.Edit e = text.edit();
        do {
            while (e.position() < m.start()) {
                e.keep();
            }
            while (e.position() < m.end()) {
                e.drop();
            }
            e.insert(content);
        } while (m.find());
        e.keepRest();
        return e.done();
    }
}
