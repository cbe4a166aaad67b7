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
        assertTrue(server.requests.contains("HEAD /acme/tiny-bert/resolve/" + COMMIT + "/sparse_linear.pt"), "bge-m3's heads are asked for");
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
    void aModelWithPyTorchWeightsOnlyIsFetchedAndOneWithNoWeightsIsRefusedByName() {
        Map<String, byte[]> torchOnly = new HashMap<>(files);
        torchOnly.put("pytorch_model.bin", torchOnly.remove("model.safetensors"));
        server.add("acme/torch-bert", new HubImitation.Repo(COMMIT, torchOnly, null));
        Path snapshot = ModelResolver.resolve("acme/torch-bert", hub(null), listener);
        assertTrue(Files.isRegularFile(snapshot.resolve("pytorch_model.bin")), "pytorch_model.bin was fetched");
        assertEquals(snapshot, HubCache.complete(cache, ModelResolver.HubId.parse("acme/torch-bert")), "and the snapshot counts as whole");

        Map<String, byte[]> none = new HashMap<>(files);
        none.remove("model.safetensors");
        server.add("acme/no-weights", new HubImitation.Repo(COMMIT, none, null));
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/no-weights", hub(null), listener));
        assertTrue(e.getMessage().contains("has no model.safetensors, model.safetensors.index.json, pytorch_model.bin or "
                + "pytorch_model.bin.index.json"), e.getMessage());
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
        // Never asked for its sentence-transformers files: they are asked for once, at the snapshot's commit.
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert@v1.0", hub(null), listener));
        assertEquals(List.of("HEAD /acme/tiny-bert/resolve/" + COMMIT + "/sentence_bert_config.json",
                "HEAD /acme/tiny-bert/resolve/" + COMMIT + "/config_sentence_transformers.json",
                "HEAD /acme/tiny-bert/resolve/" + COMMIT + "/modules.json"), server.requests);
        assertTrue(Files.isRegularFile(repo.resolve(".no_exist").resolve(COMMIT).resolve("modules.json")), "the hub's answer is kept");
        server.requests.clear();
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert@v1.0", hub(null), listener));
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert@" + COMMIT, hub(null), listener));
        assertTrue(server.requests.isEmpty());

        Files.delete(snapshot.resolve("model.safetensors"));
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        assertTrue(Files.isRegularFile(snapshot.resolve("model.safetensors")));
        assertFalse(server.requests.contains("GET /acme/tiny-bert/resolve/" + COMMIT + "/config.json"), "files present are kept");
    }

    /** The model's files with 1 kB of weights, for tests that need no large file. */
    private Map<String, byte[]> small() {
        Map<String, byte[]> small = new HashMap<>(files);
        small.put("model.safetensors", java.util.Arrays.copyOf(files.get("model.safetensors"), 1024));
        return small;
    }

    /** all-MiniLM-L6-v2's layout: mean pooling in 1_Pooling, a Normalize module, a max_seq_length. */
    private Map<String, byte[]> sentenceTransformersFiles(String poolingPath) {
        Map<String, byte[]> st = small();
        st.put("modules.json", ("[{\"idx\": 0, \"name\": \"0\", \"path\": \"\", \"type\": \"sentence_transformers.models.Transformer\"},"
                + " {\"idx\": 1, \"name\": \"1\", \"path\": \"" + poolingPath + "\", \"type\": \"sentence_transformers.models.Pooling\"},"
                + " {\"idx\": 2, \"name\": \"2\", \"path\": \"2_Normalize\", \"type\": \"sentence_transformers.models.Normalize\"}]")
                .getBytes(StandardCharsets.UTF_8));
        st.put(poolingPath + "/config.json", ("{\"word_embedding_dimension\": 384, \"pooling_mode_cls_token\": false,"
                + " \"pooling_mode_mean_tokens\": true, \"pooling_mode_max_tokens\": false}").getBytes(StandardCharsets.UTF_8));
        st.put("sentence_bert_config.json", "{\"max_seq_length\": 256, \"do_lower_case\": false}".getBytes(StandardCharsets.UTF_8));
        return st;
    }

    private static void assertMeanPooledNormalised256(Path snapshot) {
        SentenceTransformersConfig st = SentenceTransformersConfig.read(snapshot).orElseThrow();
        assertEquals(List.of("mean"), st.poolingModes());
        assertTrue(st.normalize());
        assertEquals(256, st.maxSeqLength());
        DeclaredEmbedding declared = DeclaredEmbedding.of(snapshot, 512, "the tokenizer's model_max_length", false);
        assertEquals(List.of("mean"), declared.pooling());
        assertEquals("the Pooling module's config.json", declared.poolingFrom());
        assertTrue(declared.normalize());
        assertEquals(256, declared.maxTokens());
        assertEquals("sentence_bert_config.json's max_seq_length", declared.maxTokensFrom());
    }

    @Test
    void sentenceTransformersSettingsAreDownloadedWithTheModel() throws IOException {
        Map<String, byte[]> st = sentenceTransformersFiles("1_Pooling");
        server.add("acme/minilm", new HubImitation.Repo(COMMIT, st, null));
        Path snapshot = ModelResolver.resolve("acme/minilm", hub(null), listener);
        for (String f : List.of("modules.json", "1_Pooling/config.json", "sentence_bert_config.json")) {
            assertEquals(-1L, Files.mismatch(snapshot.resolve(f), write(st.get(f))), f);
        }
        assertTrue(Files.isSymbolicLink(snapshot.resolve("1_Pooling/config.json")), "linked to its blob like the others");
        assertFalse(server.requests.stream().anyMatch(r -> r.contains("2_Normalize")), "Normalize has no files: " + server.requests);
        assertTrue(HubCache.knownAbsent(snapshot, "config_sentence_transformers.json"));
        assertMeanPooledNormalised256(snapshot);

        server.requests.clear();
        assertEquals(snapshot, ModelResolver.resolve("acme/minilm", hub(null), listener));
        assertTrue(server.requests.isEmpty(), server.requests.toString());
    }

    @Test
    void aSnapshotCachedWithoutTheSentenceTransformersFilesGetsThemOnceAndOnlyThem() throws IOException {
        Map<String, byte[]> st = sentenceTransformersFiles("1_Pooling");
        server.add("acme/minilm", new HubImitation.Repo(COMMIT, st, null));
        // As an older vectorbert, or transformers alone, left it: config, weights and tokenizer at refs/main's commit.
        Path repo = cache.resolve("models--acme--minilm");
        Path snapshot = Files.createDirectories(repo.resolve("snapshots").resolve(COMMIT));
        for (String f : List.of("config.json", "vocab.txt", "tokenizer_config.json", "model.safetensors")) {
            Files.write(snapshot.resolve(f), st.get(f));
        }
        Files.writeString(Files.createDirectories(repo.resolve("refs")).resolve("main"), COMMIT);

        var offline = new ModelResolver.HubSettings(cache, server.endpoint(), null, true);
        assertEquals(snapshot, ModelResolver.resolve("acme/minilm", offline, listener));
        assertTrue(server.requests.isEmpty(), "HF_HUB_OFFLINE: the snapshot is used as it is");
        assertTrue(SentenceTransformersConfig.read(snapshot).isEmpty());

        assertEquals(snapshot, ModelResolver.resolve("acme/minilm", hub(null), listener));
        String prefix = "/acme/minilm/resolve/" + COMMIT + "/";
        assertTrue(server.requests.stream().allMatch(r -> r.contains(prefix)), "at the cached commit, never main: " + server.requests);
        assertEquals(java.util.Set.of("sentence_bert_config.json", "config_sentence_transformers.json", "modules.json", "1_Pooling/config.json"),
                server.requests.stream().map(r -> r.substring(r.indexOf(prefix) + prefix.length())).collect(java.util.stream.Collectors.toSet()),
                "only the sentence-transformers files are asked for");
        assertMeanPooledNormalised256(snapshot);
        server.requests.clear();
        assertEquals(snapshot, ModelResolver.resolve("acme/minilm", hub(null), listener));
        assertTrue(server.requests.isEmpty(), server.requests.toString());
    }

    @Test
    void aCachedSnapshotIsStillUsedWhenTheHubCannotBeAskedForTheSentenceTransformersFiles() throws IOException {
        Path repo = cache.resolve("models--acme--tiny-bert");
        Path snapshot = Files.createDirectories(repo.resolve("snapshots").resolve(COMMIT));
        for (String f : List.of("config.json", "vocab.txt", "model.safetensors")) {
            Files.write(snapshot.resolve(f), files.get(f));
        }
        Files.writeString(Files.createDirectories(repo.resolve("refs")).resolve("main"), COMMIT);
        server.close();
        assertEquals(snapshot, ModelResolver.resolve("acme/tiny-bert", hub(null), listener));
        assertTrue(log.stream().anyMatch(l -> l.startsWith("using the cached acme/tiny-bert without its sentence-transformers files")
                && l.contains("cannot reach " + server.endpoint())), log.toString());
    }

    @Test
    void aModulePathOutsideTheModelIsRefused() throws IOException {
        for (String path : List.of("../../escaped", "1_Pooling/../../escaped", "/tmp/escaped", "..\\escaped")) {
            String name = "acme/evil" + Integer.toHexString(path.hashCode());
            Map<String, byte[]> st = sentenceTransformersFiles("1_Pooling");
            st.put("modules.json", ("[{\"idx\": 1, \"name\": \"1\", \"path\": \"" + path.replace("\\", "\\\\")
                    + "\", \"type\": \"sentence_transformers.models.Pooling\"}]").getBytes(StandardCharsets.UTF_8));
            server.add(name, new HubImitation.Repo(COMMIT, st, null));
            server.requests.clear();
            LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve(name, hub(null), listener));
            assertTrue(e.getMessage().endsWith("modules.json: module '1' has the path '" + path
                    + "', which is not a relative path inside the model directory; refused"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"));
            assertTrue(server.requests.stream().noneMatch(r -> r.contains("escaped")), server.requests.toString());
            // Asked again, it is refused again rather than trusted half-done.
            assertThrows(LoaderException.class, () -> ModelResolver.resolve(name, hub(null), listener));
        }
        try (var walk = Files.walk(work)) {
            assertTrue(walk.noneMatch(p -> p.getFileName().toString().equals("escaped")));
        }
        assertTrue(HubCache.isInside("1_Pooling"));
        assertTrue(HubCache.isInside(""));
        assertFalse(HubCache.isInside("C:/Windows"));
    }

    @Test
    void theOlderTokenizerFilesAreFetchedOnlyWhenTheyAreTheTokenizer() throws IOException {
        Map<String, byte[]> bpe = small();
        bpe.remove("vocab.txt");
        bpe.put("vocab.json", "{\"<s>\": 0, \"a\": 1}".getBytes(StandardCharsets.UTF_8));
        bpe.put("merges.txt", "#version: 0.2\n".getBytes(StandardCharsets.UTF_8));
        bpe.put("sentencepiece.bpe.model", new byte[] {1, 2, 3});
        server.add("acme/roberta", new HubImitation.Repo(COMMIT, bpe, null));
        Path roberta = ModelResolver.resolve("acme/roberta", hub(null), listener);
        assertTrue(Files.isRegularFile(roberta.resolve("vocab.json")) && Files.isRegularFile(roberta.resolve("merges.txt")));
        assertFalse(server.requests.stream().anyMatch(r -> r.contains("sentencepiece")), "vocab.json and merges.txt come first");

        Map<String, byte[]> spm = small();
        spm.remove("vocab.txt");
        spm.put("spiece.model", new byte[] {1, 2, 3});
        server.add("acme/albert", new HubImitation.Repo(COMMIT, spm, null));
        assertTrue(Files.isRegularFile(ModelResolver.resolve("acme/albert", hub(null), listener).resolve("spiece.model")));

        Map<String, byte[]> withJson = new HashMap<>(spm);
        withJson.put("tokenizer.json", "{}".getBytes(StandardCharsets.UTF_8));
        server.add("acme/xlmr", new HubImitation.Repo(COMMIT, withJson, null));
        server.requests.clear();
        assertFalse(Files.exists(ModelResolver.resolve("acme/xlmr", hub(null), listener).resolve("spiece.model")));
        assertTrue(server.requests.stream().noneMatch(r -> r.contains("spiece") || r.contains("vocab.json")),
                "tokenizer.json is what the tokenizer reads: " + server.requests);

        Map<String, byte[]> none = small();
        none.remove("vocab.txt");
        none.put("tokenizer.model", new byte[] {1, 2, 3});
        server.add("acme/llama", new HubImitation.Repo(COMMIT, none, null));
        LoaderException e = assertThrows(LoaderException.class, () -> ModelResolver.resolve("acme/llama", hub(null), listener));
        assertTrue(e.getMessage().endsWith("has no tokenizer vectorbert reads: tokenizer.json, vocab.txt, vocab.json with merges.txt, "
                + "sentencepiece.bpe.model, spiece.model or spm.model"), e.getMessage());
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
    void aDirectoryWithOnlyATokenizerOfAnyKindIsUsedAsItIs() throws IOException {
        for (String file : List.of("tokenizer.json", "vocab.txt", "vocab.json", "sentencepiece.bpe.model", "spiece.model")) {
            Path dir = Files.createDirectories(work.resolve("tokenizer-only-" + file));
            Files.writeString(dir.resolve(file), "");
            assertEquals(dir, ModelResolver.resolve(dir.toString(), hub(null), listener), file);
        }
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
