package org.vectorbert.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
            "  vectorbert qa --model path/to/distilbert-base-cased-distilled-squad --question \"Where do I live?\" "
                    + "--context \"My name is Wolfgang and I live in Berlin.\"",
            "  vectorbert qa --model path/to/squad-model --json --file questions.jsonl   "
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
        QuestionAnswerer qa = QuestionAnswerer.load(modelOptions.directory(err).toString(), modelOptions.precision());
        RunProgress progress = new RunProgress(err, "qa:", file != null);
        List<String> lines = file == null ? List.of(JsonText.of(Map.of("question", question, "context", context))) : List.of();
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
