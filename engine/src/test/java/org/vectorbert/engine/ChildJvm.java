package org.vectorbert.engine;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A main class of the tests in a JVM of its own, as a library user's program runs: only {@code --add-modules jdk.incubator.vector} and the given flags. */
record ChildJvm(int exit, String out, String err) {
    static ChildJvm run(Path dir, List<String> flags, Class<?> main, String... args) throws IOException, InterruptedException {
        return run(true, dir, flags, main, args);
    }

    /** The same without {@code --add-modules jdk.incubator.vector}, as bin/vectorbert starts a one-shot command. */
    static ChildJvm runWithoutVectorModule(Path dir, List<String> flags, Class<?> main, String... args)
            throws IOException, InterruptedException {
        return run(false, dir, flags, main, args);
    }

    private static ChildJvm run(boolean vectorModule, Path dir, List<String> flags, Class<?> main, String... args)
            throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isEmpty()) {
            classPath = classPath.isEmpty() ? modulePath : classPath + File.pathSeparator + modulePath;
        }
        List<String> command = new ArrayList<>(vectorModule ? List.of(java, "--add-modules", "jdk.incubator.vector") : List.of(java));
        if (System.getProperty("vectorbert.packed") != null) {
            command.add("-Dvectorbert.packed=" + System.getProperty("vectorbert.packed"));   // the tests' packed weights stay in target
        }
        command.addAll(flags);
        command.addAll(List.of("-cp", classPath, main.getName()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(main.getSimpleName() + " did not end within 300 s");
        }
        return new ChildJvm(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
