package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.vectorbert.cli.TokenizeCommandTest.assertUserError;
import static org.vectorbert.cli.TokenizeCommandTest.run;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.engine.QuestionAnswerer;
import org.vectorbert.engine.Reranker;
import org.vectorbert.engine.TextClassifier;
import org.vectorbert.engine.TokenClassifier;
import org.vectorbert.engine.ZeroShotClassifier;
import org.vectorbert.loader.testing.TinyTaskModels;

/** {@code vectorbert classify} and {@code vectorbert rerank}: the library's answers, in the pipelines' and TEI's shapes. */
class TaskCommandsTest {
    @TempDir
    static Path work;

    static Path sentiment;
    static Path reranker;
    static Path tagger;
    static Path answerer;

    @BeforeAll
    static void models() throws IOException {
        sentiment = TinyTaskModels.sequenceClassifier(work.resolve("sentiment"), List.of("NEGATIVE", "NEUTRAL", "POSITIVE"), "");
        reranker = TinyTaskModels.sequenceClassifier(work.resolve("reranker"), List.of("LABEL_0"), "");
        tagger = TinyTaskModels.tokenClassifier(work.resolve("tagger"), List.of("O", "B-PER", "I-PER", "B-LOC", "I-LOC"));
        answerer = TinyTaskModels.questionAnswerer(work.resolve("answerer"));
    }

    @Test
    void zeroShotGivesThePipelinesShape() throws IOException {
        Path nli = TinyTaskModels.sequenceClassifier(work.resolve("nli"), List.of("entailment", "neutral", "contradiction"), "");
        ZeroShotClassifier library = ZeroShotClassifier.load(nli.toString());
        String text = "paris is the capital of france .";
        List<String> labels = List.of("geography", "food", "sports");
        for (boolean multi : new boolean[] {false, true}) {
            var r = multi ? run("classify", "--model", nli.toString(), "--zero-shot", "--labels", "geography, food,,sports", "--multi-label",
                    "--hypothesis-template", "The topic is {}.", "--json", text)
                    : run("classify", "--model", nli.toString(), "--zero-shot", "--labels", "geography,food,sports", "--json", text);
            assertEquals(0, r.exit(), r.err());
            JsonNode got = r.jsonLines().getFirst();
            ZeroShotClassifier.Result want = library.classify(List.of(text), labels, multi ? "The topic is {}." : "This example is {}.", multi)
                    .getFirst();
            assertEquals(text, got.get("sequence").asText());
            for (int k = 0; k < 3; k++) {
                assertEquals(want.labels().get(k).label(), got.get("labels").get(k).asText());
                assertEquals(want.labels().get(k).score(), got.get("scores").get(k).floatValue(), 1e-6);
            }
        }
        var table = run("classify", "--model", nli.toString(), "--zero-shot", "--labels", "geography,food", "--top-k", "1", text);
        assertEquals(0, table.exit(), table.err());
        assertEquals(2, table.out().lines().filter(l -> !l.isBlank()).count(), table.out());
        assertUserError(run("classify", "--model", nli.toString(), "--zero-shot", text), "--zero-shot needs --labels");
        assertUserError(run("classify", "--model", nli.toString(), "--labels", "a,b", text), "--labels goes with --zero-shot");
        assertUserError(run("classify", "--model", nli.toString(), "--zero-shot", "--labels", "a", "--hypothesis-template", "Topic.", text),
                "--hypothesis-template: the hypothesis template \"Topic.\" has no {} for the label to go in");
        assertUserError(run("classify", "--model", sentiment.toString(), "--zero-shot", "--labels", "a,b", text),
                "zero-shot classification needs an NLI model, with an entailment label and another; this model's labels are"
                        + " [NEGATIVE, NEUTRAL, POSITIVE]");
    }

