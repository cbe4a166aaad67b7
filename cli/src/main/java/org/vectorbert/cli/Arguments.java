package org.vectorbert.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vectorbert.common.Excerpt;

/**
 * Texts given as arguments follow the rule texts read from a file follow: they must be valid UTF-8.
 * The JVM decodes arguments before {@code main} sees them and turns a bad byte (a lone surrogate's
 * three bytes, say) into U+FFFD, which would then be embedded as if it had been typed. So an argument
 * holding U+FFFD is checked against the bytes the process was really given, from
 * {@code /proc/self/cmdline} (Linux; elsewhere the decoded text is taken as it is).
 */
final class Arguments {
    private static final Path CMDLINE = Path.of("/proc/self/cmdline");

    private Arguments() {}

    /** Refuses, naming the argument, a text whose bytes were not valid UTF-8. */
    static void requireValidUtf8(List<String> texts) {
        for (String text : texts) {
            if (badBytes(text)) {
                throw new UserError("the text \"" + Excerpt.of(text) + "\" given as an argument is not valid UTF-8"
                        + " (as a file's lines must be; U+FFFD marks the bad bytes)");
            }
        }
    }

    /** Refuses an option's value (--pair, --query, --targets, ...) whose bytes were not valid UTF-8, naming the option. */
    static void requireValidUtf8(String option, String value) {
        if (value != null && badBytes(value)) {
            throw new UserError(option + " \"" + Excerpt.of(value) + "\" is not valid UTF-8 (U+FFFD marks the bad bytes)");
        }
    }

    /** Whether {@code text} came from an argument whose bytes were not valid UTF-8 (only a text holding U+FFFD can have). */
    private static boolean badBytes(String text) {
        return text.indexOf('\uFFFD') >= 0 && rawArguments().stream().anyMatch(bytes -> !validUtf8(bytes) && decodesTo(bytes, text));
    }

    /** The process's command line as it was given, one byte array per word; empty where /proc is not there. */
    private static List<byte[]> rawArguments() {
        List<byte[]> words = new ArrayList<>();
        try {
            byte[] all = Files.readAllBytes(CMDLINE);
            int start = 0;
            for (int i = 0; i < all.length; i++) {
                if (all[i] == 0) {
                    words.add(java.util.Arrays.copyOfRange(all, start, i));
                    start = i + 1;
                }
            }
        } catch (IOException | SecurityException e) {
            // Not Linux, or not readable: nothing to check against.
        }
        return words;
    }

    private static boolean validUtf8(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static boolean decodesTo(byte[] bytes, String text) {
        String word = new String(bytes, StandardCharsets.UTF_8);
        return word.equals(text) || word.startsWith("--") && word.endsWith("=" + text);   // --option=value
    }
}
