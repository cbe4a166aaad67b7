package org.vectorbert.langchain4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * docs/integrations.md's langchain4j examples, compiled and run exactly as the page shows them.
 */
@Tag("heavy")
class IntegrationsExamplesTest {
    private static final Pattern SECTION = Pattern.compile("\n## langchain4j: `vectorbert-langchain4j`\n(.*?)\n## ", Pattern.DOTALL);
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);
    private static final Pattern CLASS_NAME = Pattern.compile("(?m)^class (\\w+)");

    @TempDir
    Path work;

    @Test
    void theLangchain4jExamplesCompileAndRun() throws Exception {
        Matcher section = SECTION.matcher(Files.readString(Path.of("..", "docs", "integrations.md")));
        assertTrue(section.find(), "docs/integrations.md has a langchain4j section");
        List<String> classes = new ArrayList<>();
        List<String> files = new ArrayList<>();
        Matcher block = JAVA_BLOCK.matcher(section.group(1));
        while (block.find()) {
            Matcher name = CLASS_NAME.matcher(block.group(1));
            assertTrue(name.find(), "every java block of the section is a whole program:\n" + block.group(1));
            classes.add(name.group(1));
            files.add(Files.writeString(work.resolve(name.group(1) + ".java"), block.group(1)).toString());
        }
        assertEquals(List.of("Langchain4jExample", "Langchain4jScoringExample"), classes);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        // -path: langchain4j's opennlp-tools jar names in its manifest a Class-Path jar that Maven does not put beside it.
        List<String> args = new ArrayList<>(List.of("-classpath", System.getProperty("java.class.path"),
                "--add-modules", "jdk.incubator.vector", "-proc:none", "-Xlint:all,-incubating,-path", "-Werror", "-d", work.toString()));
        args.addAll(files);
        StringWriter diagnostics = new StringWriter();
        int exit = javac.run(null, null, new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                diagnostics.write(b);
            }
        }, true, StandardCharsets.UTF_8), args.toArray(String[]::new));
        assertEquals(0, exit, diagnostics.toString());

        assertEquals("Paris is the capital of France.\n", runMain("Langchain4jExample", TestModels.miniLmJar()));
        Path reranker = TinyTaskModels.sequenceClassifier(work.resolve("reranker"), List.of("LABEL_0"), "");
        String scores = runMain("Langchain4jScoringExample", reranker.toString());
        assertTrue(scores.matches("0\\.\\d{4} 0\\.\\d{4}\n"), scores);
    }

    private String runMain(String className, String... args) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {work.toUri().toURL()}, getClass().getClassLoader())) {
            Method main = loader.loadClass(className).getMethod("main", String[].class);
            main.setAccessible(true);   // the class is package-private, in the unnamed package
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) args);
        } finally {
            System.setOut(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
