package org.vectorbert.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.vectorbert.common.Excerpt;
import org.vectorbert.engine.QuestionAnswerer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "qa",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        description = "Answer a question from a context with an extractive question-answering model, as Hugging Face's "
                + "question-answering pipeline does.",
        footer = {"", "Examples:",
            "  vectorbert qa --model distilbert/distilbert-base-cased-distilled-squad --question \"Where do I live?\" "
                    + "--context \"My name is Wolfgang and I live in Berlin.\"",
            "  vectorbert qa --model distilbert/distilbert-base-cased-distilled-squad --json --file questions.jsonl   "
                    + "(one {\"question\": ..., \"context\": ...} per line; - reads standard input)"},
        sortOptions = false)
final class QaCommand implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Spec
    CommandSpec spec;

    @Mixin
    ModelOptions modelOptions;

    @Option(names = "--question", paramLabel = "Q", description = "The question.")
    String question;

    @Option(names = "--context", paramLabel = "C", description = "The text to find the answer in.")
    String context;

    @Option(names = "--file", paramLabel = "PATH",
            description = "Read one JSON object {\"question\", \"context\"} per line from PATH (- for standard input).")
    String file;

    @Option(names = "--top-k", paramLabel = "K", defaultValue = "1", description = "How many answers (default: ${DEFAULT-VALUE}).")
    int topK;

    @Option(names = "--max-answer-len", paramLabel = "N", defaultValue = "15",
            description = "The longest answer, in tokens (default: ${DEFAULT-VALUE}).")
    int maxAnswerLength;

    @Option(names = "--doc-stride", paramLabel = "N", defaultValue = "-1",
            description = "Tokens shared by consecutive windows over a long context (default: half the window, at most 128).")
    int docStride;

    @Option(names = "--max-seq-len", paramLabel = "N", defaultValue = "-1",
            description = "The longest window, special tokens included (default: the model's, at most 384).")
    int maxSeqLength;

    @Option(names = "--handle-impossible-answer", description = "Let \"no answer\" (an empty answer) compete with the spans.")
    boolean handleImpossibleAnswer;

    @Option(names = "--no-align-to-words", negatable = false,
            description = "Give answers at token boundaries instead of widening them to whole words.")
    boolean noAlignToWords;

    @Option(names = "--json", description = "One JSON line per question: {score, start, end, answer}, or a list of them "
            + "when --top-k asks for more; start and end are character offsets into the context.")
    boolean json;

    @Mixin
    ServeClient.Option server;

    @Override
    public Integer call() {
        Arguments.requireValidUtf8("--question", question);
        Arguments.requireValidUtf8("--context", context);
        if (file != null && (question != null || context != null)) {
            throw new UserError("give --question and --context, or --file, not both");
        }
        if (file == null && (question == null || context == null)) {
            throw new UserError("give --question and --context (or --file of JSON lines)");
        }
        QuestionAnswerer.Options options;
        try {
            options = QuestionAnswerer.Options.defaults().withTopK(topK).withMaxAnswerLength(maxAnswerLength)
                    .withDocStride(docStride).withMaxSequenceLength(maxSeqLength)
                    .withHandleImpossibleAnswer(handleImpossibleAnswer).withAlignToWords(!noAlignToWords);
        } catch (RuntimeException e) {
            throw new UserError(e.getMessage().replace("top_k", "--top-k").replace("max_answer_len", "--max-answer-len")
                    .replace("doc_stride", "--doc-stride").replace("max_seq_len", "--max-seq-len"));
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> lines = file == null ? List.of(JsonText.of(Map.of("question", question, "context", context))) : List.of();
        if (server.given()) {
            return viaServer(lines, out, err);
        }
        QuestionAnswerer qa = modelOptions.load(err, dir -> QuestionAnswerer.load(dir, modelOptions.precision()));
        RunProgress progress = new RunProgress(err, "qa:", file != null);
        TextInput.forEachBatch(lines, file, System.in, 16, (batch, first, read, total) -> {
            List<QuestionAnswerer.Question> questions = new ArrayList<>(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                questions.add(parse(batch.get(i), first + i));
            }
            List<QuestionAnswerer.Result> results = qa.answer(questions, options);
            long tokens = 0;
            for (int i = 0; i < batch.size(); i++) {
                QuestionAnswerer.Result r = results.get(i);
                out.println(json ? toJson(r.answers(), topK) : table(questions.get(i), r.answers()));
                tokens += r.tokens();
            }
            out.flush();
            progress.done(batch.size(), tokens, read, total);
        });
        progress.finish();
        return 0;
    }

    /**
     * The questions sent to a running server's {@code POST /question-answering} in batches, with these options (checked
     * here first, as the local command checks them), and its answers printed as the local ones are: the server runs
     * the same pipeline, and a double's shortest decimal reads back as the same double, so the output is the local
     * command's to the byte.
     */
    private int viaServer(List<String> lines, PrintWriter out, PrintWriter err) {
        ServeClient client = ServeClient.connect(server.url, "qa", modelOptions, spec, err);
        RunProgress progress = new RunProgress(err, "qa:", file != null).countingTexts();
        TextInput.forEachBatch(lines, file, System.in, client.batchSize(16), (batch, first, read, total) -> {
            ObjectNode body = JsonText.object();
            ArrayNode inputs = body.putArray("inputs");
            List<QuestionAnswerer.Question> questions = new ArrayList<>(batch.size());
            for (int i = 0; i < batch.size(); i++) {
                QuestionAnswerer.Question q = parse(batch.get(i), first + i);
                questions.add(q);
                inputs.addObject().put("question", q.question()).put("context", q.context());
            }
            ObjectNode parameters = body.putObject("parameters").put("top_k", topK).put("max_answer_len", maxAnswerLength)
                    .put("handle_impossible_answer", handleImpossibleAnswer).put("align_to_words", !noAlignToWords);
            if (docStride >= 0) {
                parameters.put("doc_stride", docStride);
            }
            if (maxSeqLength >= 0) {
                parameters.put("max_seq_len", maxSeqLength);
            }
            JsonNode answer = client.post("question-answering", body, file, first, batch.size(), file == null);
            if (!answer.isArray() || answer.size() != batch.size()) {
                throw new UserError("the server's /question-answering answer is not one answer per question: " + Excerpt.of(answer.toString()));
            }
            for (int i = 0; i < batch.size(); i++) {
                List<QuestionAnswerer.Answer> answers = answers(answer.get(i));
                out.println(json ? toJson(answers, topK) : table(questions.get(i), answers));
            }
            out.flush();
            progress.done(batch.size(), 0, read, total);
        });
        progress.finish();
        return 0;
    }

    /** One question's answers from the server: an object, or a list of them (the pipeline's shape for several). */
    private static List<QuestionAnswerer.Answer> answers(JsonNode node) {
        List<QuestionAnswerer.Answer> answers = new ArrayList<>();
        for (JsonNode a : node.isArray() ? node : List.of(node)) {
            if (!a.path("score").isNumber() || !a.path("start").canConvertToInt() || !a.path("end").canConvertToInt()
                    || !a.path("answer").isTextual()) {
                throw new UserError("the server's /question-answering answer has one without score, start, end and answer: "
                        + Excerpt.of(a.toString()));
            }
            answers.add(new QuestionAnswerer.Answer(a.get("score").doubleValue(), a.get("start").intValue(), a.get("end").intValue(),
                    a.get("answer").textValue()));
        }
        return answers;
    }

    private QuestionAnswerer.Question parse(String line, int number) {
        String where = file == null ? "the question" : TextInput.where(file, number);
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (JacksonException e) {
            throw new UserError(where + " is not a JSON object {\"question\": ..., \"context\": ...}: "
                    + e.getOriginalMessage());
        }
        if (node == null || !node.isObject() || !node.path("question").isTextual() || !node.path("context").isTextual()) {
            throw new UserError(where + " must be a JSON object with the strings \"question\" and \"context\"");
        }
        return new QuestionAnswerer.Question(node.get("question").asText(), node.get("context").asText());
    }

    /** The pipeline's answer: one object, or a list when more than one answer was asked for. */
    private static String toJson(List<QuestionAnswerer.Answer> answers, int topK) {
        List<Map<String, Object>> list = answers.stream().map(QuestionAnswerer.Answer::pipelineFields).toList();
        return topK == 1 && list.size() == 1 ? JsonText.of(list.getFirst()) : JsonText.of(list);
    }

    private static String table(QuestionAnswerer.Question q, List<QuestionAnswerer.Answer> answers) {
        StringBuilder b = new StringBuilder("\"").append(Excerpt.printable(q.question())).append("\"\n");
        if (answers.isEmpty()) {
            b.append("  (no answer)\n");
        }
        int rank = 1;
        for (QuestionAnswerer.Answer a : answers) {
            b.append(String.format("  %d  %.4f  %4d-%-4d  %s%n", rank++, a.score(), a.start(), a.end(),
                    a.answer().isEmpty() ? "(no answer)" : "\"" + Excerpt.printable(a.answer()) + "\""));
        }
        return b.toString();
    }
}
