package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vectorbert.common.Json;

/**
 * A Hugging Face model directory of a BERT-family encoder opened for inference: its {@link Family}
 * (by config.json's model_type), its validated {@link BertConfig} and its weights, memory-mapped from {@code model.safetensors} or from the shards listed in
 * {@code model.safetensors.index.json}, or from PyTorch's {@code pytorch_model.bin} without those ({@link TensorFiles}). Weights are found by their Hugging Face names whatever
 * spelling the checkpoint uses (see {@link Family#spellings}), each checked against the shape
 * its reader expects. Tensors are views into the mapped files, valid until the checkpoint is closed.
 */
public final class BertCheckpoint implements WeightSource, AutoCloseable {
    private final Path directory;
    private final Family family;
    private final BertConfig config;
    private final JsonNode configJson;
    private final TensorFiles files;
    private final Map<String, Tensor> tensors;

    private BertCheckpoint(Path directory, Family family, BertConfig config, JsonNode configJson, TensorFiles files) {
        this.directory = directory;
        this.family = family;
        this.config = config;
        this.configJson = configJson;
        this.files = files;
        this.tensors = files.tensors();
    }

    /**
     * Opens a Hugging Face model directory: its config.json and every safetensors file of the weights, mapped.
     *
     * @param directory the model directory
     * @return the open checkpoint; close it to unmap the files
     * @throws LoaderException if the directory, its config or its weights are missing or unreadable
     */
    public static BertCheckpoint open(Path directory) {
        if (!Files.isDirectory(directory)) {
            throw new LoaderException(Files.exists(directory) ? directory + " is not a directory"
                    : "model directory not found: " + directory);
        }
        Path configFile = directory.resolve("config.json");
        if (!Files.exists(configFile)) {
            throw new LoaderException("no config.json in " + directory);
        }
        JsonNode configJson = Json.read(configFile, LoaderException::new);
        Family family = Family.of(configJson, "config.json");
        BertConfig config = family.config(configJson, "config.json");
        TensorFiles files = TensorFiles.open(directory, configJson);
        String both = family.ambiguousPrefix(files.tensors().keySet());
        if (both != null) {
            files.close();
            throw new LoaderException(directory + ": " + both);
        }
        return new BertCheckpoint(directory, family, config, configJson, files);
    }

    /**
     * A {@code model.safetensors.index.json}'s weight_map, tensor name to shard file ({@link TensorFiles#shardMap}).
     */
    static Map<String, String> shardMap(Path index) {
        return TensorFiles.shardMap(index);
    }

    /** {@return the model directory} */
    @Override
    public Path directory() {
        return directory;
    }

    /** {@return the model's configuration, as its family reads config.json} */
    public BertConfig config() {
        return config;
    }

    /** {@return config.json's labels of a task head's outputs} Read when asked: a model without such a head never needs them. */
    public Labels labels() {
        return Labels.parse(configJson, "config.json");
    }

    /** {@return the model family config.json's model_type names} It says where the weights are kept. */
    public Family family() {
        return family;
    }

    /** {@return the safetensors files the weights are read from} A packed copy of them is checked against these. */
    @Override
    public List<Path> weightFiles() {
        return files.weightFiles();
    }

    /** {@return every tensor, by the name the checkpoint gives it} */
    public Map<String, Tensor> tensors() {
        return tensors;
    }

    /**
     * The weight Hugging Face names {@code canonical}, under any spelling of it; the MLM decoder falls back to the tied
     * word embeddings.
     *
     * @param canonical BERT's Hugging Face name ({@code bert.encoder.layer.0.attention.self.query.weight})
     * @return the tensor, or empty when the checkpoint has none
     */
    @Override
    public Optional<Tensor> find(String canonical) {
        for (String name : family.spellings(canonical)) {
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
     *
     * @param canonical BERT's Hugging Face name
     * @param shape     the shape expected
     * @return the tensor
     * @throws LoaderException if it is missing, of another shape or not a float type
     */
    @Override
    public Tensor require(String canonical, long... shape) {
        Tensor t = find(canonical).orElseThrow(() -> new LoaderException(
                directory + ": missing weight " + canonical + missingDetail(canonical)));
        return TensorFiles.checked(directory, t, shape);
    }

    /** Where a missing weight was looked for, in this family's names. */
    private String missingDetail(String canonical) {
        List<String> names = family.spellings(canonical);
        return names.equals(List.of(canonical)) ? "" : " (looked for " + String.join(", ", names) + ")";
    }

    /**
     * Where config.json and the weights disagree, one sentence each (empty when they agree): the
     * vocabulary, width and position count the word and position embeddings have, and the number of
     * layers. Loading refuses a model with any of these; {@code inspect} shows them.
     *
     * @return the contradictions, one sentence each
     */
    public List<String> contradictions() {
        List<String> found = new ArrayList<>();
        find(WeightNames.WORD_EMBEDDINGS).ifPresent(t -> {
            if (t.shape().length == 2 && t.shape()[0] != config.vocabSize()) {
                found.add("config.json says vocab_size " + config.vocabSize() + " but " + t.name() + " has " + t.shape()[0] + " rows");
            }
            if (t.shape().length == 2 && t.shape()[1] != config.embeddingSize()) {
                String key = config.embeddingSize() == config.hiddenSize() ? "hidden_size " : "embedding_size ";
                found.add("config.json says " + key + config.embeddingSize() + " but " + t.name() + " is " + t.shape()[1] + " wide");
            }
        });
        find("bert.embeddings.position_embeddings.weight").ifPresent(t -> {
            if (t.shape().length == 2 && t.shape()[0] != config.maxPositionEmbeddings()) {
                found.add("config.json says max_position_embeddings " + config.maxPositionEmbeddings() + " but " + t.name() + " has "
                        + t.shape()[0] + " rows");
            }
        });
        int layers = layerCount();
        if (layers != config.numHiddenLayers()) {
            found.add("config.json says num_hidden_layers " + config.numHiddenLayers() + " but the checkpoint has " + layers + " layers");
        }
        return found;
    }

    /**
     * {@return how many encoder layers the checkpoint holds} One more than the highest N of any
     * {@code encoder.layer.N.*} tensor (in the family's names).
     */
    public int layerCount() {
        Pattern layer = family.layerPattern();
        int n = 0;
        for (String name : tensors.keySet()) {
            Matcher m = layer.matcher(name);
            if (m.lookingAt()) {
                n = Math.max(n, Integer.parseInt(m.group(1)) + 1);
            }
        }
        return n;
    }

    /** {@return the parameters stored in the files} Tied weights count once, since they are stored once. */
    public long parameterCount() {
        return tensors.values().stream().mapToLong(Tensor::elementCount).sum();
    }

    /** {@return the bytes of every tensor's data} */
    public long byteCount() {
        return tensors.values().stream().mapToLong(t -> t.data().byteSize()).sum();
    }

    @Override
    public void close() {
        files.close();
    }
}
