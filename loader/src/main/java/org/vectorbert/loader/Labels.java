package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What config.json says about a task head's outputs: the label of each output ({@code id2label},
 * checked against {@code label2id} and {@code num_labels}; transformers' {@code LABEL_i} when
 * absent) and the {@code problem_type}, which decide how scores are made of logits.
 *
 * @param names       the label of output i, in id order
 * @param problemType "regression", "single_label_classification", "multi_label_classification", or null
 */
public record Labels(List<String> names, String problemType) {
    private static final List<String> PROBLEM_TYPES = List.of("regression", "single_label_classification", "multi_label_classification");

    /** Copies the names. */
    public Labels {
        names = List.copyOf(names);
    }

    /** {@return the number of labels} */
    public int count() {
        return names.size();
    }

    /**
     * Reads and checks the label keys of a config.json.
     *
     * @param config config.json's root
     * @param source names the file in messages
     * @return the labels
     * @throws LoaderException if the keys disagree
     */
    public static Labels parse(JsonNode config, String source) {
        JsonNode id2label = config.path("id2label");
        List<String> names = new ArrayList<>();
        if (id2label.isObject() && !id2label.isEmpty()) {
            String[] byId = new String[id2label.size()];
            for (Map.Entry<String, JsonNode> e : id2label.properties()) {
                int id;
                try {
                    id = Integer.parseInt(e.getKey());
                } catch (NumberFormatException ex) {
                    throw new LoaderException(source + ": id2label key '" + e.getKey() + "' is not a label id");
                }
                if (id < 0 || id >= byId.length || byId[id] != null) {
                    throw new LoaderException(source + ": id2label must number its " + byId.length + " labels 0.." + (byId.length - 1)
                            + ", but has id " + e.getKey());
                }
                if (!e.getValue().isTextual()) {
                    throw new LoaderException(source + ": id2label's label " + e.getKey() + " must be a string, was " + e.getValue());
                }
                byId[id] = e.getValue().asText();
            }
            names.addAll(List.of(byId));
        } else if (!id2label.isMissingNode() && !id2label.isNull() && !id2label.isObject()) {
            throw new LoaderException(source + ": id2label must be an object of label id to label, was " + id2label);
        }
        JsonNode n = config.get("num_labels");
        if (n != null && !n.isNull()) {
            if (!n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() <= 0) {
                throw new LoaderException(source + ": num_labels must be a positive integer, was " + n);
            }
            if (!names.isEmpty() && n.intValue() != names.size()) {
                throw new LoaderException(source + ": num_labels is " + n.intValue() + " but id2label names " + names.size() + " labels");
            }
            for (int i = names.size(); i < n.intValue(); i++) {
                names.add("LABEL_" + i);
            }
        }
        if (names.isEmpty()) {                     // transformers' PretrainedConfig: num_labels 2
            names.addAll(List.of("LABEL_0", "LABEL_1"));
        }
        JsonNode label2id = config.path("label2id");
        if (label2id.isObject()) {
            for (Map.Entry<String, JsonNode> e : label2id.properties()) {
                int id = e.getValue().asInt(-1);
                if (!e.getValue().canConvertToInt() || id < 0 || id >= names.size() || !names.get(id).equals(e.getKey())) {
                    throw new LoaderException(source + ": label2id maps '" + e.getKey() + "' to " + e.getValue()
                            + ", which id2label does not (" + names + ")");
                }
            }
        }
        String problem = BertConfig.text(config, "problem_type", null, source);
        if (problem != null && !PROBLEM_TYPES.contains(problem)) {
            throw new LoaderException(source + ": problem_type '" + problem + "' is not one of " + String.join(", ", PROBLEM_TYPES));
        }
        return new Labels(names, problem);
    }

    /**
     * A label's id.
     *
     * @param label the label, case-sensitive
     * @return its id, or -1 when there is no such label
     */
    public int id(String label) {
        return names.indexOf(label);
    }

    @Override
    public String toString() {
        return names + (problemType == null ? "" : " (" + problemType.toLowerCase(Locale.ROOT) + ")");
    }
}
