package org.vectorbert.springai;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * docs/integrations.md's "Spring AI" section, its properties and its service compiled and run as written, in a Spring
 * context with the auto-configuration. Only the model is swapped: the page names the hub id, which cannot be
 * downloaded here, and the test the same model from the langchain4j jar.
 */
@Tag("heavy")
class SpringAiDocsExampleTest {
    private static final String SECTION = "## Spring AI: `vectorbert-spring-ai`";

    @TempDir
    Path work;

    @Test
    void theSectionsPropertiesAndServiceWorkAsWritten() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "integrations.md"));
        int start = page.indexOf(SECTION);
        assertFalse(start < 0, "docs/integrations.md has no section " + SECTION);
        int end = page.indexOf("\n## ", start + SECTION.length());
        String section = page.substring(start, end < 0 ? page.length() : end);

        Properties written = new Properties();
        written.load(new StringReader(block(section, "properties")));
        assertEquals("sentence-transformers/all-MiniLM-L6-v2", written.getProperty("vectorbert.model"));
        List<String> properties = new ArrayList<>();
        for (String name : written.stringPropertyNames()) {
            properties.add(name + "=" + (name.equals("vectorbert.model") ? MiniLmJar.path().toString() : written.getProperty(name)));
        }

        String source = block(section, "java");
        Matcher className = Pattern.compile("\nclass (\\w+)").matcher(source);
        assertTrue(className.find(), "the example declares no class");
        Path file = Files.writeString(work.resolve(className.group(1) + ".java"), source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        StringWriter diagnostics = new StringWriter();
        boolean compiled = javac.getTask(diagnostics, null, null,
                List.of("-classpath", System.getProperty("java.class.path"), "-proc:none", "-Xlint:all", "-Werror", "-d", work.toString()),
                null, javac.getStandardFileManager(null, null, null).getJavaFileObjects(file)).call();
        assertEquals("", diagnostics.toString());
        assertTrue(compiled);

        try (URLClassLoader loader = new URLClassLoader(new URL[] {work.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> service = loader.loadClass(className.group(1));
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(VectorbertEmbeddingAutoConfiguration.class))
                    .withPropertyValues(properties.toArray(String[]::new)).withBean(service).run(context -> {
                        assertFalse(context.getStartupFailure() != null, () -> "failed: " + context.getStartupFailure());
                        Object finder = context.getBean(service);
                        assertEquals("The library opens at nine and closes at six.", call(finder, "closest", "When does it shut in the evening?"));
                        assertEquals("Books may be borrowed for three weeks and renewed twice.", call(finder, "closest", "How long can I keep a novel?"));
                        assertEquals("The reading room is on the second floor.", call(finder, "closest", "Where can I sit and study?"));
                        assertEquals(384, call(finder, "dimensions"));
                    });
        }
    }

    private static Object call(Object target, String method, Object... args) throws ReflectiveOperationException {
        for (var m : target.getClass().getDeclaredMethods()) {
            if (m.getName().equals(method) && m.getParameterCount() == args.length) {
                m.setAccessible(true);
                return m.invoke(target, args);
            }
        }
        throw new NoSuchMethodException(method);
    }

    /** The one fenced block of {@code language} in {@code section}. */
    private static String block(String section, String language) {
        Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(section);
        assertTrue(m.find(), "no " + language + " block in the section");
        String found = m.group(1);
        assertFalse(m.find(), "more than one " + language + " block in the section");
        return found;
    }
}
