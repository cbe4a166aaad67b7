package org.vectorbert.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.Tensor;
import org.vectorbert.loader.TensorFiles;
import org.vectorbert.loader.WeightSource;

/**
 * The checkpoint's tensors, noting which ones the model takes: a weight the config leaves unread (a bias it says is
 * not there, a layer past num_hidden_layers) means config.json does not describe the weights.
 */
final class UsedWeights implements WeightSource {
    /** Builds an architecture's encoder from its files, its parsed config and the root of its weights' names. */
    interface Builder<C> {
        Encoder build(TensorFiles files, C config, Scope root);
    }

    /**
     * Opens a model directory as an architecture's loader does: the kernels' start, config.json parsed by {@code parse},
     * the encoder built over the weights (packed and cached at {@code precision}), then every weight checked as used. The
     * files are closed after.
     */
    static <C> Encoder load(Path directory, Precision precision, BiFunction<JsonNode, String, C> parse, Builder<C> builder) {
        PlainKernels.checkVectorModule();
        if (!PlainKernels.firstPassAhead()) {
            KernelCompilation.start();
        }
        try (TensorFiles files = TensorFiles.open(directory)) {
            C config = parse.apply(files.configJson(), "config.json");
            UsedWeights used = new UsedWeights(files);
            Encoder model = PackedWeights.load(used, precision, PackedWeights.directory(),
                    packed -> builder.build(files, config, Scope.root(used, precision, packed)));
            used.requireAllUsed(files);
            return model;
        }
    }

    private final TensorFiles files;
    private final Map<String, Boolean> used = new HashMap<>();

    UsedWeights(TensorFiles files) {
        this.files = files;
    }

    @Override
    public Path directory() {
        return files.directory();
    }

    @Override
    public List<Path> weightFiles() {
        return files.weightFiles();
    }

    @Override
    public Optional<Tensor> find(String name) {
        return files.find(name);
    }

    @Override
    public synchronized Tensor require(String name, long... shape) {
        used.put(name, true);
        return files.require(name, shape);
    }

    synchronized void requireAllUsed(TensorFiles all) {
        for (String name : all.tensors().keySet()) {
            if (!used.containsKey(name)) {
                throw new LoaderException(directory() + ": weight " + name + " is not part of the model config.json describes"
                        + " (config.json does not describe these weights)");
            }
        }
    }
}
