package org.vectorbert.tokenizer.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The text a pattern's every match contains, which lets Replace skip texts without it. */
class SplitPatternTest {
    @Test
    void knowsWhatEveryMatchContains() {
        assertEquals("  ", SplitPattern.regex(" {2,}", "test").requiredText());
        assertEquals("aaa", SplitPattern.regex("a{3,}", "test").requiredText());
        assertEquals(" ", SplitPattern.literal(" ").requiredText());
        assertEquals("a.b", SplitPattern.literal("a.b").requiredText());
        for (String none : new String[] {" {0,}", ". {2,}", ".{2,}", "\\s{2,}", " {2,3}", " {2}", " +", "a|b", "[ ]{2,}"}) {
            assertEquals(null, SplitPattern.regex(none, "test").requiredText(), none);
        }
        assertEquals(null, SplitPattern.literal("").requiredText());
        assertEquals(null, SplitPattern.literal("a\\Eb").requiredText());
    }

    @Test
    void aTextWithoutItHasNoMatch() {
        SplitPattern[] patterns = {SplitPattern.regex(" {2,}", "test"), SplitPattern.regex("x{3,}", "test"),
            SplitPattern.literal("ab"), SplitPattern.literal("a\\Eb")};
        String alphabet = "ab x\\E";
        Random random = new Random(27);
        for (int n = 0; n < 20_000; n++) {
            StringBuilder b = new StringBuilder();
            for (int k = random.nextInt(12); k > 0; k--) {
                b.append(alphabet.charAt(random.nextInt(alphabet.length())));
            }
            String text = b.toString();
            for (SplitPattern p : patterns) {
                String required = p.requiredText();
                if (required != null && !text.contains(required)) {
                    assertFalse(p.regex().matcher(text).find(), p.regex() + " in '" + text + "'");
                }
            }
        }
    }
}
