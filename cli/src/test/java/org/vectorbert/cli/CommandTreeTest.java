package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@link Main#commandLine(String)}: a command line naming one command gets a tree of that command alone, and sees no difference. */
class CommandTreeTest {
    private record Run(int exit, String out, String err) {}

    private static Run run(CommandLine cli, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        return new Run(cli.execute(args), out.toString(), err.toString());
    }

    @Test
    void theListNamesEveryCommandAsItsAnnotationDoes() {
        for (String name : Main.COMMANDS) {
            assertEquals(name, Main.command(name).getClass().getAnnotation(Command.class).name());
        }
        List<String> expected = new ArrayList<>(Main.COMMANDS);
        expected.add("help");
        assertEquals(expected, List.copyOf(Main.commandLine().getSubcommands().keySet()), "the usage lists them in this order");
        assertEquals(List.of("embed"), List.copyOf(Main.commandLine("embed").getSubcommands().keySet()));
        assertEquals(expected, List.copyOf(Main.commandLine("--help").getSubcommands().keySet()));
        assertEquals(expected, List.copyOf(Main.commandLine("help").getSubcommands().keySet()));
        assertEquals(expected, List.copyOf(Main.commandLine("emebd").getSubcommands().keySet()), "a mistyped name gets the whole usage");
    }

    @Test
    void oneCommandsTreeAnswersAsTheWholeOne() {
        for (String name : Main.COMMANDS) {
            Run alone = run(Main.commandLine(name), name, "--help");
            Run whole = run(Main.commandLine(), name, "--help");
            assertEquals(0, alone.exit());
            assertEquals(whole, alone, name + " --help");
            assertTrue(alone.out().startsWith("Usage: vectorbert " + name + " "), alone.out());
            Run bad = run(Main.commandLine(name), name, "--no-such-option");
            assertEquals(2, bad.exit());
            assertEquals(run(Main.commandLine(), name, "--no-such-option"), bad, name + " --no-such-option");
        }
        // Every command's --model says what it takes, ONNX exports and langchain4j jars included, as docs/cli.md does.
        for (String name : List.of("fill-mask", "embed", "classify", "rerank", "ner", "qa", "attention", "tokenize", "inspect")) {
            String usage = run(Main.commandLine(name), name, "--help").out().replaceAll("\\s+", " ");
            assertTrue(usage.contains("a TensorFlow checkpoint, a langchain4j model jar or an ONNX file with its tokenizer.json beside "
                    + "it, converted once"), name + ": " + usage);
        }
        Run help = run(Main.commandLine("help"), "help", "fill-mask");
        assertEquals(run(Main.commandLine("fill-mask"), "fill-mask", "--help"), help);
        Run mistyped = run(Main.commandLine("emebd"), "emebd");
        assertEquals(2, mistyped.exit());
        assertTrue(mistyped.err().startsWith("vectorbert: Unmatched argument at index 0: 'emebd'"), mistyped.err());
    }
}
