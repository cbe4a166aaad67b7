package org.vectorbert.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/integrations.md's Spark program compiles as a user's program would, against this module and Spark (it is not run here). */
class IntegrationsDocTest {
    @TempDir
    Path work;

    @Test
    void theSparkProgramInTheDocsCompiles() throws Exception {
        String page = Files.readString(Path.of(System.getProperty("user.dir")).resolve("../docs/integrations.md"));
        Matcher block = Pattern.compile("### In a program\\n(?:(?!\\n### ).)*?```java\\n(.*?)```", Pattern.DOTALL).matcher(page);
        if (!block.find()) {
            throw new AssertionError("docs/integrations.md has no java block under '### In a program'");
        }
        // The block's imports head the file; its statements are a method's body.
        StringBuilder imports = new StringBuilder();
        StringBuilder body = new StringBuilder();
        block.group(1).lines().forEach(line -> (line.startsWith("import ") ? imports : body).append(line).append('\n'));
        Path source = Files.writeString(work.resolve("SparkFragment.java"),
                imports + "\nclass SparkFragment {\n    static void body() {\n" + body + "    }\n}\n");
        ByteArrayOutputStream messages = new ByteArrayOutputStream();
        int exit = ToolProvider.getSystemJavaCompiler().run(null, null, new PrintStream(messages, true, StandardCharsets.UTF_8),
                "-classpath", System.getProperty("java.class.path"), "-proc:none", "-Xlint:all", "-Werror",
                "-d", work.resolve("classes").toString(), source.toString());
        assertEquals(0, exit, messages.toString(StandardCharsets.UTF_8));
    }
}
