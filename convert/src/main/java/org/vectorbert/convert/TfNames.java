package org.vectorbert.convert;

import java.util.Collection;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vectorbert.loader.LoaderException;
import org.vectorbert.loader.WeightNames;

/**
 * TensorFlow variable names to Hugging Face's, for Google's two checkpoint layouts: BERT's ({@code bert/...},
 * {@code cls/...}) and ELECTRA's pre-training checkpoints (google-research/electra), which hold two models. The
 * discriminator is {@code electra/embeddings}, {@code electra/embeddings_project}, {@code electra/encoder} and its
 * head {@code discriminator_predictions/dense} and {@code dense_1}; the generator is {@code generator/embeddings_project},
 * {@code generator/encoder} and {@code generator_predictions} ({@code dense}, {@code LayerNorm}, {@code output_bias}),
 * reading the discriminator's {@code electra/embeddings} unless it has its own {@code generator/embeddings} (ELECTRA's
 * {@code untied_generator_embeddings}). A generator trained with {@code untied_generator=false} (or an MLM-only run)
 * has no encoder of its own: it is the {@code electra/} model with {@code generator_predictions}. Only a layer's
 * weights are mapped ({@code kernel}, {@code bias}, {@code gamma}, {@code beta}, the embedding tables), never an
 * optimizer's slots or step counters.
 */
final class TfNames {
    private TfNames() {}

    private static final Pattern LAYER = Pattern.compile("layer_(\\d+)");
    private static final java.util.Set<String> LEAVES = java.util.Set.of("kernel", "bias", "gamma", "beta");

    /** A TensorFlow variable's Hugging Face name, and whether its matrix must be transposed. */
    record Mapped(String name, boolean transpose) {}

    /** Which model of a checkpoint is imported. */
    enum Model {
        BERT("bert."),
        /** ELECTRA's discriminator, an encoder ({@code ElectraForPreTraining}); what fine-tuning starts from. */
        ELECTRA_DISCRIMINATOR("electra."),
        /** ELECTRA's generator, a masked language model ({@code ElectraForMaskedLM}). */
        ELECTRA_GENERATOR("electra.");

        /** The Hugging Face prefix of the encoder's weights. */
        final String prefix;

        Model(String prefix) {
            this.prefix = prefix;
        }

        /** The transformers class the imported directory is. */
        String architecture() {
            return switch (this) {
                case BERT -> "BertForMaskedLM";
                case ELECTRA_DISCRIMINATOR -> "ElectraForPreTraining";
                case ELECTRA_GENERATOR -> "ElectraForMaskedLM";
            };
        }
    }

    /**
     * How one checkpoint's names map: the model imported, and for an ELECTRA generator the scopes of its embeddings
     * and of its encoder ({@code generator} or the shared {@code electra}).
     */
    record Scheme(Model model, boolean generatorOwnEmbeddings, boolean generatorOwnEncoder) {
        /** BERT's names, as every caller before ELECTRA knew them. */
        static final Scheme BERT = new Scheme(Model.BERT, false, false);

        /**
         * The scheme of a checkpoint with these variable names; {@code generator} asks for an ELECTRA checkpoint's
         * generator instead of its discriminator. Refuses a checkpoint with both BERT's and ELECTRA's names, and a
         * generator asked of a checkpoint that has none.
         */
        static Scheme of(Collection<String> tfNames, boolean generator, String source) {
            boolean bert = false;
            boolean electra = false;
            boolean generatorEncoder = false;
            boolean generatorEmbeddings = false;
            boolean generatorHead = false;
            for (String name : tfNames) {
                String n = withoutModule(name);
                bert |= n.startsWith("bert/");
                electra |= n.startsWith("electra/");
                generatorEncoder |= n.startsWith("generator/encoder/");
                generatorEmbeddings |= n.startsWith("generator/embeddings/");
                generatorHead |= n.startsWith("generator_predictions/");
            }
            if (bert && electra) {
                throw new LoaderException(source + ": the checkpoint has both bert/ and electra/ variables; which model it is cannot be told");
            }
            if (!electra) {
                if (generator) {
                    throw new LoaderException(source + ": --electra-generator asks for an ELECTRA generator, but this is not an ELECTRA "
                            + "checkpoint (no electra/ variables)");
                }
                return BERT;
            }
            if (generator && !generatorHead) {
                throw new LoaderException(source + ": --electra-generator asks for the generator, but the checkpoint has none "
                        + "(no generator_predictions variables): it holds the discriminator alone");
            }
            return new Scheme(generator ? Model.ELECTRA_GENERATOR : Model.ELECTRA_DISCRIMINATOR, generatorEmbeddings, generatorEncoder);
        }

