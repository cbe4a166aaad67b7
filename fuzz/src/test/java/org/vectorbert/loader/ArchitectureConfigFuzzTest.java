package org.vectorbert.loader;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Tag;
import org.vectorbert.common.VectorbertException;

/**
 * The architectures' config.json readers (ModernBERT, NomicBERT, GTE, JinaBERT, DeBERTa-v2, Qwen3, Gemma 3) on objects built from their own keys
 * with values of any JSON type: read, or refused with the loader's error. Built as JSON trees, not bytes, so the fuzzer
 * reaches the validation instead of spending its time on JSON's syntax.
 */
@Tag("heavy")
class ArchitectureConfigFuzzTest {
    private static final List<BiFunction<JsonNode, String, ModelConfig>> READERS = List.of(ModernBertConfig::parse,
            NomicBertConfig::parse, GteConfig::parse, JinaBertConfig::parse, DebertaV2Config::parse, Qwen3Config::parse, Gemma3Config::parse);
    private static final String[] KEYS = {"model_type", "architectures", "vocab_size", "hidden_size", "num_hidden_layers",
        "num_attention_heads", "intermediate_size", "max_position_embeddings", "layer_norm_eps", "norm_eps", "hidden_act",
        "hidden_activation", "type_vocab_size", "n_embd", "n_head", "n_layer", "n_inner", "n_positions", "layer_norm_epsilon",
        "rotary_emb_fraction", "rotary_emb_base", "rotary_emb_interleaved", "rotary_emb_scale_base", "rotary_scaling_factor",
        "max_trained_positions", "qkv_proj_bias", "mlp_fc1_bias", "mlp_fc2_bias", "prenorm", "causal", "use_rms_norm",
        "activation_function", "pack_qkv", "logn_attention_scale", "position_embedding_type", "layer_norm_type", "rope_scaling",
        "rope_theta", "factor", "type", "mixed_b", "feed_forward_type", "global_rope_theta", "local_rope_theta",
        "global_attn_every_n_layers", "layer_types", "rope_parameters", "full_attention", "sliding_attention", "rope_type",
        "local_attention", "classifier_pooling", "norm_bias", "attention_bias", "mlp_bias", "id2label", "embedding_size",
        "position_biased_input", "relative_attention", "position_buckets", "max_relative_positions", "pos_att_type", "share_att_key",
        "norm_rel_ebd", "conv_kernel_size", "conv_groups", "conv_act", "pooler_hidden_act", "pooler_hidden_size",
        "attention_head_size", "num_key_value_heads", "head_dim", "rms_norm_eps", "tie_word_embeddings", "use_sliding_window",
        "query_pre_attn_scalar", "rope_local_base_freq", "sliding_window", "sliding_window_pattern", "_sliding_window_pattern",
        "use_bidirectional_attention", "attn_logit_softcapping", "final_logit_softcapping"};
    private static final String[] WORDS = {"ntk", "rope", "alibi", "geglu", "reglu", "swiglu", "gelu", "silu", "layer_norm",
        "rms_norm", "absolute", "full_attention", "sliding_attention", "default", "cls", "mean", "new", "nomic_bert", "bert",
        "deberta-v2", "p2c|c2p", "c2p", "p2c", "p2p", "layer_norm|none", "tanh", "qwen3", "gemma3_text", "linear",
        "gelu_pytorch_tanh", "Qwen3ForCausalLM"};

    @FuzzTest
    void parse(FuzzedDataProvider data) {
        JsonNode config = object(data, 0);
        for (BiFunction<JsonNode, String, ModelConfig> reader : READERS) {
            try {
                ModelConfig c = reader.apply(config, "config.json");
                c.headSize();
                c.maxTokens();
                if (c instanceof NomicBertConfig n) {
                    n.rotaryBase(data.consumeInt(0, 1 << 20));
                } else if (c instanceof GteConfig g) {
                    g.ntkScaled(data.consumeInt(0, 1 << 20));
                } else if (c instanceof DebertaV2Config d) {
                    d.relativeSpan();
                    d.scaleFactor();
                } else if (c instanceof Qwen3Config q) {
                    q.keyValueWidth();
                    q.isCausalLm();
                } else if (c instanceof Gemma3Config g) {
                    g.halfWindow();
                    g.sliding().size();
                }
            } catch (VectorbertException expected) {
                // refused clearly
            }
        }
    }

    private static ObjectNode object(FuzzedDataProvider data, int depth) {
        ObjectNode node = JsonNodeFactory.instance.objectNode();
        int keys = data.consumeInt(0, 24);
        for (int i = 0; i < keys && data.remainingBytes() > 0; i++) {
            String key = data.consumeBoolean() ? data.pickValue(KEYS) : data.consumeString(12);
            node.set(key, value(data, depth));
        }
        return node;
    }

    private static JsonNode value(FuzzedDataProvider data, int depth) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        return switch (data.consumeInt(0, depth < 2 ? 8 : 6)) {
            case 0 -> f.numberNode(data.consumeInt());
            case 1 -> f.numberNode(data.consumeInt(-4, 70000));
            case 2 -> f.numberNode(data.consumeDouble());
            case 3 -> f.textNode(data.pickValue(WORDS));
            case 4 -> f.textNode(data.consumeString(16));
            case 5 -> f.booleanNode(data.consumeBoolean());
            case 6 -> f.nullNode();
            case 7 -> object(data, depth + 1);
            default -> {
                ArrayNode array = f.arrayNode();
                int n = data.consumeInt(0, 6);
                for (int i = 0; i < n; i++) {
                    array.add(value(data, depth + 1));
                }
                yield array;
            }
        };
    }
}
