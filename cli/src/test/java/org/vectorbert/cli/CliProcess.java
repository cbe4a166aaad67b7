package org.vectorbert.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code vectorbert} in a JVM of its own (this test JVM's java, its classes and dependencies on the
 * class path), for what an in-process run cannot show: signals, exit codes, the bytes of arguments.
 */
final class CliProcess {
    private CliProcess() {}

    /** The command that runs {@code vectorbert} with the launcher's flags, without arguments yet. */
    static List<String> command() {
        String java = ProcessHandle.current().info().command().orElse("java");
        String classPath = System.getProperty("java.class.path");
        String modulePath = System.getProperty("jdk.module.path");
        if (modulePath != null && !modulePath.isEmpty()) {
            classPath = classPath.isEmpty() ? modulePath : classPath + File.pathSeparator + modulePath;
        }
        return new ArrayList<>(List.of(java, "--add-modules", "jdk.incubator.vector", "-XX:+UseSerialGC", "-Xmn8m", "-cp", classPath,
                Main.class.getName()));
    }

    /** Starts {@code vectorbert args...} with stdout and stderr going to files in {@code dir}. */
    static Process start(Path dir, List<String> args) throws IOException {
        List<String> command = command();
        command.addAll(args);
        return new ProcessBuilder(command).redirectOutput(dir.resolve("stdout").toFile()).redirectError(dir.resolve("stderr").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    }

    /** 20,000 lines that take the base model a while to embed, in {@code dir}/big.txt: a run to stop in its middle. */
    static Path longInput(Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            lines.add("line " + i + " of a long input that takes a while to embed with the whole base model");
        }
        return Files.write(dir.resolve("big.txt"), lines);
    }

    /** Sends a signal by name ({@code INT}, {@code TERM}) with the system's kill. */
    static void signal(Process p, String name) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start().waitFor();
    }

    static int waitFor(Process p) throws InterruptedException {
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("vectorbert did not end within 120 s");
        }
        return p.exitValue();
    }

    static String stderr(Path dir) throws IOException {
        return Files.readString(dir.resolve("stderr"), StandardCharsets.UTF_8);
    }
}
