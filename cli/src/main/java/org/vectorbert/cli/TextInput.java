package org.vectorbert.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/** Texts to process: the command's arguments, or one text per line of a file or of standard input ({@code -}). */
final class TextInput {
    private TextInput() {}

    /**
     * Hands each text to {@code handler} as it is read, so long inputs stream.
     *
     * @param file a path, {@code -} for standard input, or null to use {@code arguments}
     */
    static void forEach(List<String> arguments, String file, InputStream stdin, Consumer<String> handler) {
        if (file == null) {
            if (arguments.isEmpty()) {
                throw new UserError("no text given: pass texts as arguments, or --file PATH (- for standard input)");
            }
            arguments.forEach(handler);
            return;
        }
        if (!arguments.isEmpty()) {
            throw new UserError("give texts as arguments or with --file, not both");
        }
        if (file.equals("-")) {
            readLines(stdin, "standard input", handler);
            return;
        }
        Path path = Path.of(file);
        if (Files.isDirectory(path)) {
            throw new UserError(file + " is a directory, not a text file");
        }
        try (InputStream in = Files.newInputStream(path)) {
            readLines(in, file, handler);
        } catch (NoSuchFileException e) {
            throw new UserError("file not found: " + file);
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Splits bytes into lines first and decodes each strictly, so a bad byte is reported on its own line. */
    private static void readLines(InputStream in, String name, Consumer<String> handler) {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        byte[] buffer = new byte[1 << 16];
        var line = new ByteArrayOutputStream(256);
        int lineNumber = 0;
        try {
            for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
                int start = 0;
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        line.write(buffer, start, i - start);
                        lineNumber++;
                        handler.accept(decodeLine(decoder, line));
                        start = i + 1;
                    }
                }
                line.write(buffer, start, n - start);
            }
            if (line.size() > 0) {
                lineNumber++;
                handler.accept(decodeLine(decoder, line));
            }
        } catch (CharacterCodingException e) {
            throw new UserError(name + " is not valid UTF-8 (at line " + lineNumber + ")");
        } catch (IOException e) {
            throw new UserError("cannot read " + name + ": " + e.getMessage());
        }
    }

    /** The line's text without its carriage return; empties {@code line}. */
    private static String decodeLine(CharsetDecoder decoder, ByteArrayOutputStream line)
            throws CharacterCodingException {
        byte[] bytes = line.toByteArray();
        line.reset();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return decoder.decode(ByteBuffer.wrap(bytes, 0, length)).toString();
    }
}
