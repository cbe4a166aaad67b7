package org.vectorbert.explorer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The pages in Debian's headless chromium, driven by playwright-core (tools/browser-test) with the
 * network off: no console error, no request, every view drawn, layer and head switched, a token
 * hovered, the neuron view opened, a PNG saved, screenshots in target/browser (the README's come
 * from here). Needs /usr/bin/chromium ({@code apt-get install chromium}; $CHROMIUM names another)
 * and Node.js; npm installs the driver on first use.
 */
@Tag("heavy")
class BrowserTest {
    static final Path TOOL = Path.of("..", "tools", "browser-test").toAbsolutePath().normalize();
    static final Path OUT = Path.of("target", "browser").toAbsolutePath();

    @BeforeAll
    static void driver() throws Exception {
        Path chromium = Path.of(System.getenv().getOrDefault("CHROMIUM", "/usr/bin/chromium"));
        if (!Files.isExecutable(chromium)) {
            fail("the browser tests need Debian's chromium at " + chromium + ": apt-get install chromium (or set $CHROMIUM)");
        }
        if (!Files.isDirectory(TOOL.resolve("node_modules/playwright-core"))) {
            run(List.of("npm", "ci", "--no-audit", "--no-fund"), 300);
        }
        Files.createDirectories(OUT);
    }

    @Test
    void seedPairInEveryView() throws Exception {
        AttentionRun run = Seed.pair();
        Path page = OUT.resolve("seed.html");
        AttentionPage.write(run, Selection.all(run), View.ALL, page);
        String findings = run(List.of("node", "attention.mjs", "seed", page.toString(), OUT.toString()), 300);
        System.out.println("seed page: " + findings);
        assertTrue(findings.contains("\"failures\":[]"), findings);
        for (String shot : List.of("attention-head-view.png", "attention-model-view.png", "attention-model-zoom.png",
                "attention-neuron-view.png", "saved-attention-neuron-layer0-head8.png")) {
            assertTrue(Files.size(OUT.resolve(shot)) > 10_000, shot);
        }
    }

    @Test
    void fiveHundredTwelveTokensOpenQuickly() throws Exception {
        AttentionRun run = Seed.ofLength(512);
        Path page = OUT.resolve("long.html");
        AttentionPage.write(run, Selection.all(run), View.ALL, page);
        String findings = run(List.of("node", "attention.mjs", "long", page.toString(), OUT.toString()), 600);
        System.out.printf("512-token page (%.1f MB): %s%n", Files.size(page) / 1e6, findings);
        assertTrue(findings.contains("\"failures\":[]"), findings);
        assertTrue(findings.contains("\"tokens\":512"), findings);
    }

    /** Runs a command in tools/browser-test and returns its standard output; fails on a non-zero exit. */
    static String run(List<String> command, int seconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(TOOL.toFile()).redirectErrorStream(false)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(command + " took over " + seconds + " s");
        }
        String text = new String(out, StandardCharsets.UTF_8).strip();
        assertEquals(0, p.exitValue(), command + " failed: " + text);
        return text;
    }
}
