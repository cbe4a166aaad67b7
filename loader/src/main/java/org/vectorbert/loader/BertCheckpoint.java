package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A Hugging Face BERT model directory opened for inference: its validated {@link BertConfig}
 * and its weights, memory-mapped from {@code model.safetensors} or from the shards listed in
 * {@code model.safetensors.index.json}. Weights are found by their Hugging Face names whatever
 * spelling the checkpoint uses (see {@link WeightNames#spellings}). Closing unmaps every file.
 */
public final class BertCheckpoint implements AutoCloseable {
    private final Path directory;
    private final BertConfig config;
    private final List<SafetensorsFile> files;
    private final Map<String, Tensor> tensors;

    private BertCheckpoint(Path directory, BertConfig config, List<SafetensorsFile> files, Map<String, Tensor> tensors) {
        this.directory = directory;
        this.config = config;
        this.files = files;
        this.tensors = tensors;
    }

    public static BertCheckpoint open(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new LoaderException(Files.exists(directory) ? directory + " is not a directory"
                    : "model directory not found: " + directory);
        }
        Path configFile = directory.resolve("config.json");
        if (!Files.exists(configFile)) {
            throw new LoaderException("no config.json in " + directory);
        }
        BertConfig config = BertConfig.load(configFile);
        List<Path> paths = weightFiles(directory);
        List<SafetensorsFile> files = new ArrayList<>();
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        try {
            for (Path p : paths) {
                SafetensorsFile f = SafetensorsFile.open(p);
                files.add(f);
                for (Tensor t : f.tensors().values()) {
                    if (tensors.putIfAbsent(t.name(), t) != null) {
                        throw new LoaderException("tensor '" + t.name() + "' appears in more than one shard (" + p.getFileName() + ")");
                    }
                }
            }
        } catch (RuntimeException e) {
            files.forEach(SafetensorsFile::close);
            throw e;
        }
        return new BertCheckpoint(directory, config, List.copyOf(files), Collections.unmodifiableMap(tensors));
    }

    /** model.safetensors, or the shards model.safetensors.index.json names. */
    private static List<Path> weightFiles(Path directory) {
        Path single = directory.resolve("model.safetensors");
        Path index = directory.resolve("model.safetensors.index.json");
        if (Files.exists(single)) {
            return List.of(single);
        }
        if (!Files.exists(index)) {
            String hint = Files.exists(directory.resolve("pytorch_model.bin"))
                    ? " (pytorch_model.bin is not read: convert it to safetensors)" : "";
            throw new LoaderException("no model.safetensors or model.safetensors.index.json in " + directory + hint);
        }
        Set<Path> shards = new LinkedHashSet<>();
        for (Map.Entry<String, String> e : shardMap(index).entrySet()) {
            Path shard = directory.resolve(e.getValue());
            if (!Files.exists(shard)) {
                throw new LoaderException(index + ": shard " + e.getValue() + " (for '" + e.getKey() + "') is missing");
            }
            shards.add(shard);
        }
        return List.copyOf(shards);
    }

    /**
     * A {@code model.safetensors.index.json}'s weight_map, tensor name to shard file, each file a
     * relative path that stays inside the index's directory.
     */
    static Map<String, String> shardMap(Path index) {
        JsonNode map = Json.read(index).path("weight_map");
        if (!map.isObject() || map.isEmpty()) {
            throw new LoaderException(index + ": no weight_map of tensor name to file");
        }
        Map<String, String> shards = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : map.properties()) {
            String file = e.getValue().asText("");
            Path relative;
            try {
                relative = Path.of(file).normalize();
            } catch (java.nio.file.InvalidPathException ex) {
                relative = null;
            }
            if (file.isEmpty() || relative == null || relative.isAbsolute() || relative.startsWith("..")
                    || relative.toString().isEmpty()) {
                throw new LoaderException(index + ": tensor '" + e.getKey() + "' maps to an invalid file name " + e.getValue());
            }
            shards.put(e.getKey(), file);
        }
        return shards;
    }

    public Path directory() {
        return directory;
    }

    public BertConfig config() {
        return config;
    }

    /** Every tensor, by the name the checkpoint gives it. */
    public Map<String, Tensor> tensors() {
        return tensors;
    }

    /** The weight Hugging Face names {@code canonical}, under any spelling of it; the MLM decoder falls back to the tied word embeddings. */
    public Optional<Tensor> find(String canonical) {
        for (String name : WeightNames.spellings(canonical)) {
            Tensor t = tensors.get(name);
            if (t != null) {
                return Optional.of(t);
            }
        }
        if (canonical.equals(WeightNames.MLM_DECODER)) {
            return find(WeightNames.WORD_EMBEDDINGS);
        }
        return Optional.empty();
    }

    /**
     * The weight {@code canonical} with exactly {@code shape}, as float32 or convertible to it;
     * otherwise an error naming the tensor, the expected and the found shape.
     */
    public Tensor require(String canonical, long... shape) {
        Tensor t = find(canonical).orElseThrow(() -> new LoaderException(
                directory + ": missing weight " + canonical + " (also looked for " + WeightNames.spellings(canonical) + ")"));
        if (!Arrays.equals(t.shape(), shape)) {
            throw new LoaderException(directory + ": weight " + t.name() + " has shape " + t.shapeString()
                    + ", expected " + Arrays.toString(shape) + " for this config");
        }
        if (!t.dtype().isFloat()) {
            throw new LoaderException(directory + ": weight " + t.name() + " is " + t.dtype() + "; expected F32, F16 or BF16");
        }
        return t;
    }

    public boolean hasPooler() {
        return WeightNames.pooler(config).keySet().stream().allMatch(n -> find(n).isPresent());
    }

    /** Whether the masked-language-model head (transform, LayerNorm, decoder and output bias) is present. */
    public boolean hasMlmHead() {
        return WeightNames.mlmHead(config).keySet().stream().allMatch(n -> find(n).isPresent());
    }

    /**
     * Checks every weight inference needs against the config: the encoder's must all be there with
     * the right shapes; the pooler's and the MLM head's are checked when present. Returns them by
     * Hugging Face name, ready for the engine.
     */
    public Map<String, Tensor> checkedWeights() {
        Map<String, Tensor> weights = new LinkedHashMap<>();
        WeightNames.encoder(config).forEach((name, shape) -> weights.put(name, require(name, shape)));
        for (Map<String, long[]> head : List.of(WeightNames.pooler(config), WeightNames.mlmHead(config))) {
            // The tied decoder is always "found" (it is the word embeddings), so it does not make a head present.
            if (head.keySet().stream().filter(n -> !n.equals(WeightNames.MLM_DECODER)).anyMatch(n -> find(n).isPresent())) {
                head.forEach((name, shape) -> weights.put(name, require(name, shape)));
            }
        }
        return Collections.unmodifiableMap(weights);
    }

    /** Refuses to serve fill-mask without the masked-language-model head, naming what is missing. */
    public void requireMlmHead() {
        List<String> missing = WeightNames.mlmHead(config).keySet().stream().filter(n -> find(n).isEmpty()).toList();
        if (!missing.isEmpty()) {
            throw new LoaderException(directory + " has no masked-language-model head (missing " + String.join(", ", missing)
                    + "): it can give embeddings but not fill-mask");
        }
    }

    /** Parameters stored in the files: tied weights count once, since they are stored once. */
    public long parameterCount() {
        return tensors.values().stream().mapToLong(Tensor::elementCount).sum();
    }

    public long byteCount() {
        return tensors.values().stream().mapToLong(t -> t.data().byteSize()).sum();
    }

    @Override
    public void close() {
        files.forEach(SafetensorsFile::close);
    }
}
