package org.vectorbert.loader;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The Hugging Face hub cache layout, shared with transformers and huggingface_hub:
 * {@code models--org--name/refs/REVISION} holds a commit hash, {@code snapshots/COMMIT/FILE} links
 * to {@code blobs/ETAG}.
 */
final class HubCache {
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

    /** The snapshot directory for {@code id} when it holds a whole model (config, weights, vocabulary), else null. */
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
        if (!Files.isRegularFile(snapshot.resolve("config.json"))
                || !Files.isRegularFile(snapshot.resolve("vocab.txt")) && !Files.isRegularFile(snapshot.resolve("tokenizer.json"))) {
            return false;
        }
        if (Files.isRegularFile(snapshot.resolve("model.safetensors"))) {
            return true;
        }
        Path index = snapshot.resolve("model.safetensors.index.json");
        if (!Files.isRegularFile(index)) {
            return false;
        }
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

    /** The shard file names a {@code model.safetensors.index.json} lists, in order of first mention. */
    static Set<String> shards(Path index) {
        return new LinkedHashSet<>(BertCheckpoint.shardMap(index).values());
    }
}
