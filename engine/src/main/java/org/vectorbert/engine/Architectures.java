package org.vectorbert.engine;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.vectorbert.common.Json;
import org.vectorbert.loader.Family;
import org.vectorbert.loader.LoaderException;

/**
 * Every architecture vectorbert runs, by config.json's {@code model_type}: the one place a new architecture is
 * registered. Each is an {@link Encoder} implementation with its own config record, weight names, blocks and heads.
 */
final class Architectures {
    /**
     * One architecture.
     *
     * @param name       for messages
     * @param modelTypes the {@code model_type} values it runs
     * @param loader     opens a model directory of it at a precision
     * @param inspector  reads what a model directory of it holds, without loading it
     */
    record Architecture(String name, List<String> modelTypes, BiFunction<Path, Precision, Encoder> loader,
                        Function<Path, Inspection> inspector) {
        Architecture {
            modelTypes = List.copyOf(modelTypes);
        }

        Encoder load(Path directory, Precision precision) {
            return loader.apply(directory, precision);
        }
    }

    /** BERT and the families that are BERT's blocks under other names (DistilBERT, RoBERTa, XLM-R, CamemBERT, ELECTRA). */
    private static final Architecture BERT = new Architecture("BERT",
            Family.ALL.stream().flatMap(f -> f.modelTypes().stream()).toList(), BertModel::load, BertModel::inspect);

    static final List<Architecture> ALL = List.of(BERT,
            new Architecture("ModernBERT", List.of("modernbert"), ModernBertModel::load, ModernBertModel::inspect));

    private Architectures() {}

    /**
     * The architecture of the model in {@code directory}, by its config.json's {@code model_type} (BERT's when it has
     * none, as Google's bert_config.json). A directory without a config.json goes to BERT's loader, which says what is
     * missing.
     */
    static Architecture of(Path directory) {
        Path file = directory.resolve("config.json");
        if (!Files.isRegularFile(file)) {
            return BERT;
        }
        JsonNode config = Json.read(file, LoaderException::new);
        JsonNode type = config.path("model_type");
        if (type.isMissingNode() || type.isNull()) {
            return BERT;
        }
        for (Architecture a : ALL) {
            if (a.modelTypes().contains(type.asText())) {
                return a;
            }
        }
        throw new LoaderException("config.json: model_type '" + type.asText() + "' is not supported (supported: "
                + String.join(", ", ALL.stream().flatMap(a -> a.modelTypes().stream()).toList()) + ")");
    }
}
