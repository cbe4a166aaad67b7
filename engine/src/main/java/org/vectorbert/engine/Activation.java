package org.vectorbert.engine;

/** The feed-forward activation, by config.json's hidden_act. */
enum Activation {
    /** gelu: exact, with erf. */
    GELU,
    /** gelu_new, gelu_pytorch_tanh: the tanh approximation. */
    GELU_TANH,
    RELU,
    /** silu, swish: x·sigmoid(x). */
    SILU;

    /** The activation Hugging Face calls {@code name}. */
    static Activation of(String name) {
        return switch (name) {
            case "gelu" -> GELU;
            case "gelu_new", "gelu_pytorch_tanh" -> GELU_TANH;
            case "relu" -> RELU;
            case "silu", "swish" -> SILU;
            default -> throw new EngineException("unsupported activation " + name);
        };
    }
}
