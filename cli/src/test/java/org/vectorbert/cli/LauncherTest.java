package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/vectorbert itself, on the jars {@code mvn package} built (run after packaging, in the integration-test
 * phase). Each test gets a tree of its own (the launcher, and copies of the built jars) without a start-up cache,
 * as on the first run after a build.
 */
@Tag("heavy")
class LauncherTest {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path tree;
    @TempDir
    Path work;

    private Path launcher;
    private Path aot;

    @BeforeEach
    void freshBuild() throws IOException {
        Path bin = Files.createDirectories(tree.resolve("bin/lib"));
        launcher = Files.copy(REPO.resolve("bin/vectorbert"), tree.resolve("bin/vectorbert"));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (Stream<Path> scripts = Files.list(REPO.resolve("bin/lib"))) {
            for (Path s : scripts.toList()) {
                Files.copy(s, bin.resolve(s.getFileName()));
            }
        }
        Path target = Files.createDirectories(tree.resolve("cli/target/lib"));
        Path builtJar = REPO.resolve("cli/target/vectorbert-cli.jar");
        assertTrue(Files.isRegularFile(builtJar), "run after mvn package: " + builtJar);
        Files.copy(builtJar, tree.resolve("cli/target/vectorbert-cli.jar"), StandardCopyOption.COPY_ATTRIBUTES);
        try (Stream<Path> jars = Files.list(REPO.resolve("cli/target/lib"))) {
            for (Path jar : jars.toList()) {
                Files.copy(jar, target.resolve(jar.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
            }
        }
        aot = tree.resolve("cli/target/vectorbert.aot");
    }

    @Test
    void aSignalToTheLauncherStopsTheFirstRunAfterABuild() throws Exception {
        Path input = CliProcess.longInput(work);
        for (String signal : List.of("INT", "TERM")) {
            Path target = work.resolve("sig-" + signal + ".npy");
            Process p = start(Map.of(), "embed", "--model", TestModels.bertBaseUncased().toString(), "--file", input.toString(),
                    "--output", target.toString(), "--batch-size", "16");
            long deadline = System.nanoTime() + 120_000_000_000L;
            while (partials().isEmpty() && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertFalse(partials().isEmpty(), "the run started writing: " + stderr());
            Thread.sleep(500);
            // To the launcher's own process, as a script's kill or a supervisor sends it (not to its group, as a terminal does).
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).inheritIO().start().waitFor();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "still running 30 s after SIG" + signal);
            assertEquals(signal.equals("INT") ? 130 : 143, p.exitValue(), stderr());
            assertEquals(List.of(), partials());
            assertFalse(Files.exists(target), "no output file after SIG" + signal);
        }
    }

    @Test
    void theStartUpCacheIsRecordedAfterTheFirstRunAndDroppedWhenAJarChanges() throws Exception {
        // The default model where the launcher looks for it: the recording runs a fixed query on it.
        Path home = work.resolve("home");
        Path model = Files.createDirectories(home.resolve("models/bert-base-uncased"));
        try (Stream<Path> files = Files.list(TestModels.bertBaseUncased())) {
            for (Path f : files.toList()) {
                Files.createLink(model.resolve(f.getFileName()), f);
            }
        }
        Map<String, String> env = Map.of("VECTORBERT_HOME", home.toString());
        long started = System.nanoTime();
        Process first = start(env, "fill-mask", "--top-k", "1", "Paris is the [MASK] of France.");
        assertEquals(0, first.waitFor(), stderr());
        assertTrue(Files.readString(work.resolve("stdout")).contains("capital"));
        assertFalse(Files.exists(aot), "the user's command does not wait for the recording");
        Path oneShotAot = aot.resolveSibling("vectorbert-one-shot.aot");
        long deadline = started + 300_000_000_000L;
        while (!(Files.exists(aot) && Files.exists(oneShotAot) && !Files.exists(aot.resolveSibling("vectorbert.aot.recorder")))
                && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(Files.isRegularFile(aot), "recorded in the background");
        assertTrue(Files.isRegularFile(oneShotAot), "the one-shot cache recorded in the background too");
        String stamp = Files.readString(aot.resolveSibling("vectorbert.aot.stamp"));
        assertTrue(stamp.contains("vectorbert-cli.jar") && stamp.contains("lib/vectorbert-engine-"), stamp);
        String oneShotStamp = Files.readString(oneShotAot.resolveSibling("vectorbert-one-shot.aot.stamp"));
        assertTrue(oneShotStamp.matches("(?s)\\Q" + stamp + "\\E\nvector bits (128|256|512)"), oneShotStamp);

        // A later one-shot run uses the one-shot cache, without the Vector API's module (the JVM says so when asked).
        Process second = start(Map.of("VECTORBERT_HOME", home.toString(), "VECTORBERT_JAVA_OPTS", "-Xlog:aot=info"),
                "fill-mask", "--top-k", "1", "Paris is the [MASK] of France.");
        assertEquals(0, second.waitFor(), stderr());
        String out = Files.readString(work.resolve("stdout"));
        assertTrue(out.contains("Opened AOT cache " + oneShotAot + ".") && out.contains("paris is the capital of france."), out);
        assertFalse(stderr().contains("Using incubator modules"), stderr());
        // So do help, --version (its width from the stamp) and tokenize, which need no module either.
        for (String[] args : List.of(new String[] {"--version"}, new String[] {"--help"}, new String[] {"tokenize", "x"})) {
            Process noVectors = start(Map.of("VECTORBERT_HOME", home.toString(), "VECTORBERT_JAVA_OPTS", "-Xlog:aot=info"), args);
            assertEquals(0, noVectors.waitFor(), stderr());
            out = Files.readString(work.resolve("stdout"));
            assertTrue(out.contains("Opened AOT cache " + oneShotAot + "."), out);
            assertFalse(stderr().contains("Using incubator modules"), stderr());
        }
        assertTrue(out.contains("[CLS]"), out);
        Process version = start(Map.of("VECTORBERT_HOME", home.toString()), "--version");
        assertEquals(0, version.waitFor(), stderr());
        assertTrue(Files.readString(work.resolve("stdout")).endsWith(", " + oneShotStamp.substring(oneShotStamp.lastIndexOf(' ') + 1)
                + "-bit vectors)\n"), Files.readString(work.resolve("stdout")));
        // Anything else uses the other, with the module; so does a one-shot run told to keep the module.
        Path file = Files.writeString(work.resolve("texts.txt"), "Paris is the [MASK] of France.\n");
        for (Map<String, String> also : List.of(Map.<String, String>of(), Map.of("VECTORBERT_ONE_SHOT", "module"))) {
            Map<String, String> withLog = new HashMap<>(also);
            withLog.putAll(Map.of("VECTORBERT_HOME", home.toString(), "VECTORBERT_JAVA_OPTS", "-Xlog:aot=info"));
            Process other = also.isEmpty() ? start(withLog, "fill-mask", "--top-k", "1", "--file", file.toString())
                    : start(withLog, "fill-mask", "--top-k", "1", "Paris is the [MASK] of France.");
            assertEquals(0, other.waitFor(), stderr());
            out = Files.readString(work.resolve("stdout"));
            assertTrue(out.contains("Opened AOT cache " + aot + ".") && out.contains("paris is the capital of france."), out);
            assertTrue(stderr().contains("Using incubator modules"), stderr());
        }

        // Any jar of the class path rebuilt (here the engine's, not the command's own jar): the cache is stale and goes.
        Path engine;
        try (Stream<Path> jars = Files.list(tree.resolve("cli/target/lib"))) {
            engine = jars.filter(j -> j.getFileName().toString().startsWith("vectorbert-engine-")).findFirst().orElseThrow();
        }
        Files.setLastModifiedTime(engine, FileTime.from(Files.getLastModifiedTime(engine).toInstant().plusSeconds(60)));
        Process third = start(env, "tokenize", "x");
        assertEquals(0, third.waitFor(), stderr());
        assertFalse(Files.exists(aot), "a cache recorded with another engine jar is removed");
        assertFalse(Files.exists(aot.resolveSibling("vectorbert.aot.stamp")));
        assertFalse(Files.exists(oneShotAot), "and so is the one-shot cache");
        assertFalse(Files.exists(oneShotAot.resolveSibling("vectorbert-one-shot.aot.stamp")));
    }

    @Test
    void aShortFillMaskRunsOnC1AloneAndAnythingBiggerAsBefore() throws Exception {
        Map<String, String> env = Map.of("VECTORBERT_AOT", "0", "VECTORBERT_HOME", work.resolve("home").toString(),
                "VECTORBERT_JAVA_OPTS", "-XX:+PrintFlagsFinal -XshowSettings:properties");
        String model = TestModels.bertBaseUncased().toString();
        Process oneShot = start(env, "fill-mask", "--top-k", "1", "--model", model, "Paris is the [MASK] of France.");
        assertEquals(0, oneShot.waitFor(), stderr());
        String out = Files.readString(work.resolve("stdout"));
        assertTrue(out.contains("paris is the capital of france."), out);
        assertEquals("1", flag(out, "TieredStopAtLevel"));
        assertEquals("every", property());
        Process embed = start(env, "embed", "--model", model, "A sentence to embed.");
        assertEquals(0, embed.waitFor(), stderr());
        out = Files.readString(work.resolve("stdout"));
        assertTrue(out.contains("\"A sentence to embed.\"  [768]"), out);
        assertEquals("1", flag(out, "TieredStopAtLevel"));
        assertEquals("every", property());

        Path file = Files.writeString(work.resolve("texts.txt"), "Paris is the [MASK] of France.\n");
        String longText = "word ".repeat(60) + "[MASK].";
        List<List<String>> others = List.of(List.of("fill-mask", "--model", model, "--file", file.toString()),
                List.of("fill-mask", "--model", model, "--file=" + file), List.of("fill-mask", "--model", model, longText),
                List.of("embed", "--model", model, "--file", file.toString()), List.of("tokenize", "--model", model, "x"));
        for (List<String> args : others) {
            Process p = start(env, args.toArray(String[]::new));
            assertEquals(0, p.waitFor(), stderr());
            out = Files.readString(work.resolve("stdout"));
            assertEquals("4", flag(out, "TieredStopAtLevel"), String.join(" ", args));
            assertEquals(null, property(), String.join(" ", args));
        }
    }

    @Test
    void helpVersionTokenizeAndInspectStartWithoutTheVectorModuleSoTheJvmSaysNothingOfIt() throws Exception {
        Map<String, String> env = Map.of("VECTORBERT_HOME", work.resolve("home").toString());
        String model = TestModels.bertBaseUncased().toString();
        String jar = org.vectorbert.convert.testing.RealModels.allMiniLmJar().toString();
        List<List<String>> runs = List.of(List.of("--help"), List.of("-h"), List.of("help", "embed"), List.of("embed", "--help"),
                List.of("--version"), List.of("tokenize", "--model", model, "Paris is the capital of France."),
                List.of("inspect", "--model", model), List.of("inspect", "--model", jar), List.of("tokenize", "--model", jar, "x"));
        for (List<String> args : runs) {
            Process p = start(env, args.toArray(String[]::new));
            assertEquals(0, p.waitFor(), stderr());
            assertFalse(stderr().contains("Using incubator modules"), String.join(" ", args) + ": " + stderr());
            assertFalse(Files.readString(work.resolve("stdout")).isBlank(), String.join(" ", args));
        }
        assertTrue(Files.readString(work.resolve("stdout")).contains("[CLS]"), "the jar's tokenizer");
        // The width --version gives without the module, asked through java.base, is the Vector API's (this JVM has the module).
        for (Map<String, String> also : List.of(Map.<String, String>of(), Map.of("VECTORBERT_AOT", "0"))) {
            Process version = start(also, "--version");
            assertEquals(0, version.waitFor(), stderr());
            assertTrue(Files.readString(work.resolve("stdout")).endsWith(", " + org.vectorbert.engine.Encoder.vectorBits() + "-bit vectors)\n"),
                    Files.readString(work.resolve("stdout")));
            assertEquals("", stderr());
        }
        // Into a pipe as into a file.
        ProcessBuilder piped = new ProcessBuilder(launcher.toString(), "tokenize", "--model", model, "x").redirectErrorStream(true);
        piped.environment().put("JAVA_HOME", Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().getParent().toString());
        Process p = piped.start();
        String both = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), both);
        assertTrue(both.contains("[CLS]") && !both.contains("WARNING"), both);
        // A command that runs the model still gets the module.
        Process embed = start(Map.of("VECTORBERT_AOT", "0"), "embed", "--model", model, "--file", writeOneLine());
        assertEquals(0, embed.waitFor(), stderr());
        assertTrue(stderr().contains("Using incubator modules"), stderr());
    }