    @Test
    void nerGivesThePipelinesEntities() throws IOException {
        TokenClassifier library = TokenClassifier.load(tagger.toString());
        String text = "john lives in london , paris is the capital of france .";
        for (String strategy : List.of("none", "simple", "first", "average", "max")) {
            var r = run("ner", "--model", tagger.toString(), "--json", "--aggregation-strategy", strategy, "--ignore-labels", "", text);
            assertEquals(0, r.exit(), r.err());
            JsonNode got = r.jsonLines().getFirst();
            List<TokenClassifier.Entity> want = library.entities(text, TokenClassifier.Aggregation.parse(strategy), java.util.Set.of());
            assertEquals(want.size(), got.size(), strategy);
            for (int k = 0; k < want.size(); k++) {
                JsonNode e = got.get(k);
                assertEquals(want.get(k).entity(), e.get(strategy.equals("none") ? "entity" : "entity_group").asText(), strategy);
                assertEquals(want.get(k).score(), e.get("score").floatValue(), 1e-6);
                assertEquals(want.get(k).word(), e.get("word").asText());
                assertEquals(text.substring(e.get("start").asInt(), e.get("end").asInt()).replace(" ", ""),
                        e.get("word").asText().replace(" ", ""), "offsets into the text");
                assertEquals(strategy.equals("none"), e.has("index"));
            }
        }
        String longText = (text + " ").repeat(4).strip();
        var strided = run("ner", "--model", tagger.toString(), "--json", "--aggregation-strategy", "first", "--stride", "4", longText);
        assertEquals(0, strided.exit(), strided.err());
        List<TokenClassifier.Entity> windowed = library.tag(List.of(longText), TokenClassifier.Aggregation.FIRST, java.util.Set.of("O"), 4)
                .getFirst().entities();
        assertEquals(windowed.size(), strided.jsonLines().getFirst().size());
        assertTrue(windowed.getLast().end() > text.length() * 3, "entities from the last window: " + windowed.getLast());
        var table = run("ner", "--model", tagger.toString(), "--aggregation-strategy", "simple", text);
        assertEquals(0, table.exit(), table.err());
        assertTrue(!table.out().contains("  O  "), table.out());
        assertUserError(run("ner", "--model", tagger.toString(), "--aggregation-strategy", "longest", "x"),
                "--aggregation-strategy must be none, simple, first, average or max, not 'longest'");
        assertUserError(run("ner", "--model", sentiment.toString(), "x"), "has no token-classification head");
    }

    @Test
    void qaGivesThePipelinesAnswers() throws IOException {
        QuestionAnswerer library = QuestionAnswerer.load(answerer.toString());
        String question = "what is the capital of france ?";
        String context = "paris is the capital of france . berlin is the capital of germany . bananas are yellow . "
                + "shakespeare wrote hamlet . john lives in london .";
        var r = run("qa", "--model", answerer.toString(), "--json", "--question", question, "--context", context);
        assertEquals(0, r.exit(), r.err());
        JsonNode one = r.jsonLines().getFirst();
        QuestionAnswerer.Answer want = library.answer(question, context, QuestionAnswerer.Options.defaults()).getFirst();
        assertEquals(want.answer(), one.get("answer").asText());
        assertEquals(want.start(), one.get("start").asInt());
        assertEquals(want.end(), one.get("end").asInt());
        assertEquals(want.score(), one.get("score").asDouble(), 1e-12);
        assertEquals(context.substring(one.get("start").asInt(), one.get("end").asInt()), one.get("answer").asText());

        Path file = work.resolve("questions.jsonl");
        Files.writeString(file, "{\"question\": \"who wrote hamlet ?\", \"context\": \"" + context + "\"}\n"
                + "{\"question\": \"where does john live ?\", \"context\": \"john lives in london .\"}\n");
        var many = run("qa", "--model", answerer.toString(), "--json", "--top-k", "3", "--handle-impossible-answer", "--doc-stride", "4",
                "--file", file.toString());
        assertEquals(0, many.exit(), many.err());
        List<JsonNode> lines = many.jsonLines();
        assertEquals(2, lines.size());
        var options = QuestionAnswerer.Options.defaults().withTopK(3).withHandleImpossibleAnswer(true).withDocStride(4);
        List<QuestionAnswerer.Answer> second = library.answer("where does john live ?", "john lives in london .", options);
        assertTrue(lines.get(1).isArray(), "a list when --top-k asks for more: " + lines.get(1));
        assertEquals(second.size(), lines.get(1).size());
        for (int k = 0; k < second.size(); k++) {
            assertEquals(second.get(k).answer(), lines.get(1).get(k).get("answer").asText());
        }
        List<QuestionAnswerer.Answer> all = library.answer("where does john live ?", "john lives in london .", options.withTopK(1000));
        assertTrue(all.stream().anyMatch(a -> a.answer().isEmpty() && a.start() == 0 && a.end() == 0), all.toString());
        assertTrue(library.answer(List.of(new QuestionAnswerer.Question("who wrote hamlet ?", context)), options).getFirst().windows() > 1,
                "a context longer than the model's 32 positions is read in windows");

        var table = run("qa", "--model", answerer.toString(), "--question", question, "--context", context);
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().contains("\"" + want.answer() + "\""), table.out());

