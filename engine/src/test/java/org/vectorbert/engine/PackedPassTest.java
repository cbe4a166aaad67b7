package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The pipelines' passes do no work for padding ({@link RowLayout#packed}): every real token's last hidden state and head
 * outputs are the padded pass's bit for bit, and the padded rows are zeros. On bert-base's real weights and on the
 * families whose embeddings differ (RoBERTa's positions skip padding, DistilBERT has no token types, ELECTRA projects).
 */
class PackedPassTest {
    @Tag("heavy")
    @ParameterizedTest
    @ValueSource(strings = {"bert-base-uncased", "roberta-mlm", "distilbert-mlm", "electra-discriminator", "bert-tokcls"})
    void aPackedPassGivesEveryRealTokenThePaddedPasssBits(String name) {
        BertModel model = name.equals("bert-base-uncased") ? RealModel.model() : BertModel.load(FamilyReferenceTest.resource(name));
        int longest = Math.min(61, model.config().maxTokens());
        Batch batch = mixedBatch(model, 5, longest - 24, 3, longest, longest, 12);
        int hidden = model.config().hiddenSize();
        HeadKind head = model.heads().contains(HeadKind.MASKED_LM) ? HeadKind.MASKED_LM
                : model.heads().stream().findFirst().orElse(null);    // electra-discriminator's head is not one vectorbert runs
        int[] rows = batch.realRows();
        Encoder.Request request = head == null ? Encoder.Request.lastHiddenState()
                : Encoder.Request.lastHiddenState().withHead(head, head == HeadKind.POOLER ? null : rows);
        Encoder.Output padded = model.forward(batch, request);
        Encoder.Output packed = model.forward(batch, request, out -> new Encoder.Output(batch,
                Arrays.copyOf(out.lastHiddenState(), batch.rows() * hidden), out.hiddenStates(), out.attentions(),
                out.queries(), out.keys(), out.heads()));
        for (int b = 0; b < batch.size(); b++) {
            int from = b * batch.length() * hidden;
            int realEnd = from + batch.lengths()[b] * hidden;
            assertArrayEquals(Arrays.copyOfRange(padded.lastHiddenState(), from, realEnd),
                    Arrays.copyOfRange(packed.lastHiddenState(), from, realEnd), name + ", sequence " + b);
            float[] padding = Arrays.copyOfRange(packed.lastHiddenState(), realEnd, from + batch.length() * hidden);
            assertArrayEquals(new float[padding.length], padding, name + ", sequence " + b + "'s padding rows");
        }
        if (head != null) {
            assertArrayEquals(padded.heads().get(head), packed.heads().get(head), name + "'s " + head);
        }
        assertTrue(batch.rows() > rows.length, "the batch has padding");
    }

    /**
     * Sequences of these lengths, padded to the longest: ids that are never the pad id, and (where the model has them) token
     * type 1 in each sequence's second half.
     */
    static Batch mixedBatch(BertModel model, int... lengths) {
        int pad = model.config().padTokenId();
        int vocab = model.config().vocabSize();
        List<int[]> ids = new ArrayList<>();
        List<int[]> types = new ArrayList<>();
        for (int t = 0; t < lengths.length; t++) {
            int[] seq = new int[lengths[t]];
            int[] type = new int[lengths[t]];
            for (int i = 0; i < seq.length; i++) {
                int id = (7 + 31 * t + 13 * i) % vocab;
                seq[i] = id == pad ? id + 1 : id;
                type[i] = model.config().hasTokenTypes() && i > seq.length / 2 ? 1 % model.config().typeVocabSize() : 0;
            }
            ids.add(seq);
            types.add(type);
        }
        return Batch.of(ids, types, pad);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aBatchWithoutPaddingAndAPassAskingPerLayerOutputsKeepThePaddedLayout(boolean padding) {
        BertModel model = BertModel.load(FamilyReferenceTest.resource("roberta-mlm"));
        int pad = model.config().padTokenId();
        Batch batch = Batch.of(List.of(new int[] {0, 5, 6, 7, 2}, padding ? new int[] {0, 9, 2} : new int[] {0, 9, 8, 10, 2}),
                List.of(new int[5], new int[padding ? 3 : 5]), pad);
        Encoder.Request request = Encoder.Request.lastHiddenState().withAllHiddenStates().withAttentions();
        Encoder.Output padded = model.forward(batch, request);
        Encoder.Output inner = model.forward(batch, request, out -> new Encoder.Output(batch,
                Arrays.copyOf(out.lastHiddenState(), batch.rows() * model.config().hiddenSize()), out.hiddenStates(),
                out.attentions(), out.queries(), out.keys(), out.heads()));
        assertArrayEquals(padded.lastHiddenState(), inner.lastHiddenState(), "padded positions too");
        assertEquals(padded.attentions().size(), inner.attentions().size());
        for (int l = 0; l < padded.attentions().size(); l++) {
            assertArrayEquals(padded.attentions().get(l), inner.attentions().get(l));
        }
    }
}
