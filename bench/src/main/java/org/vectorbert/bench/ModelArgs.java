package org.vectorbert.bench;

import java.nio.file.Path;
import org.vectorbert.engine.Parallel;
import org.vectorbert.loader.ModelResolver;

/** The {@code --model DIR} and {@code --threads N} options the model benchmarks share. */
public final class ModelArgs {
    private ModelArgs() {}

    /**
     * Applies {@code --threads N} and returns the {@code --model} directory, or the default model (fetched
     * and converted on first use). Anything else prints {@code usage} and exits 2.
     */
    static Path modelDirectory(String[] args, String usage) {
        Path model = null;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 == args.length) {
                exitWithUsage(usage);
            }
            switch (args[i]) {
                case "--model" -> model = Path.of(args[i + 1]);
                case "--threads" -> Parallel.setThreads(positive(args[i + 1], usage));
                default -> exitWithUsage(usage);
            }
        }
        return model != null ? model : defaultModel();
    }

    /** The default model, fetched and converted on first use, saying so on stderr. */
    public static Path defaultModel() {
        return ModelResolver.resolve(null, new ModelResolver.Listener() {
            @Override
            public void log(String message) {
                System.err.println(message);
            }

            @Override
            public void progress(String task, long done, long total) {}
        });
    }

    private static int positive(String value, String usage) {
        try {
            int n = Integer.parseInt(value);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the usage line
        }
        exitWithUsage(usage);
        return 0;
    }

    private static void exitWithUsage(String usage) {
        System.err.println("usage: " + usage);
        System.exit(2);
    }
}
