package org.vectorbert.explorer;

import java.util.Arrays;
import java.util.List;
import org.vectorbert.engine.Embeddings;
import org.vectorbert.engine.EngineException;
import org.vectorbert.tokenizer.Tokenizer;

/**
 * One forward pass over a text (or a pair) with everything the attention views draw.
 *
 * @param model      what to call the model in a page's title
 * @param tokens     the tokens as the vocabulary spells them, [CLS] and [SEP] included
 * @param sentenceB  where the pair's second text starts (after the template's tokens between the two), or -1 for a single text
 * @param attentions [layer][head][query][key] probabilities
 * @param queries    [layer][head][token][head size]: queries after the projection, bias included
 * @param keys       [layer][head][token][head size]
 * @param truncated  whether the text was cut to the model's length
 */
public record AttentionRun(String model, List<String> tokens, int sentenceB, float[][][][] attentions, float[][][][] queries,
                           float[][][][] keys, boolean truncated) {
    /**
     * Runs {@code pipeline}'s model over a text or a pair and keeps what the views draw.
     *
     * @param pipeline the model and its tokenizer
     * @param model    what to call the model in a page's title
     * @param text     the text, not blank
     * @param pair     the pair's second text, or null for a single text
     * @return the pass
     */
    public static AttentionRun capture(Embeddings pipeline, String model, String text, String pair) {
        if (text.isBlank() || (pair != null && pair.isBlank())) {
            throw new EngineException((text.isBlank() ? "the text" : "the pair's second text") + " is empty: there is no attention to show");
        }
        Embeddings.Result r = pipeline.run(List.of(text), pair == null ? null : List.of(pair),
                Embeddings.Include.ATTENTIONS, Embeddings.Include.QUERIES_AND_KEYS).getFirst();
        Tokenizer tokenizer = pipeline.tokenizer();
        List<String> tokens = Arrays.stream(r.ids()).mapToObj(tokenizer::idToToken).toList();
        return new AttentionRun(model, tokens, r.secondStart(), r.attentions(), r.queries(), r.keys(), r.truncated());
    }

    /** {@return the number of layers} */
    public int layers() {
        return attentions.length;
    }

    /** {@return the number of heads per layer} */
    public int heads() {
        return attentions[0].length;
    }

    /** {@return the width of a head} */
    public int headSize() {
        return queries[0][0][0].length;
    }

    /** {@return the number of tokens} */
    public int length() {
        return tokens.size();
    }
}