        Files.writeString(file, "{\"question\": \"who ?\"}\n");
        assertUserError(run("qa", "--model", answerer.toString(), "--file", file.toString()), "line 1");
        Files.writeString(file, "who wrote hamlet ?\n");
        assertUserError(run("qa", "--model", answerer.toString(), "--file", file.toString()), "is not a JSON object");
        assertUserError(run("qa", "--model", answerer.toString(), "--question", "who ?"), "give --question and --context");
        assertUserError(run("qa", "--model", answerer.toString(), "--top-k", "0", "--question", "q", "--context", "c"),
                "--top-k must be at least 1");
        assertUserError(run("qa", "--model", answerer.toString(), "--question", "the capital of france ".repeat(8), "--context", context),
                "leaves no room for the context");
        assertUserError(run("qa", "--model", answerer.toString(), "--question", "", "--context", context), "the question is empty");
        assertUserError(run("qa", "--model", tagger.toString(), "--question", "q", "--context", "c"), "has no question-answering head");
    }

    @Test
    void classifyGivesThePipelinesLabelsAndScores() throws IOException {
        TextClassifier library = TextClassifier.load(sentiment.toString());
        var r = run("classify", "--model", sentiment.toString(), "--json", "--top-k", "2", "paris is the capital of france .",
                "bananas are yellow .");
        assertEquals(0, r.exit(), r.err());
        List<JsonNode> lines = r.jsonLines();
        assertEquals(2, lines.size());
        List<TextClassifier.Label> want = library.classify("bananas are yellow .");
        assertEquals(2, lines.get(1).size());
        for (int k = 0; k < 2; k++) {
            assertEquals(want.get(k).label(), lines.get(1).get(k).get("label").asText());
            assertEquals(want.get(k).score(), lines.get(1).get(k).get("score").floatValue(), 1e-6);
        }
        var one = run("classify", "--model", sentiment.toString(), "--json", "--function-to-apply", "none", "--pair", "paris",
                "the capital of france");
        JsonNode best = one.jsonLines().getFirst();
        assertEquals(1, best.size(), "one label unless --top-k asks for more");
        float[] logits = library.logits(List.of("the capital of france"), List.of("paris"), false);
        int id = library.labels().id(best.get(0).get("label").asText());
        assertEquals(logits[id], best.get(0).get("score").floatValue(), 1e-5);

        var table = run("classify", "--model", sentiment.toString(), "--top-k", "3", "who wrote hamlet ?");
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().startsWith("\"who wrote hamlet ?\"\n  "), table.out());
        assertEquals(4, table.out().split("\n").length, table.out());
    }

    /** docs/cli.md's NLI example names the texts as --help does: the TEXT the premise (text), --pair the hypothesis (text_pair). */
    @Test
    void theDocsPairExampleIsTheHelpsOne() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "cli.md"));
        var help = run("classify", "--help");
        assertEquals(0, help.exit(), help.err());
        String example = "vectorbert classify --model cross-encoder/nli-distilroberta-base --pair \"A man is sleeping.\" \"A man sleeps on a sofa.\"";
        assertTrue(help.out().replaceAll("\\s+", " ").contains(example), help.out());   // as wrapped to the usage width
        assertTrue(docs.contains("\n" + example + "\n"), "docs/cli.md has the help's --pair example");
        assertTrue(help.out().contains("premise \"A man sleeps on a sofa.\", the TEXT"), help.out());
    }

    @Test
    void rerankSortsTextsAsTeiDoes() throws IOException {
        Reranker library = Reranker.load(reranker.toString());
        List<String> docs = List.of("paris is the capital of france .", "bananas are yellow .", "berlin is in germany .");
        Path file = Files.write(work.resolve("docs.txt"), docs);
        var r = run("rerank", "--model", reranker.toString(), "--json", "--query", "capital of france", "--file", file.toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode ranked = r.jsonLines().getFirst();
        List<Reranker.Score> want = library.rank("capital of france", docs, false, 3);
        assertEquals(3, ranked.size());
        for (int k = 0; k < 3; k++) {
            assertEquals(want.get(k).index(), ranked.get(k).get("index").asInt());
            assertEquals(want.get(k).score(), ranked.get(k).get("score").floatValue(), 1e-6);
        }
        var raw = run("rerank", "--model", reranker.toString(), "--json", "--raw-scores", "--top-k", "1", "--query", "capital of france",
                docs.get(0), docs.get(1));
        JsonNode top = raw.jsonLines().getFirst();
        assertEquals(1, top.size());
        float[] logits = library.scores("capital of france", docs.subList(0, 2), true);
        assertEquals(logits[top.get(0).get("index").asInt()], top.get(0).get("score").floatValue(), 1e-6);
    }

    @Test
    void badInputIsOneLineAndExitTwo() throws IOException {
        assertUserError(run("classify", "--model", sentiment.toString(), "--top-k", "0", "x"), "--top-k must be positive, was 0");
        assertUserError(run("classify", "--model", sentiment.toString(), "--function-to-apply", "tanh", "x"),
                "--function-to-apply must be softmax, sigmoid or none, not 'tanh'");
        assertUserError(run("rerank", "--model", sentiment.toString(), "--query", "q", "x"),
                "is not a reranker: its classifier has 3 labels [NEGATIVE, NEUTRAL, POSITIVE], a reranker one score");
        assertUserError(run("rerank", "--model", reranker.toString(), "--query", "q"), "no text given");
        String longText = "the capital of france ".repeat(20);
        assertUserError(run("classify", "--model", sentiment.toString(), longText), "longer than the model's 32");
        assertEquals(0, run("classify", "--model", sentiment.toString(), "--truncate", longText).exit());
        Path file = Files.write(work.resolve("too-long.txt"), List.of("bananas are yellow .", longText));
        assertUserError(run("classify", "--model", sentiment.toString(), "--pair", "paris", "--file", file.toString()),
                "line 2 of " + file + ": the text \"the capital of france");
    }

    @Test
    void aModelWithoutAClassifierSaysWhatItHas() throws IOException {
        Path mlm = work.resolve("no-head");
        TinyTaskModels.sequenceClassifier(mlm, List.of("A", "B"), "");
        Files.writeString(mlm.resolve("config.json"), Files.readString(mlm.resolve("config.json"))
                .replace("BertForSequenceClassification", "BertForTokenClassification"));
        var r = run("classify", "--model", mlm.toString(), "x");
        assertUserError(r, "has no sequence-classification head");
    }
}
