package org.vectorbert.engine;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * A JVM of its own for {@link PlainKernelsTest}: for each family fixture named in {@code args} (a directory, or
 * {@code DIRECTORY@bf16}), one line with a hash of the bits of every output its model has for the fixture's first case:
 * the last hidden state, every hidden state, the pooler, the MLM logits at every row and each task head's logits.
 */
public final class OutputBitsMain {
    private OutputBitsMain() {}

    public static void main(String[] args) throws IOException {
        for (String arg : args) {
            System.out.println(outputBits(arg));
        }
    }

    /** The line {@link #main} prints for {@code arg}. */
    static String outputBits(String arg) throws IOException {
        boolean bf16 = arg.endsWith("@bf16");
        Path dir = Path.of(bf16 ? arg.substring(0, arg.length() - "@bf16".length()) : arg);
        BertModel model = BertModel.load(dir, bf16 ? Precision.BF16 : Precision.F32);
        Batch batch = FamilyReferenceTest.batch(new ObjectMapper().readTree(dir.resolve("inputs.json").toFile()).get(0),
                model.config().padTokenId());
        int[] everyRow = IntStream.range(0, batch.rows()).toArray();
        Encoder.Request request = Encoder.Request.lastHiddenState().withAllHiddenStates();
        if (model.hasPooler()) {
            request = request.withPooled();
        }
        if (model.hasMlmHead()) {
            request = request.withMlmLogitsAt(everyRow);
        }
        for (HeadKind kind : model.heads()) {
            request = request.withHead(kind, kind == HeadKind.SEQUENCE_CLASSIFIER ? null : everyRow);
        }
        Encoder.Output out = model.forward(batch, request);
        StringBuilder line = new StringBuilder(dir.getFileName() + (bf16 ? "@bf16" : "") + ": hidden "
                + Arrays.hashCode(out.lastHiddenState()) + ", layers " + out.hiddenStates().stream().mapToInt(Arrays::hashCode).sum());
        if (model.hasPooler()) {
            line.append(", pooler ").append(Arrays.hashCode(out.pooled()));
        }
        if (model.hasMlmHead()) {
            line.append(", MLM ").append(Arrays.hashCode(out.mlmLogits()));
        }
        model.heads().stream().sorted().forEach(kind -> line.append(", ").append(kind).append(' ')
                .append(Arrays.hashCode(out.heads().get(kind))));
        return line.toString();
    }
}
