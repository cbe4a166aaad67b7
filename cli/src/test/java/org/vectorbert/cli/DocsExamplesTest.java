package org.vectorbert.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.TinyTaskModels;

/**
 * Every shell example of the README and {@code docs/} runs as written, with bash, in a directory of its page's own,
 * through bin/vectorbert on the packaged jars (so it runs after {@code mvn package}, in the integration-test phase).
 * Models: the default model is the real bert-base-uncased, and the hub ids the pages name are real or tiny models
 * laid out in a Hugging Face cache with the hub offline. A block preceded by {@code <!-- not run here: why -->} is
 * one a test elsewhere or CI runs (a build, spark-submit).
 */
@Tag("heavy")
class DocsExamplesTest {
    private static final Pattern NOT_RUN = Pattern.compile("<!-- not run here: [^>]+-->\\s*$");
    /** A line that starts a server: {@code [VAR=value ...] [bin/]vectorbert serve ...}. */
    private static final Pattern SERVE = Pattern.compile("^(?:\\w+=\\S+\\s+)*(?:bin/)?vectorbert serve\\b");
    private static final Pattern PORT = Pattern.compile("--port[ =](\\d+)");
    private static final Pattern HUB_ID = Pattern.compile("--model[ =]([A-Za-z0-9][\\w.-]*/[\\w.-]+)");

    @TempDir
    Path work;

    /** A shell block of a page, with what precedes it. */
    record Block(Path page, int line, String script, boolean run) {}

