package org.vectorbert.tokenizer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.vectorbert.tokenizer.pipeline.Normalizer;
import org.vectorbert.tokenizer.pipeline.PipelineTokenizer;

/**
 * BertTokenizer's fused pass over the raw text (BertFastPath) against the same stages run one by one
 * (BertNormalizer wrapped in a Sequence, which the fast path does not take), for every normaliser setting,
 * on random texts built from the characters the rules treat apart: encodings (ids, spans, masks, overflow
 * windows, under truncation from either side) and word ids must be equal.
 */
class FusedPathTest {
    /** Characters each rule of BertNormalizer and BertPreTokenizer treats apart, a few of each. */
    private static final String[] PIECES = {
        "a", "b", "Z", "the", "un", "##", "aff", "able", "7", " ", "  ", "\t", "\n", "\r", ".", ",", "$", "^", "`", "'",
        "\u0000", "\u0007", "\u007f", "\u0085", "\u00a0", "\u2007", "\u2028", "\u3000", "\u200b", "\u200d", "\u00ad",
        "\ufffd", "\ue000", "\u0378", "é", "É", "e\u0301", "\u0301", "a\u0315\u0300", "\u0334", "ñ", "Ø", "ß", "ﬁ",
        "İ", "Σ", "ΌΣΟΣ", "σ", "東京", "\uf900", "\u3400", "カタカナ", "한국어", "\u1100\u1161", "नहीं", "कि", "ि",
        "\u0f71\u0f72", "\u1b44\u1b44", "a\u302e\u302f", "\ud834\udd65\ud834\udd6d", "\ud834\udd6d\ud834\udd65",
        "\ud834\udd5e", "\ud83d\ude00", "\ud83d\udc68\u200d\ud83d\udc69", "\ud840\udc00", "\ud800", "\udc00",
        "[MASK]", "[UNK]", "[SEP]", "[mask]", "«", "—", "¿", "\u2019", "x".repeat(120), "ab".repeat(40),
    };

    private static final Vocabulary VOCAB = vocabulary();

    /**
     * bert-base-uncased's tokens, and every character the pieces can normalise to as a token and as a
     * continuation, so that a character out of place changes the ids instead of hiding in an [UNK].
     */
    private static Vocabulary vocabulary() {
        List<String> tokens = new ArrayList<>(Vocabulary.load(RealVocabulary.path()).tokens());
        java.util.Set<String> present = new java.util.HashSet<>(tokens);
        for (String piece : PIECES) {
            for (String form : List.of(piece, java.text.Normalizer.normalize(piece, java.text.Normalizer.Form.NFD))) {
                for (String variant : List.of(form, form.toLowerCase(java.util.Locale.ROOT))) {
                    variant.codePoints().forEach(cp -> {
                        for (String t : List.of(Character.toString(cp), "##" + Character.toString(cp))) {
                            if (present.add(t)) {
                                tokens.add(t);
                            }
                        }
                    });
                }
            }
        }
        return Vocabulary.of(tokens);
    }

    static List<TokenizerConfig> configs() {
        List<TokenizerConfig> configs = new ArrayList<>();
        for (boolean clean : new boolean[] {true, false}) {
            for (boolean chinese : new boolean[] {true, false}) {
                for (boolean lower : new boolean[] {true, false}) {
                    for (boolean strip : new boolean[] {true, false}) {
                        configs.add(TokenizerConfig.uncased().withCleanText(clean).withTokenizeChineseChars(chinese)
                                .withLowercase(lower).withStripAccents(strip));
                    }
                }
            }
        }
        return configs;
    }

    @ParameterizedTest
    @MethodSource("configs")
    void equalsTheStagesOneByOne(TokenizerConfig config) {
        BertTokenizer fused = new BertTokenizer(VOCAB, config);
        PipelineTokenizer.Stages s = ((PipelineTokenizer) fused.pipeline()).stages();
        PipelineTokenizer staged = new PipelineTokenizer(new PipelineTokenizer.Stages(
                new Normalizer.Sequence(List.of(s.normalizer())), s.preTokenizer(), s.model(), s.postProcessor(),
                s.decoder(), s.addedTokens(), s.roles(), s.defaultOptions(), s.pad(), s.modelMaxLength()));
        Random random = new Random(config.hashCode());
        List<EncodeOptions> options = List.of(EncodeOptions.defaults(),
                EncodeOptions.truncatedTo(9).withStride(2),
                EncodeOptions.truncatedTo(7).withTruncationSide(EncodeOptions.Side.LEFT).withStride(1));
        List<String> failures = new ArrayList<>();
        for (int n = 0; n < 400; n++) {
            String text = text(random);
            String pair = n % 5 == 0 ? text(random) : null;
            String label = "text " + n + " " + escaped(text) + (pair == null ? "" : " | " + escaped(pair));
            for (EncodeOptions o : options) {
                Encoding want;
                try {
                    want = staged.encode(text, pair, o);
                } catch (TokenizerException e) {
                    assertEquals(e.getMessage(), assertThrows(TokenizerException.class, () -> fused.encode(text, pair, o))
                            .getMessage(), label);
                    continue;
                }
                String w = describe(want);
                String g = describe(fused.encode(text, pair, o));
                if (!w.equals(g)) {
                    String[] wl = w.split("\n");
                    String[] gl = g.split("\n");
                    int k = 0;
                    while (k < Math.min(wl.length, gl.length) && wl[k].equals(gl[k])) {
                        k++;
                    }
                    failures.add(label + " @" + k + ": stages " + (k < wl.length ? wl[k] : "-") + " fused " + (k < gl.length ? gl[k] : "-"));
                }
            }
            assertArrayEquals(staged.wordIds(text), fused.wordIds(text), label);
        }
        assertEquals(List.of(), failures.subList(0, Math.min(6, failures.size())), failures.size() + " differ");
    }

    /** Everything an encoding holds, overflow windows included, readably. */
    private static String describe(Encoding e) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < e.length(); i++) {
            b.append(e.tokens().get(i)).append('/').append(e.ids()[i]).append(' ').append(e.starts()[i]).append('-')
                    .append(e.ends()[i]).append(" t").append(e.typeIds()[i]).append(" a").append(e.attentionMask()[i])
                    .append(" s").append(e.specialTokensMask()[i]).append(" q").append(e.sequenceIds()[i]).append('\n');
        }
        for (Encoding o : e.overflowing()) {
            b.append("--\n").append(describe(o));
        }
        return b.toString();
    }

    private static String text(Random random) {
        StringBuilder b = new StringBuilder();
        for (int k = random.nextInt(12); k >= 0; k--) {
            b.append(PIECES[random.nextInt(PIECES.length)]);
        }
        return b.toString();
    }

    private static String escaped(String s) {
        StringBuilder b = new StringBuilder();
        s.chars().forEach(c -> b.append(c >= 0x20 && c < 0x7f ? String.valueOf((char) c) : String.format("\\u%04x", c)));
        return b.toString();
    }
}
