package org.vectorbert.convert.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.vectorbert.convert.OnnxImport;
import org.vectorbert.loader.ModelResolver;

/**
 * The family exports in this module's test resources ({@code onnx/families/NAME/}: model.onnx, tokenizer.json and
 * sometimes config.json, written by tools/torch-reference/export_family_onnx.py from the engine's family fixtures),
 * for the engine's and the command line's tests through this module's test-jar, where the files sit inside a jar.
 */
public final class OnnxFamilies {
    /**
     * The exports: DistilBertModel, DistilBertForSequenceClassification (sinusoidal positions), RobertaModel,
     * XLMRobertaForSequenceClassification, ElectraModel, BertForSequenceClassification (one logit, a cross-encoder's
     * shape), BertForTokenClassification (with optimum's config.json beside it) and RobertaForQuestionAnswering.
     */
    public static final List<String> NAMES = List.of("distilbert", "distilbert-sinusoidal-seqcls", "roberta", "xlm-roberta-seqcls", "electra",
            "bert-seqcls", "bert-tokcls", "roberta-qa");

    private OnnxFamilies() {}

    /** Export {@code name} copied into {@code dir/name/} with its tokenizer.json (and config.json) beside it; returns the .onnx file. */
    public static Path export(String name, Path dir) {
        try {
            Path to = Files.createDirectories(dir.resolve(name));
            for (String file : List.of("model.onnx", "tokenizer.json", "config.json")) {
                try (InputStream in = OnnxFamilies.class.getClassLoader().getResourceAsStream("onnx/families/" + name + "/" + file)) {
                    if (in == null && file.equals("config.json")) {
                        continue;   // only some exports have one
                    }
                    if (in == null) {
                        throw new IllegalArgumentException("no export onnx/families/" + name + "/" + file + " on the test class path");
                    }
                    Files.copy(in, to.resolve(file));
                }
            }
            return to.resolve("model.onnx");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Export {@code name} imported into {@code dir/name-imported/}, a Hugging Face model directory; returns it. */
    public static Path imported(String name, Path dir) {
        Path out = dir.resolve(name + "-imported");
        OnnxImport.convert(export(name, dir), out, ModelResolver.Listener.silent());
        return out;
    }
}
