package org.vectorbert.parity;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** Real texts this machine has: lines of Debian's licences, and the Chinese translations of its programs' messages. */
final class RealTexts {
    private RealTexts() {}

    /** Distinct non-empty lines of the licences Debian ships, in file order. */
    static List<String> licenceLines(int count) throws IOException {
        Path dir = Path.of("/usr/share/common-licenses");
        assertTrue(Files.isDirectory(dir), "no /usr/share/common-licenses on this machine");
        Set<String> lines = new LinkedHashSet<>();
        try (Stream<Path> files = Files.list(dir).filter(Files::isRegularFile).sorted()) {
            for (Path f : files.toList()) {
                for (String line : Files.readAllLines(f, StandardCharsets.ISO_8859_1)) {
                    if (!line.isBlank() && lines.size() < count) {
                        lines.add(line.strip());
                    }
                }
            }
        }
        assertTrue(lines.size() == count, lines.size() + " lines");
        return new ArrayList<>(lines);
    }

    /** Distinct translated messages holding Chinese characters, from the zh_CN message catalogues (.mo) of Debian's packages. */
    static List<String> chineseMessages(int count) throws IOException {
        Path dir = Path.of("/usr/share/locale/zh_CN/LC_MESSAGES");
        assertTrue(Files.isDirectory(dir), "no " + dir + " on this machine");
        Set<String> messages = new LinkedHashSet<>();
        try (Stream<Path> files = Files.list(dir).filter(p -> p.toString().endsWith(".mo")).sorted()) {
            for (Path f : files.toList()) {
                for (String m : translations(Files.readAllBytes(f))) {
                    String line = m.replace('\n', ' ').strip();
                    if (line.length() >= 4 && line.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)
                            && messages.size() < count) {
                        messages.add(line);
                    }
                }
            }
        }
        assertTrue(messages.size() == count, messages.size() + " messages");
        return new ArrayList<>(messages);
    }

    /**
     * The lines, then texts made of consecutive lines joined by {@code separator} until they are 600 to 2,600 tokens
     * long (measured in characters: about 4.5 a token for English, 1 for Chinese), past the 510 tokens of one part.
     */
    static List<String> withLongOnes(List<String> lines, String separator) {
        double perToken = separator.isEmpty() ? 1.1 : 4.5;
        List<String> out = new ArrayList<>(lines);
        int next = 0;
        for (int tokens : new int[] {600, 900, 1300, 1800, 2600}) {
            StringBuilder text = new StringBuilder();
            while (text.length() < tokens * perToken) {
                text.append(text.isEmpty() ? "" : separator).append(lines.get(next++ % lines.size()));
            }
            out.add(text.toString());
        }
        return out;
    }

    /** The msgstr strings of a GNU .mo catalogue (the first form of a plural), the header entry left out. */
    private static List<String> translations(byte[] mo) {
        ByteBuffer b = ByteBuffer.wrap(mo).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(0) != 0x950412de) {
            b.order(ByteOrder.BIG_ENDIAN);
        }
        int n = b.getInt(8);
        int originals = b.getInt(12);
        int translated = b.getInt(16);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (b.getInt(originals + 8 * i) == 0) {
                continue;
            }
            int length = b.getInt(translated + 8 * i);
            int offset = b.getInt(translated + 8 * i + 4);
            String s = new String(mo, offset, length, StandardCharsets.UTF_8);
            out.add(s.split("\0", -1)[0]);
        }
        return out;
    }
}
