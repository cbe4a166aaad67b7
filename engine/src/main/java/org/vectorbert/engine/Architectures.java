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
     * @param hubClasses the classes of code on the hub it implements natively, as {@code auto_map} names them
     *                   ("repo--module.Class": one class name can stand for different code in two repositories)
     * @param loader     opens a model directory of it at a precision
     * @param inspector  reads what a model directory of it holds, without loading it
     */
    record Architecture(String name, List<String> modelTypes, List<String> hubClasses, BiFunction<Path, Precision, Encoder> loader,
                        Function<Path, Inspection> inspector) {
        Architecture {
            modelTypes = List.copyOf(modelTypes);
            hubClasses = List.copyOf(hubClasses);
        }

        Encoder load(Path directory, Precision precision) {
            return loader.apply(directory, precision);
        }
    }

    /** BERT and the families that are BERT's blocks under other names (DistilBERT, RoBERTa, XLM-R, CamemBERT, ELECTRA). */
    private static final Architecture BERT = new Architecture("BERT",
            Family.ALL.stream().flatMap(f -> f.modelTypes().stream()).toList(), List.of(), BertModel::load, BertModel::inspect);

    static final List<Architecture> ALL = List.of(BERT,
            new Architecture("ModernBERT", List.of("modernbert"), List.of(), ModernBertModel::load, ModernBertModel::inspect),
            new Architecture("NomicBERT", List.of("nomic_bert"), NomicBertModel.HUB_CLASSES, NomicBertModel::load, NomicBertModel::inspect),
            new Architecture("GTE", List.of("new", "gte"), GteModel.HUB_CLASSES, GteModel::load, GteModel::inspect),
            new Architecture("JinaBERT", List.of(), JinaBertModel.HUB_CLASSES, JinaBertModel::load, JinaBertModel::inspect),
            new Architecture("DeBERTa-v2", List.of("deberta-v2"), List.of(), DebertaModel::load, DebertaModel::inspect),
            new Architecture("Qwen3", List.of("qwen3"), List.of(), Qwen3Model::load, Qwen3Model::inspect),
            new Architecture("Gemma 3", List.of("gemma3_text"), List.of(), Gemma3Model::load, Gemma3Model::inspect));

    private Architectures() {}

    /** The model classes config.json's {@code auto_map} names ("repo--module.Class" or "module.Class"), AutoConfig's aside. */
    private static List<String> hubModelClasses(JsonNode config) {
        JsonNode map = config.path("auto_map");
        if (!map.isObject()) {
            return List.of();
        }
        return map.properties().stream().filter(e -> e.getKey().startsWith("AutoModel"))
                .map(e -> e.getValue().isArray() ? e.getValue().path(0).asText("") : e.getValue().asText(""))
                .filter(c -> !c.isEmpty()).toList();
    }

    /**
     * The architecture of the model in {@code directory}: the one implementing the hub code its config.json's
     * {@code auto_map} names, if it names any, else by its {@code model_type} (BERT's when it has none, as Google's
     * bert_config.json). A directory without a config.json goes to BERT's loader, which says what is missing.
     */
    static Architecture of(Path directory) {
        Path file = directory.resolve("config.json");
        if (!Files.isRegularFile(file)) {
            return BERT;
        }
        JsonNode config = Json.read(file, LoaderException::new);
        List<String> remote = hubModelClasses(config);
        if (!remote.isEmpty()) {
            for (Architecture a : ALL) {
                if (remote.stream().anyMatch(a.hubClasses()::contains)) {
                    return a;
                }
            }
            List<String> known = ALL.stream().flatMap(a -> a.hubClasses().stream()).toList();
            throw new LoaderException("config.json: auto_map names code on the hub (" + remote.getFirst() + "), an architecture"
                    + " vectorbert does not implement; it never runs a model's own code (implemented natively: "
                    + (known.isEmpty() ? "none yet" : String.join(", ", known)) + ")");
        }
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
