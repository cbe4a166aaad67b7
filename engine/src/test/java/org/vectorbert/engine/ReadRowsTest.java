package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A pass whose reader reads the last hidden state at a few rows ({@link Encoder.Request#lastHiddenStateOnlyAt}) computes
 * the last layer at those rows alone: every head output and every read row holds the whole pass's bits, in the packed
 * and the padded layout, on the vector kernels and the plain ones; the rows not read are NaN. On bert-base's real
 * weights, a pre-LN encoder with a final LayerNorm, and the families' heads.
 */
@Tag("heavy")
class ReadRowsTest {
    @ParameterizedTest
    @ValueSource(strings = {"bert-base-uncased", "tiny-pre-ln", "roberta-seqcls", "distilbert-mlm", "electra-seqcls",
            "bert-seqcls-1label", "xlm-roberta-seqcls-regression"})
    void theReadRowsAndTheHeadsGetTheWholePasssBits(String name) {
        BertModel model = load(name);
        Batch batch = batch(model);
        HeadKind head = model.heads().contains(HeadKind.MASKED_LM) ? HeadKind.MASKED_LM
                : model.heads().contains(HeadKind.SEQUENCE_CLASSIFIER) ? HeadKind.SEQUENCE_CLASSIFIER : null;
        // MLM at two positions of the first sequence and one of the fourth (none in the others); classifiers at each [CLS]
        int[] headRows = head == HeadKind.MASKED_LM ? new int[] {1, 3, 3 * batch.length() + 2} : null;
        int[] lastTokens = new int[batch.size()];
        for (int b = 0; b < batch.size(); b++) {
            lastTokens[b] = b * batch.length() + batch.lengths()[b] - 1;
        }
        Encoder.Request whole = head == null ? Encoder.Request.lastHiddenState()
                : Encoder.Request.lastHiddenState().withHead(head, headRows);
        Encoder.Request some = whole.lastHiddenStateOnlyAt(lastTokens);
        boolean[] read = new boolean[batch.rows()];
        for (int r : lastTokens) {
            read[r] = true;
        }
        if (head != null) {
            for (int r : headRows == null ? batch.firstRows() : headRows) {
                read[r] = true;
            }
        }
        for (boolean plain : new boolean[] {false, true}) {
            Encoder.Output expected = plain ? PlainKernels.runPlain(() -> packedPass(model, batch, whole)) : packedPass(model, batch, whole);
            List<Encoder.Output> outputs = plain
                    ? List.of(PlainKernels.runPlain(() -> packedPass(model, batch, some)), PlainKernels.runPlain(() -> model.forward(batch, some)))
                    : List.of(packedPass(model, batch, some), model.forward(batch, some));
            for (Encoder.Output actual : outputs) {
                String what = name + (plain ? ", plain kernels" : "");
                if (head != null) {
                    assertArrayEquals(expected.heads().get(head), actual.heads().get(head), what + "'s " + head);
                }
                int hidden = model.config().hiddenSize();
                for (int r = 0; r < batch.rows(); r++) {
                    float[] row = Arrays.copyOfRange(actual.lastHiddenState(), r * hidden, (r + 1) * hidden);
                    if (read[r]) {
                        assertArrayEquals(Arrays.copyOfRange(expected.lastHiddenState(), r * hidden, (r + 1) * hidden), row,
                                what + ", row " + r);
                    } else {
                        assertTrue(Float.isNaN(row[0]) && Float.isNaN(row[hidden - 1]), what + ", row " + r + " is not read");
                    }
                }
            }
        }
    }

    @Test
    void aSelectionIsMadeOnlyWhereItSavesWork() {
        BertModel model = load("distilbert-mlm");
        Batch batch = batch(model);
        RowLayout packed = RowLayout.packed(batch);
        RowSelection selection = RowSelection.of(batch, packed, new int[] {3 * batch.length() + 2, 1, 1});
        assertNotNull(selection);
        assertArrayEquals(new int[] {1, packed.starts()[3] + 2}, selection.rows(), "sorted by sequence, once each");
        assertArrayEquals(new int[] {1, 0, 0, 1, 0}, selection.counts());
        assertNull(RowSelection.of(batch, packed, batch.realRows()), "every row read: nothing to save");
        int padding = 2 * batch.length() + batch.lengths()[2];
        assertNull(RowSelection.of(batch, packed, new int[] {0, padding}), "a packed pass computes no padding row");
        assertNotNull(RowSelection.of(batch, RowLayout.padded(batch), new int[] {0, padding}), "a padded one does");
    }

    @Test
    void aRequestThatKeepsPerLayerOutputsOrReadsAPaddingRowRunsTheWholeLastLayer() {
        BertModel model = load("roberta-seqcls");
        Batch batch = batch(model);
        int padding = 2 * batch.length() + batch.lengths()[2];
        Encoder.Request whole = Encoder.Request.lastHiddenState().withAllHiddenStates();
        Encoder.Output expected = model.forward(batch, whole);
        Encoder.Output actual = model.forward(batch, whole.lastHiddenStateOnlyAt(0));
        assertArrayEquals(expected.lastHiddenState(), actual.lastHiddenState(), "per-layer outputs need every row");
        Encoder.Output packed = packedPass(model, batch, Encoder.Request.lastHiddenState().lastHiddenStateOnlyAt(0, padding));
        assertFalse(Float.isNaN(packed.lastHiddenState()[batch.length() * model.config().hiddenSize()]), "no selection made");
        assertThrows(EngineException.class, () -> model.forward(batch, Encoder.Request.lastHiddenState()
                .lastHiddenStateOnlyAt(batch.rows())));
    }

    private static BertModel load(String name) {
        return switch (name) {
            case "bert-base-uncased" -> RealModel.model();
            case "tiny-pre-ln" -> BertModel.load(ReferenceTest.resource(name));
            default -> BertModel.load(FamilyReferenceTest.resource(name));
        };
    }

    /** Five sequences of mixed length (one as long as the batch). */
    private static Batch batch(BertModel model) {
        int longest = Math.min(29, model.config().maxTokens() - 2);
        return PackedPassTest.mixedBatch(model, 6, longest, 3, longest - 5, 9);
    }

    /** The pipelines' pass (packed layout), its output copied out of the pass's buffer. */
    private static Encoder.Output packedPass(BertModel model, Batch batch, Encoder.Request request) {
        return model.forward(batch, request, out -> new Encoder.Output(batch,
                Arrays.copyOf(out.lastHiddenState(), batch.rows() * model.config().hiddenSize()), out.hiddenStates(),
                out.attentions(), out.queries(), out.keys(), Map.copyOf(copies(out.heads()))));
    }

    private static Map<HeadKind, float[]> copies(Map<HeadKind, float[]> heads) {
        Map<HeadKind, float[]> copy = new java.util.EnumMap<>(HeadKind.class);
        heads.forEach((k, v) -> copy.put(k, v.clone()));
        return copy;
    }
}
