package org.vectorbert.common;

/**
 * Texts shown back to a person, in messages and tables: control characters (a NUL, an escape
 * sequence, a line break inside a text) written as escapes so they cannot garble a terminal or a
 * line-based log, and long texts cut so a 50 MB line does not become a 50 MB message.
 */
public final class Excerpt {
    /** How many characters of a text a message shows. */
    public static final int MESSAGE_CHARS = 60;

    private Excerpt() {}

    /**
     * The first {@value #MESSAGE_CHARS} characters, escaped, with the full length when cut.
     *
     * @param text any text
     * @return the excerpt, for a one-line message
     */
    public static String of(String text) {
        if (text.length() <= MESSAGE_CHARS) {
            return printable(text);
        }
        int end = Character.isHighSurrogate(text.charAt(MESSAGE_CHARS - 1)) ? MESSAGE_CHARS - 1 : MESSAGE_CHARS;
        return printable(text.substring(0, end)) + "... (" + text.length() + " characters)";
    }

    /**
     * The whole text with control characters (Unicode category Cc, and U+2028/2029) escaped; others as they are.
     *
     * @param text any text
     * @return the text, printable on one line
     */
    public static String printable(String text) {
        StringBuilder b = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
            if (control && b == null) {
                b = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (b != null) {
                if (!control) {
                    b.append(c);
                } else if (c == '\n') {
                    b.append("\\n");
                } else if (c == '\t') {
                    b.append("\\t");
                } else if (c == '\r') {
                    b.append("\\r");
                } else {
                    b.append(String.format("\\u%04X", (int) c));
                }
            }
        }
        return b == null ? text : b.toString();
    }
}