        /**
         * Maps a variable to its Hugging Face name; null for variables the model imported does not use (optimizer
         * slots such as {@code .../kernel/adam_m}, step counters, the other ELECTRA model, heads of other names): the
         * names matched exactly are the model's, and every other one must end in a layer's weight ({@link #path}).
         */
        Mapped map(String tfName) {
            String n = withoutModule(tfName);
            return switch (model) {
                case BERT -> bert(n);
                case ELECTRA_DISCRIMINATOR -> discriminator(n);
                case ELECTRA_GENERATOR -> generator(n);
            };
        }

        private static Mapped bert(String n) {
            return switch (n) {
                case "cls/predictions/output_bias" -> new Mapped(WeightNames.MLM_BIAS, false);
                case "cls/seq_relationship/output_weights" -> new Mapped("cls.seq_relationship.weight", false);
                case "cls/seq_relationship/output_bias" -> new Mapped("cls.seq_relationship.bias", false);
                default -> n.startsWith("bert/") || n.startsWith("cls/") ? path(n) : null;
            };
        }

        private static Mapped discriminator(String n) {
            if (n.startsWith("electra/")) {
                return path(n);
            } else if (n.startsWith("discriminator_predictions/dense_1/")) {
                return path("discriminator_predictions/dense_prediction/" + n.substring("discriminator_predictions/dense_1/".length()));
            } else if (n.startsWith("discriminator_predictions/dense/")) {
                return path(n);
            }
            return null;
        }

        private Mapped generator(String n) {
            String encoder = generatorOwnEncoder ? "generator/" : "electra/";
            if (n.startsWith(generatorOwnEmbeddings ? "generator/embeddings/" : "electra/embeddings/")
                    || n.startsWith(encoder + "embeddings_project/") || n.startsWith(encoder + "encoder/")) {
                return path("electra/" + n.substring(n.indexOf('/') + 1));
            } else if (n.equals("generator_predictions/output_bias")) {
                return new Mapped("generator_lm_head.bias", false);
            } else if (n.startsWith("generator_predictions/dense/") || n.startsWith("generator_predictions/LayerNorm/")) {
                return path(n);
            }
            return null;
        }
    }

    private static String withoutModule(String tfName) {
        return tfName.startsWith("module/") ? tfName.substring("module/".length()) : tfName;
    }

    /**
     * A layer's weight as Hugging Face spells it: layer_N as layer.N, Keras's gamma/beta/kernel as weight/bias/weight;
     * null for anything else under the model's scope (an optimizer's slots, a temperature, a step counter).
     */
    private static Mapped path(String slashPath) {
        String leaf = slashPath.substring(slashPath.lastIndexOf('/') + 1);
        if (!LEAVES.contains(leaf) && !leaf.endsWith("_embeddings")) {
            return null;
        }
        Matcher m = LAYER.matcher(slashPath);
        String n = m.replaceAll("layer.$1").replace('/', '.');
        boolean transpose = false;
        if (n.endsWith(".gamma")) {
            n = n.substring(0, n.length() - "gamma".length()) + "weight";
        } else if (n.endsWith(".beta")) {
            n = n.substring(0, n.length() - "beta".length()) + "bias";
        } else if (n.endsWith(".kernel")) {
            n = n.substring(0, n.length() - "kernel".length()) + "weight";
            transpose = true;
        } else if (n.endsWith("_embeddings")) {
            n = n + ".weight";
        }
        return new Mapped(n, transpose);
    }
}