    static List<Block> blocks(Path page) {
        List<Block> out = new ArrayList<>();
        String[] lines = DocsTest.read(page).split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].equals("```sh")) {
                int start = i;
                StringBuilder script = new StringBuilder();
                while (!lines[++i].equals("```")) {
                    script.append(lines[i]).append('\n');
                }
                boolean skipped = start > 0 && NOT_RUN.matcher(lines[start - 1]).find();
                out.add(new Block(page, start + 1, script.toString(), !skipped));
            }
        }
        return out;
    }

    /** The hub ids the models stand in for: real weights where the tests have them, tiny task models elsewhere. */
    private Map<String, Supplier<Path>> hubModels() {
        Map<String, Supplier<Path>> m = new LinkedHashMap<>();
        m.put("google-bert/bert-base-uncased", TestModels::bertBaseUncased);
        m.put("naver/splade-cocondenser-ensembledistil", TestModels::bertBaseUncased);   // a BERT with its MLM head, as SPLADE is
        m.put("sentence-transformers/all-MiniLM-L6-v2", org.vectorbert.convert.testing.RealModels::allMiniLm);
        m.put("intfloat/e5-small-v2", org.vectorbert.convert.testing.RealModels::allMiniLm);   // a BERT sentence model of its kind
        m.put("distilbert/distilbert-base-uncased-finetuned-sst-2-english",
                () -> tiny(d -> TinyTaskModels.sequenceClassifier(d, List.of("NEGATIVE", "POSITIVE"), "")));
        m.put("cross-encoder/nli-distilroberta-base",
                () -> tiny(d -> TinyTaskModels.sequenceClassifier(d, List.of("contradiction", "entailment", "neutral"), "")));
        m.put("SamLowe/roberta-base-go_emotions", () -> tiny(d -> TinyTaskModels.sequenceClassifier(d,
                List.of("admiration", "amusement", "anger", "annoyance", "approval", "caring", "neutral"),
                ", \"problem_type\": \"multi_label_classification\"")));
        m.put("cross-encoder/ms-marco-MiniLM-L6-v2", () -> tiny(d -> TinyTaskModels.sequenceClassifier(d, List.of("LABEL_0"), "")));
        m.put("BAAI/bge-reranker-base", () -> tiny(d -> TinyTaskModels.sequenceClassifier(d, List.of("LABEL_0"), "")));
        m.put("dslim/bert-base-NER", () -> tiny(d -> TinyTaskModels.tokenClassifier(d,
                List.of("O", "B-MISC", "I-MISC", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC"))));
        m.put("distilbert/distilbert-base-cased-distilled-squad", () -> tiny(TinyTaskModels::questionAnswerer));
        return m;
    }

    private interface Maker {
        Path make(Path dir) throws IOException;
    }

    private Path tiny(Maker maker) {
        try {
            return maker.make(Files.createTempDirectory(work, "tiny"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyShellExampleRunsAsWritten() throws Exception {
        Path repo = DocsTest.ROOT;
        assertTrue(Files.isRegularFile(repo.resolve("cli/target/vectorbert-cli.jar")), "run after mvn package");
        List<Block> blocks = DocsTest.referencePages().stream().flatMap(p -> blocks(p).stream()).toList();

        // The models: the default one under $VECTORBERT_HOME, the hub ids the pages name in a hub cache, offline.
        Path home = Files.createDirectories(work.resolve("home/models"));
        linkTree(TestModels.bertBaseUncased(), home.resolve("bert-base-uncased"));
        Path hub = Files.createDirectories(work.resolve("hub"));
        Map<String, Supplier<Path>> known = hubModels();
        List<String> unknown = new ArrayList<>();
        for (Block b : blocks) {
            Matcher id = HUB_ID.matcher(b.script());
            while (b.run() && id.find()) {
                String repoId = id.group(1);
                Path snapshot = hub.resolve("models--" + repoId.replace("/", "--"));
                if (Files.exists(snapshot)) {
                    continue;
                }
                if (!known.containsKey(repoId)) {
                    unknown.add(repo.relativize(b.page()) + ":" + b.line() + " " + repoId);
                    continue;
                }
                String commit = "0".repeat(40);
                Files.createDirectories(snapshot.resolve("refs"));
                Files.writeString(snapshot.resolve("refs/main"), commit);
                linkTree(known.get(repoId).get(), snapshot.resolve("snapshots").resolve(commit));
            }
        }
        assertEquals(List.of(), unknown, "hub ids the pages name that this test has no model for: add one to hubModels()");

        List<String> failures = new ArrayList<>();
        int ran = 0;
        for (Path page : DocsTest.referencePages()) {
            Path dir = Files.createDirectories(work.resolve("run").resolve(repo.relativize(page).toString().replace('/', '_')));
            Files.createSymbolicLink(dir.resolve("bin"), repo.resolve("bin"));   // for examples written as bin/vectorbert
            Process server = null;   // the page's own: "the server started above" of a block that only sends requests
            try {
                for (Block b : blocks(page)) {
                    if (!b.run()) {
                        continue;
                    }
                    boolean startsOne = b.script().lines().anyMatch(l -> SERVE.matcher(l.strip()).find());
                    if (startsOne && server != null) {
                        stop(server);
                        server = null;
                    } else if (!startsOne && b.script().contains("localhost:8080") && server == null) {
                        server = start(repo, dir, work.resolve("home"), hub);
                    }
                    Result r = bash(repo, dir, work.resolve("home"), hub, script(b.script()));
                    if (r.exit() != 0) {
                        failures.add(repo.relativize(page) + ":" + b.line() + " exit " + r.exit() + "\n" + b.script() + r.output());
                    }
                    ran++;
                }
            } finally {
                if (server != null) {
                    stop(server);
                }
            }
        }
        assertEquals(List.of(), failures);
        assertTrue(ran >= 20, ran + " blocks ran");
    }

    /**
     * The block as bash runs it: stop at the first failure. A server the block starts runs in the background until
     * /health answers 200, and is stopped at the next server line or when the block ends.
     */
    static String script(String block) {
        StringBuilder s = new StringBuilder("set -euo pipefail\nserver=\n"
                + "stop() { if [ -n \"$server\" ]; then kill \"$server\" 2>/dev/null; wait \"$server\" || true; server=; fi; }\n"
                + "trap stop EXIT\n");
        for (String line : block.replace("\\\n", " ").split("\n")) {
            String command = line.replaceFirst("\\s+#.*$", "").strip();
            if (SERVE.matcher(command).find()) {
                Matcher given = PORT.matcher(command);
                s.append("stop\n").append(command.replaceFirst("\\s*&$", "")).append(" &\nserver=$!\n")
                        .append(waitFor(given.find() ? given.group(1) : "8080", "$server")).append('\n');
            } else {
                s.append(line).append('\n');
            }
        }
        return s.toString();
    }

    /** Polls /health until it answers 200; fails when the process {@code pid} ends first or after three minutes. */
    private static String waitFor(String port, String pid) {
        return "for i in $(seq 900); do curl -sf -o /dev/null localhost:" + port + "/health && break; kill -0 " + pid
                + " 2>/dev/null || exit 3; sleep 0.2; done; curl -sf -o /dev/null localhost:" + port + "/health";
    }

    /** The default model served on 8080, for a page's blocks that send requests to "the server started above". */
    private static Process start(Path repo, Path dir, Path home, Path hub) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "exec bin/vectorbert serve").directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile());
        environment(pb, repo, home, hub);
        Process p = pb.start();
        Result ready = bash(repo, dir, home, hub, waitFor("8080", Long.toString(p.pid())));
        assertEquals(0, ready.exit(), "the page's server did not start: " + Files.readString(dir.resolve("server.log")));
        return p;
    }

    private static void stop(Process server) throws InterruptedException {
        server.destroy();   // SIGTERM: the server drains and exits
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor();
        }
    }

    record Result(int exit, String output) {}

    private static Result bash(Path repo, Path dir, Path home, Path hub, String script) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir.getParent(), "out", ".log");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        environment(pb, repo, home, hub);
        Process p = pb.start();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor();
            return new Result(-1, "timed out after 10 minutes\n" + Files.readString(log, StandardCharsets.UTF_8));
        }
        return new Result(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /** vectorbert on the PATH, the test's models and caches, no start-up cache recorded in the background. */
    private static void environment(ProcessBuilder pb, Path repo, Path home, Path hub) {
        Map<String, String> env = pb.environment();
        env.put("PATH", repo.resolve("bin") + ":" + env.get("PATH"));
        env.put("VECTORBERT_HOME", home.toString());
        env.put("HF_HUB_CACHE", hub.toString());
        env.put("HF_HUB_OFFLINE", "1");
        env.put("VECTORBERT_AOT", "0");
        env.put("VECTORBERT_JAVA_OPTS", "-Dvectorbert.packed=" + home.resolve("packed"));
        env.remove("JAVA_HOME");
    }

    /** The files of {@code from} as hard links under {@code to}: no copy, and nothing outside to remove. */
    static void linkTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.createLink(target, f);
                }
            }
        }
    }
}
