package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The feed-forward block runs {@link Workspace#FEED_FORWARD_ROWS} rows at a time: a batch across that line gives each text's own bits. */
@Tag("heavy")
class FeedForwardRowsTest {
    @Test
    void aBatchOfMoreRowsThanOneSliceGivesEachTextItsOwnBits() {
        BertModel model = RealModel.model();
        int length = 120;
        List<int[]> texts = List.of(ids(length, 1000), ids(length, 2000), ids(length, 3000));
        int[] types = new int[length];
        Batch batch = Batch.of(texts, List.of(types, types, types), 0);
        assertTrue(batch.rows() > Workspace.FEED_FORWARD_ROWS, "the batch crosses a slice");
        float[] together = model.forward(batch, Encoder.Request.lastHiddenState()).lastHiddenState();
        int hidden = model.config().hiddenSize();
        for (int t = 0; t < texts.size(); t++) {
            float[] alone = model.forward(Batch.of(texts.get(t), types), Encoder.Request.lastHiddenState()).lastHiddenState();
            assertArrayEquals(alone, Arrays.copyOfRange(together, t * length * hidden, (t + 1) * length * hidden), "text " + t);
        }
    }

    private static int[] ids(int length, int first) {
        int[] ids = new int[length];
        ids[0] = 101;
        for (int i = 1; i < length - 1; i++) {
            ids[i] = first + 7 * i;
        }
        ids[length - 1] = 102;
        return ids;
    }
}
