package org.vectorbert.loader;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How a model directory embeds texts when no option says otherwise, and which file says so: a langchain4j jar's
 * model class, sentence-transformers' files, or vectorbert's defaults for a plain checkpoint. What {@code inspect}
 * shows; the engine's Embeddings applies the same rules.
 *
 * @param pooling         pooling modes, in concatenation order
 * @param poolingFrom     where they were read
 * @param normalize       whether vectors are scaled to unit length
 * @param normalizeFrom   where that was read
 * @param maxTokens       texts longer than this (special tokens included) are cut, or refused when {@code cut} is false
 * @param cut             whether longer texts are cut by default
 * @param maxTokensFrom   where the length was read
 * @param prompts         prompt names to their texts
 * @param defaultPrompt   the prompt used when none is asked for, or null
 * @param promptsFrom     where the prompts were read
 * @param dense           the Dense modules after the pooling, each as "2_Dense 768 -> 3072"
 */
public record DeclaredEmbedding(List<String> pooling, String poolingFrom, boolean normalize, String normalizeFrom, int maxTokens,
                                boolean cut, String maxTokensFrom, Map<String, String> prompts, String defaultPrompt, String promptsFrom,
                                List<String> dense) {
    /** Copies the lists and maps. */
    public DeclaredEmbedding {
        pooling = List.copyOf(pooling);
        dense = List.copyOf(dense);
        prompts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(prompts));
    }

    /**
     * What {@code directory} declares; {@code modelMax} is the longest input the model and its tokenizer take, and
     * {@code modelMaxFrom} says where that came from.
     *
     * @param directory    the model directory
     * @param modelMax     the longest input the model and its tokenizer take
     * @param modelMaxFrom where that came from, for {@code inspect}
     * @param causal       whether the model is a decoder, whose default pooling is its last token, not its first
     * @return what the directory declares
     */
    public static DeclaredEmbedding of(Path directory, int modelMax, String modelMaxFrom, boolean causal) {
        String fallback = causal ? "lasttoken" : "cls";
        Optional<Langchain4jSettings> langchain4j = Langchain4jSettings.read(directory);
        Optional<SentenceTransformersConfig> st = SentenceTransformersConfig.read(directory);
        if (st.isEmpty()) {
            return new DeclaredEmbedding(List.of(fallback), "no sentence-transformers files: vectorbert's default"
                    + (causal ? " for a decoder" : ""), false,
                    "no sentence-transformers Normalize module", modelMax, false, modelMaxFrom + "; longer texts are refused unless"
                    + " truncation is asked for", Map.of(), null, "no config_sentence_transformers.json", List.of());
        }
        SentenceTransformersConfig c = st.get();
        int declared = c.maxSeqLength();
        int max = declared > 0 ? Math.min(declared, modelMax) : modelMax;
        List<String> dense = c.dense().stream().map(d -> d.weights().getParent().getFileName() + " " + d.in() + " -> " + d.out()
                + (d.tanh() ? " (tanh)" : "")).toList();
        String prompts = c.prompts().isEmpty() ? "no prompts in config_sentence_transformers.json" : "config_sentence_transformers.json";
        if (langchain4j.isPresent()) {
            Langchain4jSettings l = langchain4j.get();
            return new DeclaredEmbedding(c.poolingModes(), "langchain4j's " + l.modelClass() + ": " + l.poolingFrom(), c.normalize(),
                    l.normalizeFrom(), max, true, l.maxTokensFrom(), c.prompts(), c.defaultPromptName(),
                    "langchain4j's class puts no prompt before texts", dense);
        }
        return new DeclaredEmbedding(c.poolingModes().isEmpty() ? List.of(fallback) : c.poolingModes(),
                c.poolingModes().isEmpty() ? "modules.json has no Pooling module: vectorbert's default" : "the Pooling module's config.json",
                c.normalize(), c.normalize() ? "modules.json has a Normalize module" : "modules.json has no Normalize module", max, true,
                declared > 0 ? "sentence_bert_config.json's max_seq_length" + (declared > modelMax ? " " + declared + ", beyond " + modelMaxFrom : "")
                        : modelMaxFrom + " (sentence_bert_config.json sets no max_seq_length)",
                c.prompts(), c.defaultPromptName(), prompts, dense);
    }
}
