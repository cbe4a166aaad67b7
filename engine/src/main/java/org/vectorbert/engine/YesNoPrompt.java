package org.vectorbert.engine;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.vectorbert.tokenizer.EncodeOptions;
import org.vectorbert.tokenizer.Encoding;
import org.vectorbert.tokenizer.Padding;
import org.vectorbert.tokenizer.Tokenizer;
import org.vectorbert.tokenizer.Truncation;

/**
 * Qwen3-Reranker's way of scoring a pair with a causal LM, as its model card does: the ids of a fixed system prefix, then
 * {@code <Instruct>: {instruction}\n<Query>: {query}\n<Document>: {document}} (cut at its end to fit), then a fixed
 * assistant suffix; the LM's logits for "yes" and "no" at the last position. The one logit a reranker scores with is
 * yes − no, whose sigmoid is the card's softmax over the two.
 *
 * @param prefix      the prefix's ids, encoded without special tokens
 * @param suffix      the suffix's ids, likewise
 * @param instruction the task, the card's default
 * @param yes         the id of "yes"
 * @param no          the id of "no"
 */
record YesNoPrompt(int[] prefix, int[] suffix, String instruction, int yes, int no) {
    static final String PREFIX = "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the"
            + " Instruct provided. Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n";
    static final String SUFFIX = "<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    static final String INSTRUCTION = "Given a web search query, retrieve relevant passages that answer the query";

    /**
     * The prompt for a causal LM with the tokens the card's template needs and no sentence-transformers modules (a Qwen3
     * embedder also carries the tied head and the tokens, but pools its last token instead); else empty.
     */
    static Optional<YesNoPrompt> of(Encoder model, Tokenizer tokenizer) {
        boolean fits = model.heads().contains(HeadKind.CAUSAL_LM) && !Files.exists(model.directory().resolve("modules.json"))
                && tokenizer.tokenToId("<|im_start|>") >= 0 && tokenizer.tokenToId("<|im_end|>") >= 0;
        int yes = tokenizer.tokenToId("yes");
        int no = tokenizer.tokenToId("no");
        if (!fits || yes < 0 || no < 0) {
            return Optional.empty();
        }
        EncodeOptions bare = new EncodeOptions(false, Truncation.LONGEST_FIRST, Integer.MAX_VALUE, Padding.NONE);
        return Optional.of(new YesNoPrompt(tokenizer.encode(PREFIX, bare).ids(), tokenizer.encode(SUFFIX, bare).ids(), INSTRUCTION,
                yes, no));
    }

    /**
     * The ids of {@code query} and {@code document} in the template, the body cut to fit {@code maxTokens} when
     * {@code truncate} (its overflow kept, so the encoding says it was cut), else whole.
     */
    Encoding encode(Tokenizer tokenizer, String query, String document, int maxTokens, boolean truncate) {
        String body = "<Instruct>: " + instruction + "\n<Query>: " + query + "\n<Document>: " + document;
        int room = maxTokens - prefix.length - suffix.length;
        if (truncate && room <= 0) {
            throw new EngineException("the reranker's prompt takes " + (prefix.length + suffix.length) + " of its " + maxTokens + " tokens");
        }
        EncodeOptions options = EncodeOptions.defaults().withPadding(Padding.NONE);
        Encoding inner = tokenizer.encode(body, truncate ? options.withTruncation(Truncation.LONGEST_FIRST).withMaxLength(room) : options);
        int n = prefix.length + inner.length() + suffix.length;
        int[] ids = IntStream.concat(IntStream.concat(IntStream.of(prefix), IntStream.of(inner.ids())), IntStream.of(suffix)).toArray();
        List<String> tokens = new ArrayList<>(n);
        for (int id : ids) {
            tokens.add(tokenizer.idToToken(id));
        }
        int[] ones = new int[n];
        Arrays.fill(ones, 1);
        return new Encoding(tokens, ids, new int[n], ones, new int[n], new int[n], new int[n], new int[n], inner.overflowing());
    }

    /** The one logit of each row of {@code logits} ([rows, vocab]): yes − no. */
    float[] scores(float[] logits, int rows, int vocab) {
        float[] out = new float[rows];
        for (int r = 0; r < rows; r++) {
            out[r] = logits[r * vocab + yes] - logits[r * vocab + no];
        }
        return out;
    }
}
