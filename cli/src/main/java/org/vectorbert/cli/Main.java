package org.vectorbert.cli;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import org.vectorbert.common.VectorbertException;
import org.vectorbert.engine.Encoder;
import org.vectorbert.engine.TextTooLongException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code vectorbert} command. Exit codes: 0 success, 2 bad usage or bad input, 1 internal error. */
@Command(name = "vectorbert",
        mixinStandardHelpOptions = true,
        addMethodSubcommands = false,
        versionProvider = Main.Version.class,
        description = "BERT in pure Java: fill masks, embed texts, explore attention, serve them over HTTP, tokenize, convert and inspect checkpoints.",
        footer = {"", "Examples:",
            "  vectorbert fill-mask \"Paris is the [MASK] of France.\"",
            "  vectorbert embed --pooling mean --normalize --file sentences.txt --output vectors.npy",
            "  vectorbert serve --port 8080      (TEI's and OpenAI's embedding APIs over HTTP)",
            "  vectorbert attention \"time flies like an arrow\" --output flies.html   (bertviz's views, offline)",
            "  vectorbert help embed",
            "", "Exit codes: 0 success, 2 bad usage or bad input, 1 internal error.",
            "Models live in $VECTORBERT_HOME (default ~/.cache/vectorbert) and the Hugging Face cache."})
public final class Main implements java.util.concurrent.Callable<Integer> {
    @picocli.CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    static final int EXIT_INTERNAL = 1;
    static final int EXIT_USAGE = 2;

    /** Bare {@code vectorbert}: the commands and how to get help, on stderr, and exit 2 (no command was given). */
    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        spec.commandLine().usage(err);
        err.flush();
        return EXIT_USAGE;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the command line and returns the exit code (for tests and embedding). */
    public static int run(String... args) {
        skipPicocliLookups();
        return commandLine(args.length > 0 ? args[0] : null).execute(args);
    }

    /**
     * Two lookups picocli makes on every start that vectorbert has no use for, unless a caller set them otherwise: a
     * Groovy closure class (a miss that searches the whole class path), and converters for java.sql and java.time
     * types, which it finds by reflection and initialises (no option here has such a type). Both cost a one-shot
     * command's main thread start-up time, as does the scan of each command's methods for method subcommands, which
     * {@code addMethodSubcommands = false} on every command spares.
     */
    private static void skipPicocliLookups() {
        System.getProperties().putIfAbsent("picocli.disable.closures", "true");
        System.getProperties().putIfAbsent("picocli.converters.excludes", "java\\.sql\\..*,java\\.time\\..*");
    }

    /** The subcommands, in the order the usage lists them (each class's {@code @Command} name; ModelCommandsTest checks). */
    static final List<String> COMMANDS = List.of("fill-mask", "embed", "classify", "rerank", "ner", "qa", "attention", "serve",
            "tokenize", "convert", "inspect");

    /** A new instance of the subcommand {@code name}, one of {@link #COMMANDS}. */
    static Object command(String name) {
        return switch (name) {
            case "fill-mask" -> new FillMaskCommand();
            case "embed" -> new EmbedCommand();
            case "classify" -> new ClassifyCommand();
            case "rerank" -> new RerankCommand();
            case "ner" -> new NerCommand();
            case "qa" -> new QaCommand();
            case "attention" -> new AttentionCommand();
            case "serve" -> new ServeCommand();
            case "tokenize" -> new TokenizeCommand();
            case "convert" -> new ConvertCommand();
            case "inspect" -> new InspectCommand();
            default -> throw new IllegalArgumentException("no command " + name);
        };
    }

