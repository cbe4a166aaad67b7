package org.vectorbert.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
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

    private static void readLines(InputStream in, String name, Consumer<String> handler) {
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        int lineNumber = 0;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, decoder), 1 << 16)) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                lineNumber++;
                handler.accept(line);
            }
        } catch (CharacterCodingException e) {
            throw new UserError(name + " is not valid UTF-8 (at line " + (lineNumber + 1) + ")");
        } catch (IOException e) {
            throw new UserError("cannot read " + name + ": " + e.getMessage());
        }
    }
}
