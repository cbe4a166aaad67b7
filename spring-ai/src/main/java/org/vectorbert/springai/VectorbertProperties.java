package org.vectorbert.springai;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code vectorbert.*} properties the auto-configured {@link VectorbertEmbeddingModel} is made from.
 * Everything but {@code model} may be left out: the model's own sentence-transformers settings then decide.
 *
 * @param model       the model: a directory in Hugging Face layout, a checkpoint or langchain4j model jar (converted
 *                    once, into the vectorbert home), or a Hugging Face id such as sentence-transformers/all-MiniLM-L6-v2
 * @param pooling     how token vectors become one vector: cls, mean, max, mean_sqrt_len, lasttoken or pooler (several
 *                    are concatenated in order); unset: what the model declares
 * @param normalize   whether vectors are scaled to unit length; unset: what the model declares
 * @param truncate    whether texts longer than the model takes are cut to fit (else refused); unset: what the model declares
 * @param precision   how the weight matrices are held: f32, or bf16 (half the memory)
 * @param prompt      text put before every input (e5's "query: "); unset: the model's default prompt, if any
 * @param promptName  a prompt the model's config_sentence_transformers.json names, used when prompt is unset
 * @param dimensions  how many dimensions vectors have: fewer than the model's keeps the first ones, renormalised
 *                    (Matryoshka models); unset: the model's own
 * @param batchTokens how many positions (padding included) one forward pass may hold; unset: vectorbert's default
 */
@ConfigurationProperties(VectorbertProperties.PREFIX)
public record VectorbertProperties(@Nullable String model, @Nullable List<String> pooling, @Nullable Boolean normalize,
                                   @Nullable Boolean truncate, @Nullable String precision, @Nullable String prompt,
                                   @Nullable String promptName, @Nullable Integer dimensions, @Nullable Integer batchTokens) {
    public static final String PREFIX = "vectorbert";
}
