package org.vectorbert.convert;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.vectorbert.loader.LoaderException;

/**
 * Fetches an artifact with the Maven command on the PATH, so repositories, mirrors, proxies and
 * credentials come from the user's own Maven settings and no host is named here.
 */
final class MavenFetch {
    private static final String DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

    private MavenFetch() {}

    /** Copies {@code group:artifact:version} into {@code directory} and returns the jar's path. */
    static Path fetch(String coordinates, String fileName, Path directory, Consumer<String> log) {
        List<String> command = new ArrayList<>(List.of(mavenCommand(), "-B", "-ntp", "-Dstyle.color=never",
                DEPENDENCY_PLUGIN + ":copy", "-Dartifact=" + coordinates, "-DoutputDirectory=" + directory));
        log.accept("fetching " + coordinates + " with Maven (about 400 MB, once)");
        Process process;
        try {
            Files.createDirectories(directory);
            process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new LoaderException("cannot run Maven ('" + command.getFirst() + "'): " + e.getMessage()
                    + "; install Maven or put it on the PATH");
        }
        List<String> output = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                output.add(line);
                if (line.contains("ERROR") || line.contains("Copying")) {
                    log.accept("mvn: " + line);
                }
            }
            int exit = process.waitFor();
            Path jar = directory.resolve(fileName);
            if (exit != 0 || !Files.isRegularFile(jar)) {
                throw new LoaderException("Maven could not fetch " + coordinates + " (exit " + exit + "); its last words: "
                        + String.join(" | ", output.subList(Math.max(0, output.size() - 3), output.size())));
            }
            return jar;
        } catch (IOException e) {
            throw new LoaderException("reading Maven's output failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            process.destroy();
            Thread.currentThread().interrupt();
            throw new LoaderException("interrupted while Maven fetched " + coordinates);
        }
    }

    private static String mavenCommand() {
        String override = System.getenv("VECTORBERT_MVN");
        return override != null && !override.isBlank() ? override : "mvn";
    }
}
