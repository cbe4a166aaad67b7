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
import org.vectorbert.common.Json;

/**
 * A Hugging Face model directory's weights, memory-mapped from {@code model.safetensors} or from the shards listed in
 * {@code model.safetensors.index.json} (without those, from {@code pytorch_model.bin} or its shards, read by
 * {@link PytorchFile}), found by the names the files give them: the part of opening a checkpoint that no
 * architecture's naming enters. {@link BertCheckpoint} renames through a family on top of it; an architecture with names
 * of its own reads it directly. Tensors are views into the mapped files, valid until this is closed.
 */
public final class TensorFiles implements WeightSource, AutoCloseable {
    private final Path directory;
    private final JsonNode configJson;
    private final List<TensorFile> files;
    private final Map<String, Tensor> tensors;

    private TensorFiles(Path directory, JsonNode configJson, List<TensorFile> files, Map<String, Tensor> tensors) {
        this.directory = directory;
        this.configJson = configJson;
        this.files = files;
        this.tensors = tensors;
    }

    /**
     * Opens a Hugging Face model directory: its config.json, and every weight file (safetensors, else PyTorch), mapped.
     *
     * @param directory the model directory
     * @return the open files; close them to unmap
     * @throws LoaderException if the directory, its config or its weights are missing or unreadable
     */
    public static TensorFiles open(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new LoaderException(Files.exists(directory) ? directory + " is not a directory"
                    : "model directory not found: " + directory);
        }
        Path configFile = directory.resolve("config.json");
        if (!Files.exists(configFile)) {
            throw new LoaderException("no config.json in " + directory);
        }
        return open(directory, Json.read(configFile, LoaderException::new));
    }

    /** Maps the weight files of {@code directory}, whose config.json has been read as {@code configJson}. */
    static TensorFiles open(Path directory, JsonNode configJson) {
        List<Path> paths = weightFiles(directory);
        List<TensorFile> files = new ArrayList<>();
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        try {
            for (Path p : paths) {
                TensorFile f = TensorFile.open(p);
                files.add(f);
                for (Tensor t : f.tensors().values()) {
                    if (tensors.putIfAbsent(t.name(), t) != null) {
                        throw new LoaderException("tensor '" + t.name() + "' appears in more than one shard (" + p.getFileName() + ")");
                    }
                }
            }
        } catch (RuntimeException e) {
            files.forEach(TensorFile::close);
            throw e;
        }
        return new TensorFiles(directory, configJson, List.copyOf(files), Collections.unmodifiableMap(tensors));
    }

    /**
     * model.safetensors, or the shards model.safetensors.index.json names; without either, pytorch_model.bin or the
     * shards of pytorch_model.bin.index.json (read by {@link PytorchFile}, which runs no pickle code).
     */
    private static List<Path> weightFiles(Path directory) {
        Path single = directory.resolve("model.safetensors");
        Path index = directory.resolve("model.safetensors.index.json");
        if (Files.exists(single)) {
            return List.of(single);
        }
        if (!Files.exists(index)) {
            Path torchSingle = directory.resolve("pytorch_model.bin");
            index = directory.resolve("pytorch_model.bin.index.json");
            if (Files.exists(torchSingle)) {
                return List.of(torchSingle);
            }
            if (!Files.exists(index)) {
                throw new LoaderException("no model.safetensors, model.safetensors.index.json, pytorch_model.bin or "
                        + "pytorch_model.bin.index.json in " + directory);
            }
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
        JsonNode map = Json.read(index, LoaderException::new).path("weight_map");
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

    /**
     * {@code t} if it has exactly {@code shape} and a float type; otherwise an error naming it and both shapes.
     *
     * @param directory the model directory, for the message
     * @param t         the tensor found
     * @param shape     the shape expected
     * @return t
     * @throws LoaderException if it is of another shape or not a float type
     */
    public static Tensor checked(Path directory, Tensor t, long... shape) {
        if (!Arrays.equals(t.shape(), shape)) {
            throw new LoaderException(directory + ": weight " + t.name() + " has shape " + t.shapeString()
                    + ", expected " + Arrays.toString(shape) + " for this config");
        }
        if (!t.dtype().isFloat()) {
            throw new LoaderException(directory + ": weight " + t.name() + " is " + t.dtype() + "; expected F32, F16 or BF16");
        }
        return t;
    }

    @Override
    public Path directory() {
        return directory;
    }

    /** {@return config.json as read} */
    public JsonNode configJson() {
        return configJson;
    }

    /** {@return config.json's labels of a task head's outputs} */
    public Labels labels() {
        return Labels.parse(configJson, "config.json");
    }

    @Override
    public List<Path> weightFiles() {
        return files.stream().map(TensorFile::path).toList();
    }

    /** {@return every tensor, by the name the files give it} */
    public Map<String, Tensor> tensors() {
        return tensors;
    }

    @Override
    public Optional<Tensor> find(String name) {
        return Optional.ofNullable(tensors.get(name));
    }

    @Override
    public Tensor require(String name, long... shape) {
        Tensor t = find(name).orElseThrow(() -> new LoaderException(directory + ": missing weight " + name));
        return checked(directory, t, shape);
    }

    @Override
    public void close() {
        files.forEach(TensorFile::close);
    }
}
