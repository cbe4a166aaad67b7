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
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.vectorbert.engine.TextTooLongException;

/** Texts to process: the command's arguments, or one text per line of a file or of standard input ({@code -}). */
final class TextInput {
    /** Receives texts a batch at a time, with how far through the input the reading is. */
    @FunctionalInterface
    interface BatchHandler {
        /**
         * @param first      the first text's line number, or its argument's number (from 1)
         * @param bytesRead  input bytes consumed so far (-1 for arguments)
         * @param totalBytes the input's size, or -1 when unknown (arguments, standard input)
         */
        void accept(List<String> texts, int first, long bytesRead, long totalBytes);
    }

    /**
     * The longest line read, in bytes. Refused while it is read, before it costs memory: BERT models
     * take at most a few thousand tokens, and a megabyte of text is a few hundred thousand.
     */
    static final int MAX_LINE_BYTES = 1 << 20;

    /** Where text number {@code n} (counted as {@link BatchHandler#accept} counts) came from, for a message. */
    static String where(String file, int n) {
        return file == null ? "argument " + n : "line " + n + " of " + (file.equals("-") ? "standard input" : file);
    }

    private TextInput() {}

    /** Hands each text to {@code handler} as it is read, so long inputs stream. */
    static void forEach(List<String> arguments, String file, InputStream stdin, Consumer<String> handler) {
        forEachBatch(arguments, file, stdin, 1, (texts, first, read, total) -> texts.forEach(handler));
    }

    /**
     * Hands texts over in batches of up to {@code batchSize}. A batch is also handed over early
     * when the input has nothing more to read yet, so a person typing into standard input gets
     * each answer at once while a file is read in full batches.
     *
     * @param file a path, {@code -} for standard input, or null to use {@code arguments}
     */
    static void forEachBatch(List<String> arguments, String file, InputStream stdin, int batchSize, BatchHandler handler) {
        if (file == null) {
            if (arguments.isEmpty()) {
                throw new UserError("no text given: pass texts as arguments, or --file PATH (- for standard input)");
            }
            Arguments.requireValidUtf8(arguments);
            for (int i = 0; i < arguments.size(); i += batchSize) {
                handler.accept(arguments.subList(i, Math.min(arguments.size(), i + batchSize)), i + 1, -1, -1);
            }
            return;
        }
        if (!arguments.isEmpty()) {
            throw new UserError("give texts as arguments or with --file, not both");
        }
        handler = locatingTooLongTexts(file, handler);
        if (file.equals("-")) {
            new LineReader(stdin, "standard input", -1, batchSize, handler).run();
            return;
        }
        Path path = Path.of(file);
        if (Files.isDirectory(path)) {
            throw new UserError(file + " is a directory, not a text file");
        }
        try (InputStream in = Files.newInputStream(path)) {
            new LineReader(in, file, Files.size(path), batchSize, handler).run();
        } catch (NoSuchFileException e) {
            throw new UserError("file not found: " + file);
        } catch (IOException e) {
            throw new UserError("cannot read " + file + ": " + e.getMessage());
        }
    }

    /**
     * {@code handler}, with a text the model refuses as too long named by its line too: the message's excerpt of the text
     * does not say which of a file's lines to shorten.
     */
    private static BatchHandler locatingTooLongTexts(String file, BatchHandler handler) {
        return (texts, first, read, total) -> {
            try {
                handler.accept(texts, first, read, total);
            } catch (TextTooLongException e) {
                int i = texts.indexOf(e.text());
                throw i < 0 ? e : e.at(where(file, first + i));
            }
        };
    }

    /** Splits bytes into lines first and decodes each strictly, so a bad byte is reported with its line number. */
    private static final class LineReader {
        private final InputStream in;
        private final String name;
        private final long totalBytes;
        private final int batchSize;
        private final BatchHandler handler;
        private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        private List<String> batch = new ArrayList<>();
        private int batchFirst = 1;
        private int lineNumber;
        private long bytesRead;

        LineReader(InputStream in, String name, long totalBytes, int batchSize, BatchHandler handler) {
            this.in = in;
            this.name = name;
            this.totalBytes = totalBytes;
            this.batchSize = batchSize;
            this.handler = handler;
        }

        void run() {
            byte[] buffer = new byte[1 << 16];
            try {
                for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
                    int start = 0;
                    for (int i = 0; i < n; i++) {
                        if (buffer[i] == '\n') {
                            line.write(buffer, start, i - start);
                            bytesRead += i - start + 1;
                            add();
                            start = i + 1;
                        }
                    }
                    line.write(buffer, start, n - start);
                    bytesRead += n - start;
                    requireShortLine();
                    if (in.available() == 0) {
                        flush();
                    }
                }
                if (line.size() > 0) {
                    add();
                }
                flush();
            } catch (CharacterCodingException e) {
                throw new UserError(name + " is not valid UTF-8 (at line " + lineNumber + ")");
            } catch (IOException e) {
                throw new UserError("cannot read " + name + ": " + e.getMessage());
            }
        }

        private void requireShortLine() {
            if (line.size() > MAX_LINE_BYTES) {
                throw new UserError("line " + (lineNumber + 1) + " of " + name + " is over " + (MAX_LINE_BYTES >> 20)
                        + " MB without a line break: far longer than any BERT model takes (split the text, or check"
                        + " that the file holds one text per line)");
            }
        }

        /** Decodes the line (without its carriage return) into the batch; empties {@code line}. */
        private void add() throws CharacterCodingException {
            requireShortLine();
            lineNumber++;
            byte[] bytes = line.toByteArray();
            line.reset();
            int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
            batch.add(decoder.decode(ByteBuffer.wrap(bytes, 0, length)).toString());
            if (batch.size() == batchSize) {
                flush();
            }
        }

        private void flush() {
            if (!batch.isEmpty()) {
                List<String> full = batch;
                int first = batchFirst;
                batch = new ArrayList<>();
                batchFirst = lineNumber + 1;
                handler.accept(full, first, bytesRead - line.size(), totalBytes);
            }
        }
    }
}