    /** The whole command tree: every subcommand and {@code help}. */
    static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * The command tree for a command line whose first argument is {@code first}: when that names a subcommand, the tree
     * holds that one alone; otherwise (no argument, an option, {@code help}, a mistyped name) every subcommand and
     * {@code help}, for the usage and picocli's suggestions. Why: picocli reads every registered command's annotations,
     * fields and methods by reflection when it builds the tree, before parsing anything, a good part of a one-shot
     * command's start (the start-up cache keeps classes, not the work done with them). The one command's usage,
     * errors and qualified name ({@code vectorbert fill-mask}) are the same either way.
     */
    static CommandLine commandLine(String first) {
        CommandLine cli = new CommandLine(new Main());
        if (first != null && COMMANDS.contains(first)) {
            cli.addSubcommand(first, command(first));
        } else {
            for (String name : COMMANDS) {
                cli.addSubcommand(name, command(name));
            }
            cli.addSubcommand("help", new CommandLine.HelpCommand());
        }
        // Set after the subcommands are added: picocli passes these settings down to the commands it holds at the time.
        cli.setUsageHelpWidth(110);
        // Results are UTF-8 whatever the locale says, so piping to a file never mangles tokens.
        cli.setOut(new PrintWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        cli.setErr(new PrintWriter(new OutputStreamWriter(System.err, StandardCharsets.UTF_8), true));
        cli.setExecutionExceptionHandler(Main::report);
        cli.setParameterExceptionHandler(Main::reportUsage);
        return cli;
    }

    private static int reportUsage(CommandLine.ParameterException e, String[] args) {
        PrintWriter err = e.getCommandLine().getErr();
        err.println("vectorbert: " + e.getMessage());
        err.println("Try '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
        err.flush();
        return EXIT_USAGE;
    }

    /** A command's failure as one line on stderr (the stack trace too with VECTORBERT_DEBUG), and its exit code. */
    static int report(Exception e, CommandLine cli, CommandLine.ParseResult parsed) {
        PrintWriter err = cli.getErr();
        int code;
        if (e instanceof TextTooLongException tooLong) {
            err.println("vectorbert: " + tooLong.getMessage() + hint(cli, tooLong));
            code = EXIT_USAGE;
        } else if (e instanceof VectorbertException) {
            err.println("vectorbert: " + e.getMessage());
            code = EXIT_USAGE;
        } else if (e instanceof UncheckedIOException io) {
            err.println("vectorbert: " + io.getCause().getMessage());
            code = EXIT_USAGE;
        } else {
            err.println("vectorbert: internal error: " + e + " (please report it; run with VECTORBERT_DEBUG=1 for details)");
            if (System.getenv("VECTORBERT_DEBUG") != null) {
                e.printStackTrace(err);
            }
            code = EXIT_INTERNAL;
        }
        err.flush();
        return code;
    }

    /** The option that lets the command take a text that long, where it has one. */
    private static String hint(CommandLine cli, TextTooLongException e) {
        return cli.getCommandSpec().optionsMap().containsKey("--truncate") ? " (--truncate cuts it to fit)" : "";
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() throws IOException {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("/vectorbert-version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            }
            // The vector width: bin/vectorbert reads it here to start a one-shot command without the Vector API's module.
            return new String[] {"vectorbert " + p.getProperty("version", "unknown")
                    + " (Java " + Runtime.version() + ", " + System.getProperty("os.arch") + ", " + vectorWidth() + ")"};
        }

        /**
         * "N-bit vectors": the engine's width, or, in a JVM without the Vector API's module (bin/vectorbert starts
         * --version so, and the JVM prints no warning about the module), what VectorShape.preferredShape() would say:
         * it asks the JVM, through java.base's VectorSupport (the launcher exports it), the most lanes of each type,
         * and takes the narrowest vector any type fits in, at least 64 bits. LauncherTest holds the two equal.
         */
        static String vectorWidth() {
            if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() || System.getProperty("vectorbert.vector.bits") != null) {
                return Encoder.vectorBits() + "-bit vectors";
            }
            try {
                java.lang.reflect.Method maxLanes = Class.forName("jdk.internal.vm.vector.VectorSupport").getMethod("getMaxLaneCount", Class.class);
                Class<?>[] types = {byte.class, short.class, int.class, long.class, float.class, double.class};
                int[] sizes = {Byte.SIZE, Short.SIZE, Integer.SIZE, Long.SIZE, Float.SIZE, Double.SIZE};
                int bits = Integer.MAX_VALUE;
                for (int i = 0; i < types.length; i++) {
                    bits = Math.min(bits, Math.max((Integer) maxLanes.invoke(null, types[i]) * sizes[i], 64));
                }
                return bits + "-bit vectors";
            } catch (ReflectiveOperationException | RuntimeException e) {
                return "vector width unknown without --add-modules jdk.incubator.vector";
            }
        }
    }
}
