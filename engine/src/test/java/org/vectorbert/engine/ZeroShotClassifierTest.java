package org.vectorbert.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zero-shot classification's own rules (labels from a string, the template, which columns are entailment and
 * contradiction, the two ways of scoring, the order) on the pipeline fixtures' sequence classifier, its labels renamed
 * to an NLI model's; the pipeline's numbers themselves are {@link TaskPipelineParityTest}'s.
 */
class ZeroShotClassifierTest {
    @TempDir
    Path temp;

    @Test
    void labelsAndTemplatesReadAsThePipelineReadsThem() {
        assertEquals(List.of("sports", "politics", "new york"), ZeroShotClassifier.parseLabels(" sports,politics , ,new york,"));
        assertEquals("This example is sports.", ZeroShotClassifier.hypothesis(ZeroShotClassifier.DEFAULT_TEMPLATE, "sports"));
        assertEquals("{sports} is it: sports", ZeroShotClassifier.hypothesis("{{{0}}} is it: {}", "sports"));
        assertTrue(assertThrows(EngineException.class, () -> ZeroShotClassifier.hypothesis("The topic.", "x")).getMessage()
                .contains("has no {} for the label"));
        assertTrue(assertThrows(EngineException.class, () -> ZeroShotClassifier.hypothesis("The {label}.", "x")).getMessage()
                .contains("a field other than {}"));
    }

    @Test
    void aModelWithoutAnEntailmentLabelIsRefusedNamingItsLabels() throws IOException {
        EngineException e = assertThrows(EngineException.class, () -> ZeroShotClassifier.load(model("NEGATIVE", "NEUTRAL", "POSITIVE").toString()));
        assertEquals("zero-shot classification needs an NLI model, with an entailment label and another; this model's labels are"
                + " [NEGATIVE, NEUTRAL, POSITIVE]", e.getMessage());
    }

    /** Entailment first makes the last column contradiction; otherwise column 0 is, whatever its name (here neutral). */
    @Test
    void scoresAreThePipelinesArithmeticOnTheLogits() throws IOException {
        String sequence = "who wrote hamlet ?";
        List<String> labels = List.of("capital", "france", "bananas");
        for (String[] names : new String[][] {{"entailment", "neutral", "contradiction"}, {"neutral", "Entailment", "contradiction"},
            {"CONTRADICTION", "NEUTRAL", "ENTAILMENT"}}) {
            ZeroShotClassifier zeroShot = ZeroShotClassifier.load(model(names).toString());
            int entail = names[0].toLowerCase().startsWith("entail") ? 0 : names[1].toLowerCase().startsWith("entail") ? 1 : 2;
            int contra = entail == 0 ? 2 : 0;
            List<String> hypotheses = labels.stream().map(l -> "This example is " + l + ".").toList();
            float[] logits = zeroShot.classifier().logits(List.of(sequence, sequence, sequence), hypotheses, false);

            double[] e = new double[3];
            double sum = 0;
            for (int i = 0; i < 3; i++) {
                e[i] = Math.exp(logits[i * 3 + entail]);
                sum += e[i];
            }
            ZeroShotClassifier.Result single = zeroShot.classify(sequence, labels);
            assertEquals(sequence, single.sequence());
            float previous = Float.POSITIVE_INFINITY;
            for (TextClassifier.Label l : single.labels()) {
                assertEquals(e[labels.indexOf(l.label())] / sum, l.score(), 1e-6, String.join(",", names) + " " + l);
                assertTrue(l.score() <= previous, "best first");
                previous = l.score();
            }

            ZeroShotClassifier.Result multi = zeroShot.classify(List.of(sequence), labels, ZeroShotClassifier.DEFAULT_TEMPLATE, true).getFirst();
            for (TextClassifier.Label l : multi.labels()) {
                int i = labels.indexOf(l.label());
                double want = 1 / (1 + Math.exp(logits[i * 3 + contra] - logits[i * 3 + entail]));
                assertEquals(want, l.score(), 1e-6, String.join(",", names) + " multi-label " + l);
            }
            // One candidate is scored on its own even without multi_label.
            ZeroShotClassifier.Result one = zeroShot.classify(sequence, List.of("france"));
            assertEquals(1 / (1 + Math.exp(logits[3 + contra] - logits[3 + entail])), one.labels().getFirst().score(), 1e-6);
        }
    }

    @Test
    void equalScoresPutTheLaterCandidateFirst() throws IOException {
        ZeroShotClassifier zeroShot = ZeroShotClassifier.load(model("entailment", "neutral", "contradiction").toString());
        List<TextClassifier.Label> ranked = zeroShot.classify("paris is the capital", List.of("france", "france")).labels();
        assertEquals(ranked.get(0).score(), ranked.get(1).score());
        assertEquals(0.5f, ranked.get(0).score(), 1e-6);
    }

    /** The pipeline fixtures' three-label BERT classifier, its labels renamed. */
    private Path model(String... names) throws IOException {
        Path root;
        try {
            root = Path.of(ZeroShotClassifierTest.class.getResource("/pipelines").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Path dir = Files.createDirectories(temp.resolve(String.join("-", names)));
        try (var files = Files.list(root.resolve("seqcls-bert"))) {
            for (Path f : files.filter(f -> !f.getFileName().toString().equals("cases.jsonl")).toList()) {
                Files.copy(f, dir.resolve(f.getFileName()));
            }
        }
        Files.copy(root.resolve("bert.encoder.safetensors"), dir.resolve("model-00001-of-00002.safetensors"));
        Files.copy(root.resolve("bert.tokenizer.json"), dir.resolve("tokenizer.json"));
        String config = Files.readString(dir.resolve("config.json"));
        String[] old = {"NEGATIVE", "NEUTRAL", "POSITIVE"};
        for (int i = 0; i < 3; i++) {
            config = config.replace("\"" + old[i] + "\"", "\"" + names[i] + "\"");
        }
        Files.writeString(dir.resolve("config.json"), config);
        return dir;
    }
}
