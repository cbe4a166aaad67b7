package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.TinyTaskModels;

/** The library examples of the docs (every {@code public class} of a ```java block), compiled and run exactly as written. */
class LibraryExamplesTest {
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS_NAME = Pattern.compile("public class (\\w+)");

    @TempDir
    Path work;

    @Test
    @Tag("heavy")
    void theLibraryExamplesCompileAndRun() throws Exception {
        List<String> classes = new ArrayList<>();
        List<String> files = new ArrayList<>();
        for (Path page : DocsTest.referencePages()) {
            Matcher block = JAVA_BLOCK.matcher(DocsTest.read(page));
            while (block.find()) {
                Matcher name = CLASS_NAME.matcher(block.group(1));
                if (name.find()) {
                    classes.add(name.group(1));
                    files.add(Files.writeString(work.resolve(name.group(1) + ".java"), block.group(1)).toString());
                }
            }
        }
        assertEquals(List.of("AttentionExample", "EmbeddingsExample", "FillMaskExample", "ServerExample", "TasksExample"),
                classes.stream().sorted().toList(), "the public example classes of README.md and docs/");

        assertEquals(0, javac(files, work, "-Werror"), diagnostics);

        // The examples use the default model: point the cache at the test's copy of bert-base-uncased.
        Path home = work.resolve("home");
        Files.createDirectories(home.resolve("models"));
        Path model = Files.createDirectories(home.resolve("models/bert-base-uncased"));
        try (var modelFiles = Files.list(TestModels.bertBaseUncased())) {
            for (Path f : modelFiles.toList()) {
                Files.createLink(model.resolve(f.getFileName()), f);   // hard links: no copy, nothing outside to unlink
            }
        }
        Path classifier = TinyTaskModels.sequenceClassifier(work.resolve("classifier"), List.of("NEGATIVE", "POSITIVE"), "");
        Path reranker = TinyTaskModels.sequenceClassifier(work.resolve("reranker"), List.of("LABEL_0"), "");
        String tasks = runMain("TasksExample", classifier.toString(), reranker.toString());
        assertTrue(tasks.matches("(NEGATIVE|POSITIVE) 0\\.\\d{4}\n(NEGATIVE|POSITIVE) 0\\.\\d{4}\n[01] 0\\.\\d{4}\n[01] 0\\.\\d{4}\n"), tasks);
        String[] output = new String[4];
        ModelCommandsTest.withProperties(Map.of("vectorbert.home", home.toString()), () -> {
            output[0] = runMain("FillMaskExample");
            output[1] = runMain("EmbeddingsExample");
            output[2] = runMain("ServerExample");
            output[3] = runMain("AttentionExample");
        });
        assertEquals("200 true\n", output[2]);
        assertEquals("13 tokens, 12 layers, queries of 64\n", output[3]);
        assertTrue(output[0].startsWith("capital  0.9969  paris is the capital of france.\n"), output[0]);
        assertEquals(5, output[0].lines().count(), output[0]);
        assertTrue(output[1].matches("768 dimensions, cosine 0\\.[0-9]{3}\n"), output[1]);
    }

    /**
     * The fragments of docs/library.md (Java blocks that declare no class: the API at a glance, the tasks, the loader,
     * the tokenizer) compile as the body of a method, with the API packages imported: the calls they show exist.
     * Their model names are the hub's, so they compile here and run in a user's program.
     */
    @Test
    void theLibraryFragmentsCompile() throws Exception {
        List<String> files = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(DocsTest.read(DocsTest.ROOT.resolve("docs/library.md")));
        while (block.find()) {
            if (!Pattern.compile("(?m)^(public )?(final )?class ").matcher(block.group(1)).find()) {
                String name = "Fragment" + files.size();
                files.add(Files.writeString(work.resolve(name + ".java"), """
                        import java.nio.file.Path;
                        import java.util.List;
                        import java.util.Set;
                        import org.vectorbert.convert.TfImport;
                        import org.vectorbert.engine.*;
                        import org.vectorbert.loader.BertCheckpoint;
                        import org.vectorbert.loader.BertConfig;
                        import org.vectorbert.loader.ModelResolver;
                        import org.vectorbert.loader.Tensor;
                        import org.vectorbert.tokenizer.*;

                        class %s {
                            static void body() throws Exception {
                        %s
                            }
                        }
                        """.formatted(name, block.group(1))).toString());
            }
        }
        assertTrue(files.size() >= 3, files.size() + " fragments");
        assertEquals(0, javac(files, work.resolve("fragments")), diagnostics);
    }

    private String diagnostics = "";

    /**
     * javac over these files into {@code out}, as a user's program compiles them: everything on the class path (the
     * tests run vectorbert's modules on the module path). Its messages are left in {@link #diagnostics}.
     */
    private int javac(List<String> files, Path out, String... extra) {
        String classPath = System.getProperty("java.class.path") + java.io.File.pathSeparator + System.getProperty("jdk.module.path", "");
        List<String> args = new ArrayList<>(List.of("-classpath", classPath,
                "--add-modules", "jdk.incubator.vector", "-proc:none", "-Xlint:all,-incubating", "-d", out.toString()));
        args.addAll(List.of(extra));
        args.addAll(files);
        StringWriter messages = new StringWriter();
        int exit = ToolProvider.getSystemJavaCompiler().run(null, null, new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                messages.write(b);
            }
        }, true, StandardCharsets.UTF_8), args.toArray(String[]::new));
        diagnostics = messages.toString();
        return exit;
    }

    private String runMain(String className, String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {work.toUri().toURL()}, getClass().getClassLoader())) {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            loader.loadClass(className).getMethod("main", String[].class).invoke(null, (Object) args);
        } catch (ReflectiveOperationException | java.io.IOException e) {
            throw new AssertionError(className + " failed", e);
        } finally {
            System.setOut(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
