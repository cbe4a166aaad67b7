package org.vectorbert.loader;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.vectorbert.common.Json;

/**
 * The Hugging Face hub cache layout, shared with transformers and huggingface_hub:
 * {@code models--org--name/refs/REVISION} holds a commit hash, {@code snapshots/COMMIT/FILE} links
 * to {@code blobs/ETAG}; an empty {@code .no_exist/COMMIT/FILE} records that the hub has no FILE at
 * that commit, as huggingface_hub records it.
 */
final class HubCache {
    /**
     * The tokenizer files the tokenizer module reads when a directory has neither tokenizer.json nor
     * vocab.txt, each set whole, in the order it tries them (TokenizerFiles.loadDirectory).
     */
    static final List<List<String>> OLDER_TOKENIZERS =
            List.of(List.of("vocab.json", "merges.txt"), List.of("sentencepiece.bpe.model"), List.of("spiece.model"),
            List.of("spm.model"));

    private HubCache() {}

    static Path repoFolder(Path cache, ModelResolver.HubId id) {
        return cache.resolve(id.cacheFolder());
    }

    /** The commit a revision points at in the cache, or null when the cache does not know it. */
    static String commit(Path cache, ModelResolver.HubId id) {
        Path ref = repoFolder(cache, id).resolve("refs").resolve(id.revision());
        try {
            if (Files.isRegularFile(ref)) {
                return Files.readString(ref, StandardCharsets.UTF_8).trim();
            }
        } catch (IOException e) {
            return null;
        }
        return id.isCommitHash() ? id.revision() : null;
    }

    /** The snapshot directory for {@code id} when it holds a whole model (config, weights, tokenizer), else null. */
    static Path complete(Path cache, ModelResolver.HubId id) {
        String commit = commit(cache, id);
        if (commit == null) {
            return null;
        }
        Path snapshot = repoFolder(cache, id).resolve("snapshots").resolve(commit);
        return isComplete(snapshot) ? snapshot : null;
    }

    /** Files.exists follows links, so a link to a blob still downloading does not count. */
    static boolean isComplete(Path snapshot) {
        if (!Files.isRegularFile(snapshot.resolve("config.json")) || !hasTokenizer(snapshot)) {
            return false;
        }
        for (List<String> weights : WEIGHTS) {
            if (Files.isRegularFile(snapshot.resolve(weights.get(0)))) {
                return true;
            }
            Path index = snapshot.resolve(weights.get(1));
            if (Files.isRegularFile(index)) {
                try {
                    for (String shard : shards(index)) {
                        if (!Files.isRegularFile(snapshot.resolve(shard))) {
                            return false;
                        }
                    }
                    return true;
                } catch (LoaderException e) {
                    return false;
                }
            }
        }
        return false;
    }

    /** bge-m3's sparse and ColBERT heads, beside the encoder: read only by its tasks (M3Embeddings), fetched when present. */
    static final List<String> HEAD_FILES = List.of("sparse_linear.pt", "colbert_linear.pt");

    /** The weight files a snapshot may hold, in the order they are preferred: each kind's single file, then its index of shards. */
    static final List<List<String>> WEIGHTS = List.of(List.of("model.safetensors", "model.safetensors.index.json"),
            List.of("pytorch_model.bin", "pytorch_model.bin.index.json"));

    /** Whether the tokenizer module finds a tokenizer in {@code snapshot}. */
    static boolean hasTokenizer(Path snapshot) {
        if (Files.isRegularFile(snapshot.resolve("tokenizer.json")) || Files.isRegularFile(snapshot.resolve("vocab.txt"))) {
            return true;
        }
        return OLDER_TOKENIZERS.stream().anyMatch(set -> set.stream().allMatch(f -> Files.isRegularFile(snapshot.resolve(f))));
    }

    /**
     * Whether {@code snapshot} holds, or the cache knows the hub lacks, every sentence-transformers file the loader
     * reads (SentenceTransformersConfig): modules.json and its Pooling modules' config.json. A snapshot filled before
     * vectorbert fetched them, or by transformers alone, has neither modules.json nor the record of its absence.
     */
    static boolean hasSentenceTransformersFiles(Path snapshot) {
        Path modules = snapshot.resolve("modules.json");
        if (!Files.isRegularFile(modules)) {
            return knownAbsent(snapshot, "modules.json");
        }
        try {
            for (String file : moduleFiles(modules)) {
                if (!Files.isRegularFile(snapshot.resolve(file)) && !knownAbsent(snapshot, file)) {
                    return false;
                }
            }
            return true;
        } catch (LoaderException e) {
            return false;
        }
    }

    /** Where the cache records which files the hub does not have at the snapshot's commit: one empty file each. */
    static Path absences(Path snapshot) {
        return snapshot.getParent().getParent().resolve(".no_exist").resolve(snapshot.getFileName().toString());
    }

    static boolean knownAbsent(Path snapshot, String file) {
        return Files.isRegularFile(absences(snapshot).resolve(file));
    }

    /**
     * The files a sentence-transformers {@code modules.json} has the loader read besides the ones at the top: each
     * Pooling module's {@code PATH/config.json}. The Transformer module is the top directory's config and weights;
     * Normalize has no files; other modules SentenceTransformersConfig refuses, so their files are not wanted.
     * Refuses a module path that could name a file outside the model directory.
     */
    static List<String> moduleFiles(Path modulesJson) {
        JsonNode modules = Json.read(modulesJson, LoaderException::new);
        if (!modules.isArray()) {
            throw new LoaderException(modulesJson + ": expected a list of modules");
        }
        List<String> files = new ArrayList<>();
        for (JsonNode module : modules) {
            String path = module.path("path").asText("");
            if (!isInside(path)) {
                throw new LoaderException(modulesJson + ": module '" + module.path("name").asText() + "' has the path '" + path
                        + "', which is not a relative path inside the model directory; refused");
            }
            String type = module.path("type").asText("");
            if (type.substring(type.lastIndexOf('.') + 1).equals("Pooling")) {
                files.add(path.isEmpty() ? "config.json" : path.replaceAll("/+$", "") + "/config.json");
            }
        }
        return files;
    }

    /** Whether {@code path} is relative and stays below the directory it is resolved in, on any system. */
    static boolean isInside(String path) {
        if (path.startsWith("/") || path.contains("\\") || path.contains(":")) {
            return false;
        }
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                return false;
            }
        }
        try {
            return !Path.of(path).isAbsolute();
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** The shard file names a {@code model.safetensors.index.json} lists, in order of first mention. */
    static Set<String> shards(Path index) {
        return new LinkedHashSet<>(BertCheckpoint.shardMap(index).values());
    }
}
