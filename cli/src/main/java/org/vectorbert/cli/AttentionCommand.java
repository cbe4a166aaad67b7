package org.vectorbert.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.vectorbert.engine.EmbeddingOptions;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.explorer.AttentionPage;
import org.vectorbert.explorer.AttentionPng;
import org.vectorbert.explorer.AttentionRun;
import org.vectorbert.explorer.Selection;
import org.vectorbert.explorer.View;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "attention",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = {"Explore a text's attention: bertviz's head, model and neuron views in one HTML page that works offline, "
                + "and the head view as a PNG.",
            "The page holds its own script and numbers (attention at 8-bit precision, deflated), so it opens from a file with "
                + "the network off; its Save PNG button saves the view on screen."},
        footer = {"", "Examples:",
            "  vectorbert attention \"time flies like an arrow\" --pair \"fruit flies like a banana\" --output flies.html",
            "  vectorbert attention \"the cat sat on the mat\" --layers 0,5-7 --heads 8 --view neuron --output cat.html",
            "  vectorbert attention \"time flies like an arrow\" --layers 0 --heads 8 --png flies.png"},
        sortOptions = false)
final class AttentionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--pair", paramLabel = "TEXT_B", description = "A second text: sentence B, drawn apart from A.")
    String pair;

    @Option(names = "--layers", paramLabel = "LIST", description = "Layers to keep, such as 0,5-7 (default: all).")
    String layers;

    @Option(names = "--heads", paramLabel = "LIST", description = "Heads to keep, such as 8 or 0-3 (default: all).")
    String heads;

    @Option(names = "--view", paramLabel = "VIEW", defaultValue = "all",
            description = "The view the page opens on: head, model, neuron or all (default: ${DEFAULT-VALUE}, which opens on head)."
                    + " A page for head or model alone leaves out the neuron view's queries and keys, and is smaller.")
    String view;

    @Option(names = "--output", paramLabel = "FILE.html", description = "Write the page here.")
    Path output;

    @Option(names = "--png", paramLabel = "FILE.png",
            description = "Draw the head view of the first chosen layer, with the chosen heads, as a PNG (about 300 dpi at page size).")
    Path png;

    @Option(names = "--truncate", negatable = true,
            description = "Cut a text longer than the model takes (--no-truncate: refuse it). Default: cut for sentence-transformers"
                    + " models, refuse for others.")
    Boolean truncate;

    @Parameters(paramLabel = "TEXT", description = "The text (sentence A).")
    String text;

    @Override
    public Integer call() {
        if (output == null && png == null) {
            throw new UserError("say where to write: --output FILE.html, --png FILE.png, or both");
        }
        List<String> inputs = new ArrayList<>(List.of(text));
        if (pair != null) {
            inputs.add(pair);
        }
        Arguments.requireValidUtf8(inputs);
        if (text.isBlank() || (pair != null && pair.isBlank())) {
            throw new UserError((text.isBlank() ? "the text" : "--pair") + " is empty: there is no attention to show");
        }
        View opening;
        try {
            opening = View.parse(view);
        } catch (RuntimeException e) {
            throw new UserError("--view: " + e.getMessage());
        }
        if (output != null) {
            OutputTarget.check("--output", output, "attention.html", null);
        }
        if (png != null) {
            OutputTarget.check("--png", png, "attention.png", null);
        }
        EmbeddingOptions options = new EmbeddingOptions(modelOptions.precision(), null, null, truncate, null, null,
                EmbeddingOptions.BATCH_TOKENS);
        Embeddings pipeline = modelOptions.load(spec.commandLine().getErr(), dir -> Embeddings.load(dir, options));
        // Checked against the model before its forward pass: "layer 12 is out of range: the model has 12 layers, 0 to 11".
        Selection selection = Selection.parse(layers, heads, pipeline.model().config().numHiddenLayers(),
                pipeline.model().config().numAttentionHeads());
        String name = modelOptions.model != null ? modelOptions.model : "bert-base-uncased";
        AttentionRun run = AttentionRun.capture(pipeline, name, text, pair);
        if (output != null) {
            AttentionPage.write(run, selection, opening, output);
            spec.commandLine().getErr().println("wrote " + output + " (" + run.length() + " tokens; layers " + selection.layers()
                    + "; heads " + selection.heads() + ")");
        }
        if (png != null) {
            AttentionPng.write(run, selection.layers().getFirst(), selection.heads(), png);
            spec.commandLine().getErr().println("wrote " + png + " (layer " + selection.layers().getFirst() + ")");
        }
        return 0;
    }
}
