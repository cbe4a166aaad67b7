package org.vectorbert.loader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vectorbert.loader.testing.HubImitation;

/** {@link ModelResolver}: local directories, the Hugging Face cache, and downloads from a hub imitation on loopback. */
class ModelResolverTest {
    private static final String COMMIT = "0123456789abcdef0123456789abcdef01234567";

    @TempDir
    Path work;

    HubImitation server;
    Path cache;
    final List<String> log = new ArrayList<>();
    final ModelResolver.Listener listener = new ModelResolver.Listener() {
        @Override
        public void log(String message) {
            log.add(message);
        }

        @Override
        public void progress(String task, long done, long total) {}
    };

    /** A model directory: real-looking small files and 3 MB of "weights", enough to be cut mid-way. */
    Map<String, byte[]> files;

    @BeforeEach
    void start() throws IOException {
        server = new HubImitation();
        cache = work.resolve("hf-cache");
        byte[] weights = new byte[3 << 20];
        new Random(7).nextBytes(weights);
        files = new HashMap<>(Map.of(
                "config.json", "{\"model_type\": \"bert\"}".getBytes(StandardCharsets.UTF_8),
                "vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n".getBytes(StandardCharsets.UTF_8),
                "tokenizer_config.json", "{\"do_lower_case\": true}".getBytes(StandardCharsets.UTF_8),
                "model.safetensors", weights));
        server.add("acme/tiny-bert", new HubImitation.Repo(COMMIT, files, null));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    ModelResolver.HubSettings hub(String token) {
        return new ModelResolver.HubSettings(cache, server.endpoint(), token, false);
    }

    private void assertSnapshotHoldsTheFiles(Path snapshot) throws IOException {
        assertEquals(cache.resolve("models--acme--tiny-bert/snapshots/" + COMMIT), snapshot);
        for (var f : files.entrySet()) {
            assertEquals(-1L, Files.mismatch(snapshot.resolve(f.getKey()), write(f.getValue())), f.getKey());
        }
        assertTrue(Files.isSymbolicLink(snapshot.resolve("model.safetensors")), "snapshots link to blobs, as huggingface_hub lays them out");
        assertEquals(cache.resolve("models--acme--tiny-bert/blobs/" + HubImitation.sha256(files.get("model.safetensors"))),
                snapshot.resolve("model.safetensors").toRealPath());
    }

    private Path write(byte[] bytes) throws IOException {
        return Files.write(Files.createTempFile(work, "expected", ""), bytes);
    }

    @Test
    void downloadsIntoTheHubCacheLayoutAndThenRunsOffline() throws IOException {
        Path snapshot = ModelResolver.resolve("acme/tiny-bert", hub(null), listener);
        assertSnapshotHoldsTheFiles(snapshot);
        assertEquals(COMMIT, Files.readString(cache.resolve("models--acme--tiny-bert/refs/main")));
        assertTrue(server.requests.contains("HEAD /acme/tiny-bert/resolve/main/config.json"), server.requests.toString());
        assertTrue(server.requests.contains("HEAD /acme/tiny-bert/resolve/" + COMMIT + "/model.safetensors"),
                "after the first answer every file comes from the same commit");
        assertTrue(server.requests.stream().anyMatch(r -> r.startsWith("GET /blobs/")), "the large file comes from the CDN");
        assertTrue(server.requests.contains("HEAD /acme/tiny-bert/resolve/" + COMMIT + "/tokenizer.json"),
                "optional files are asked for; their 404 is no error");

        int before = server.requests.size();
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert@" + COMMIT, hub(null), listener));
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert",
                new ModelResolver.HubSettings(cache, server.endpoint(), null, true), listener));
        assertEquals(before, server.requests.size(), "a complete cached model is used without asking the hub");
    }

    @Test
    void aConnectionDroppedMidFileIsResumedWithARangeRequest() throws IOException {
        server.drops.set(2);
        Path snapshot = ModelResolver.resolve("acme/tiny-bert", hub(null), listener);
        assertSnapshotHoldsTheFiles(snapshot);
        List<String> gets = server.requests.stream().filter(r -> r.startsWith("GET /blobs/")).toList();
        assertEquals(3, gets.size(), gets.toString());
        assertFalse(gets.get(0).contains("Range"));
        // The second GET asks for the rest from what arrived, which is at most the half the server sent.
        long resumedAt = Long.parseLong(gets.get(1).replaceAll(".* bytes=(\\d+)-$", "$1"));
        assertTrue(resumedAt > 0 && resumedAt <= files.get("model.safetensors").length / 2, gets.toString());
        assertTrue(log.stream().anyMatch(l -> l.contains("resuming")), log.toString());
    }

    @Test
    void aDownloadLeftIncompleteByAnEarlierRunIsResumed() throws IOException {
        byte[] weights = files.get("model.safetensors");
        String sha = HubImitation.sha256(weights);
        Path blobs = Files.createDirectories(cache.resolve("models--acme--tiny-bert/blobs"));
        Files.write(blobs.resolve(sha + ".incomplete"), java.util.Arrays.copyOf(weights, 1_000_000));

        assertSnapshotHoldsTheFiles(ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        List<String> gets = server.requests.stream().filter(r -> r.startsWith("GET /blobs/")).toList();
        assertEquals(List.of("GET /blobs/" + sha + " bytes=1000000-"), gets);
        assertFalse(Files.exists(blobs.resolve(sha + ".incomplete")));
    }

    @Test
    void giveUpAfterRepeatedDropsKeepingWhatArrivedForTheNextRun() throws IOException {
        server.drops.set(100);
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        assertTrue(e.getMessage().startsWith("downloading model.safetensors failed 4 times"), e.getMessage());
        assertTrue(e.getMessage().contains("run again to resume"), e.getMessage());
        assertNull(HubCache.complete(cache, ModelResolver.HubId.parse("acme/tiny-bert")), "nothing half-done is trusted");

        server.drops.set(0);
        assertSnapshotHoldsTheFiles(ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
    }

    @Test
    void aRenamedRepositoryIsFollowedAndCachedUnderTheNameAsked() throws IOException {
        server.rename("tiny-bert", "acme/tiny-bert");
        Path snapshot = ModelResolver.resolve("tiny-bert", hub(null), listener);
        assertEquals(cache.resolve("models--tiny-bert/snapshots/" + COMMIT), snapshot);
        assertTrue(server.requests.contains("HEAD /tiny-bert/resolve/main/config.json"));
        assertTrue(server.requests.contains("HEAD /acme/tiny-bert/resolve/main/config.json"));
    }

    @Test
    void privateModelsNeedTheTokenWhichNeverReachesTheCdn() throws IOException {
        server.add("acme/private-bert", new HubImitation.Repo(COMMIT, files, "s3cret"));
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/private-bert", hub(null), listener));
        assertTrue(e.getMessage().contains("HF_TOKEN"), e.getMessage());

        server.requests.clear();
        Path snapshot = ModelResolver.resolve("acme/private-bert", hub("s3cret"), listener);
        assertTrue(Files.isRegularFile(snapshot.resolve("model.safetensors")));
        assertTrue(server.requests.stream().filter(r -> r.startsWith("HEAD /acme/private-bert")).allMatch(r -> r.endsWith(" auth")));
        assertTrue(server.requests.stream().filter(r -> r.startsWith("GET /blobs/")).noneMatch(r -> r.endsWith(" auth")),
                server.requests.toString());
    }

    @Test
    void aMissingModelListsWhereItLooked() {
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/no-such-model", hub(null), listener));
        assertTrue(e.getMessage().startsWith("model 'acme/no-such-model' not found: no directory "), e.getMessage());
        assertTrue(e.getMessage().contains("not in the Hugging Face cache " + cache.resolve("models--acme--no-such-model")), e.getMessage());
        assertTrue(e.getMessage().contains("the hub " + server.endpoint() + " has no config.json"), e.getMessage());

        LoaderException revision = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/tiny-bert@v9", hub(null), listener));
        assertTrue(revision.getMessage().contains("at revision v9"), revision.getMessage());

        LoaderException offline = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/tiny-bert",
                new ModelResolver.HubSettings(cache, server.endpoint(), null, true), listener));
        assertTrue(offline.getMessage().endsWith("HF_HUB_OFFLINE is set, so the hub was not asked"), offline.getMessage());

        LoaderException notAnId = assertThrows(LoaderException.class, () -> ModelResolver.resolve("/no/such/dir", hub(null), listener));
        assertEquals("model '/no/such/dir' not found: no directory /no/such/dir; it is not a Hugging Face model id either "
                + "(org/name[@revision])", notAnId.getMessage());

        server.close();
        LoaderException unreachable = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        assertTrue(unreachable.getMessage().startsWith("model 'acme/tiny-bert' not found: no directory "), unreachable.getMessage());
        assertTrue(unreachable.getMessage().contains("; cannot reach " + server.endpoint()), unreachable.getMessage());
    }

    @Test
    void aModelWithoutSafetensorsIsRefusedByName() {
        Map<String, byte[]> torchOnly = new HashMap<>(files);
        torchOnly.put("pytorch_model.bin", torchOnly.remove("model.safetensors"));
        server.add("acme/torch-bert", new HubImitation.Repo(COMMIT, torchOnly, null));
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/torch-bert", hub(null), listener));
        assertTrue(e.getMessage().contains("has no model.safetensors or model.safetensors.index.json"), e.getMessage());
    }

    @Test
    void cachedSnapshotsAreFoundByBranchOrCommitAndPartialOnesAreCompleted() throws IOException {
        Path repo = cache.resolve("models--acme--tiny-bert");
        Path snapshot = Files.createDirectories(repo.resolve("snapshots").resolve(COMMIT));
        Files.write(snapshot.resolve("config.json"), files.get("config.json"));
        Files.writeString(Files.createDirectories(repo.resolve("refs")).resolve("v1.0"), COMMIT + "\n");
        assertNull(HubCache.complete(cache, ModelResolver.HubId.parse("acme/tiny-bert@v1.0")), "config.json alone is no model");

        for (String f : List.of("vocab.txt", "model.safetensors")) {
            Files.write(snapshot.resolve(f), files.get(f));
        }
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert@v1.0", hub(null), listener));
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert@" + COMMIT, hub(null), listener));
        assertTrue(server.requests.isEmpty());

        Files.delete(snapshot.resolve("model.safetensors"));
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        assertTrue(Files.isRegularFile(snapshot.resolve("model.safetensors")));
        assertFalse(server.requests.contains("GET /acme/tiny-bert/resolve/" + COMMIT + "/config.json"), "files present are kept");
    }

    @Test
    void localDirectoriesComeFirst() throws IOException {
        Path dir = Files.createDirectories(work.resolve("acme/tiny-bert"));
        Files.writeString(dir.resolve("config.json"), "{}");
        String before = System.getProperty("user.dir");
        assertEquals(dir, ModelResolver.resolve(dir.toString(), hub(null), listener));
        assertEquals(before, System.getProperty("user.dir"));

        Path empty = Files.createDirectories(work.resolve("empty"));
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve(empty.toString(), hub(null), listener));
        // The checkpoints it is not either (TensorFlow) are the converters' to name: TfImportTest.
        assertTrue(e.getMessage().contains("is neither a Hugging Face model directory (no config.json)"), e.getMessage());
    }

    @Test
    void idsParseAsTheHubSpellsThem() {
        assertEquals(new ModelResolver.HubId("bert-base-uncased", "main"), ModelResolver.HubId.parse("bert-base-uncased"));
        assertEquals(new ModelResolver.HubId("google-bert/bert-base-uncased", "refs/pr/1"),
                ModelResolver.HubId.parse("google-bert/bert-base-uncased@refs/pr/1"));
        for (String bad : List.of("", "/abs", "a/b/c", "../x", "a b", "org/name@", "-x")) {
            assertNull(ModelResolver.HubId.parse(bad), bad);
        }
    }
}