    private String writeOneLine() throws IOException {
        return Files.writeString(work.resolve("one.txt"), "A sentence to embed.\n").toString();
    }

    /** A flag's value in -XX:+PrintFlagsFinal's table. */
    private static String flag(String printed, String name) {
        Matcher m = Pattern.compile("\\s" + name + "\\s+=\\s+(\\S+)").matcher(printed);
        assertTrue(m.find(), "no " + name + " in the flags printed");
        return m.group(1);
    }

    /** The -Dvectorbert.plainFirstPass the launcher gave, from -XshowSettings:properties on stderr (null: none). */
    private String property() throws IOException {
        Matcher m = Pattern.compile("\\n\\s*vectorbert\\.plainFirstPass = (\\S+)").matcher(stderr());
        return m.find() ? m.group(1) : null;
    }

    private Process start(Map<String, String> env, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(launcher.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(work.toFile())
                .redirectOutput(work.resolve("stdout").toFile()).redirectError(work.resolve("stderr").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        // The JDK running the tests is the one the launcher should find (a JDK 25).
        pb.environment().put("JAVA_HOME", Path.of(ProcessHandle.current().info().command().orElseThrow()).getParent().getParent().toString());
        pb.environment().remove("VECTORBERT_AOT");
        pb.environment().putAll(env);
        return pb.start();
    }

    private String stderr() throws IOException {
        return Files.readString(work.resolve("stderr"), StandardCharsets.UTF_8);
    }

    private List<Path> partials() throws IOException {
        try (Stream<Path> files = Files.list(work)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".partial")).toList();
        }
    }
}
