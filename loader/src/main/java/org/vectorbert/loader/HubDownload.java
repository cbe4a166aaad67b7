package org.vectorbert.loader;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.vectorbert.common.AtomicFiles;

/**
 * Downloads a model from the Hugging Face hub into the hub cache layout, as huggingface_hub does:
 * a HEAD on {@code ENDPOINT/REPO/resolve/REVISION/FILE} gives the commit, the ETag and the size
 * (following the hub's own relative redirects, e.g. of a renamed repository, but not the CDN's);
 * the file is fetched into {@code blobs/ETAG.incomplete}, resumed with a Range request when the
 * connection drops or an earlier run was interrupted, checked (size, and SHA-256 for LFS files whose
 * ETag is one), moved to {@code blobs/ETAG} and linked from {@code snapshots/COMMIT/FILE}; a file the
 * hub does not have is recorded in {@code .no_exist/COMMIT/FILE}. The token is only ever sent to the
 * endpoint's own host, never to a CDN it redirects to.
 *
 * <p>The files fetched are the ones vectorbert reads: config.json, the safetensors weights, the
 * tokenizer (tokenizer.json or vocab.txt with their settings, else the older files the tokenizer
 * reads, {@link HubCache#OLDER_TOKENIZERS}), sentence-transformers' pooling, normalising and
 * length settings ({@link SentenceTransformersConfig}), and bge-m3's two head files where a repository has them.
 */
final class HubDownload {
    private static final List<String> TOKENIZER_FILES =
            List.of("vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json");
    /** Read by SentenceTransformersConfig; modules.json last, so that a snapshot holding it was asked for the others. */
    private static final List<String> SENTENCE_TRANSFORMERS_FILES =
            List.of("sentence_bert_config.json", "config_sentence_transformers.json", "modules.json");
    private static final int ATTEMPTS = 4;
    private static final int MAX_REDIRECTS = 10;

    /** What a HEAD tells about one file; {@code location} is where to GET it. */
    private record Metadata(String commit, String etag, long size, URI location) {}

    private final ModelResolver.HubSettings hub;
    private final ModelResolver.Listener listener;
    private final HttpClient client;

    HubDownload(ModelResolver.HubSettings hub, ModelResolver.Listener listener) {
        this.hub = hub;
        this.listener = listener;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** Downloads what is missing of {@code id}'s model and returns its snapshot directory. */
    Path fetch(ModelResolver.HubId id, List<String> looked) {
        Path repo = HubCache.repoFolder(hub.cache(), id);
        Metadata config;
        try {
            config = head(id, id.revision(), "config.json");
        } catch (HubFailures.Unreachable e) {
            throw ModelResolver.notFound(id.toString(), looked, e.getMessage());
        }
        if (config == null) {
            throw ModelResolver.notFound(id.toString(), looked, "the hub " + hub.endpoint() + " has no config.json for "
                    + id.repo() + " at revision " + id.revision() + " (check the id; a private or gated model needs HF_TOKEN)");
        }
        String commit = config.commit() != null ? config.commit() : id.isCommitHash() ? id.revision() : null;
        if (commit == null || !commit.matches("[0-9a-f]{40}")) {
            throw new LoaderException("the hub " + hub.endpoint() + " did not say which commit " + id + " is (no X-Repo-Commit header)");
        }
        listener.log("downloading " + id + " (commit " + commit.substring(0, 8) + ") from " + hub.endpoint()
                + " into " + repo);
        Path snapshot = repo.resolve("snapshots").resolve(commit);
        ModelResolver.HubId pinned = new ModelResolver.HubId(id.repo(), commit);
        save(repo, snapshot, "config.json", config);
        // safetensors when the repository has them, else PyTorch's files (read without unpickling: PytorchFile)
        boolean found = false;
        for (List<String> weights : HubCache.WEIGHTS) {
            if (fetchIfPresent(pinned, repo, snapshot, weights.get(0))) {
                found = true;
                break;
            }
            if (fetchIfPresent(pinned, repo, snapshot, weights.get(1))) {
                for (String shard : HubCache.shards(snapshot.resolve(weights.get(1)))) {
                    if (!fetchIfPresent(pinned, repo, snapshot, shard)) {
                        throw new LoaderException(id + " on the hub lists the shard " + shard + " but does not have it");
                    }
                }
                found = true;
                break;
            }
        }
        if (!found) {
            throw new LoaderException(id + " on the hub has no model.safetensors, model.safetensors.index.json, pytorch_model.bin or "
                    + "pytorch_model.bin.index.json (vectorbert does not read TensorFlow weights from the hub)");
        }
        for (String file : TOKENIZER_FILES) {
            fetchIfPresent(pinned, repo, snapshot, file);
        }
        for (List<String> older : HubCache.OLDER_TOKENIZERS) {
            if (HubCache.hasTokenizer(snapshot)) {
                break;
            }
            for (String file : older) {
                if (!fetchIfPresent(pinned, repo, snapshot, file)) {
                    break;
                }
            }
        }
        if (!HubCache.isComplete(snapshot)) {
            throw new LoaderException(id + " on the hub has no tokenizer vectorbert reads: tokenizer.json, vocab.txt, "
                    + "vocab.json with merges.txt, sentencepiece.bpe.model, spiece.model or spm.model");
        }
        fetchSentenceTransformers(pinned, repo, snapshot);
        HubCache.HEAD_FILES.forEach(file -> fetchIfPresent(pinned, repo, snapshot, file));
        if (!id.revision().equals(commit)) {
            try {
                Path ref = repo.resolve("refs").resolve(id.revision());
                Files.createDirectories(ref.getParent());
                AtomicFiles.write(ref, commit.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new LoaderException("cannot write to the Hugging Face cache " + repo + ": " + e.getMessage(), e);
            }
        }
        return snapshot;
    }

    /**
     * Adds the sentence-transformers files to a whole snapshot already in the cache that was never asked for them
     * (downloaded by an older vectorbert, or by transformers alone), at its own commit: without them an embedding
     * model pools by CLS where sentence-transformers pools by mean and normalises. When the hub cannot be asked, the
     * snapshot is used as it is, as it was before.
     */
    Path addSentenceTransformers(ModelResolver.HubId id, Path snapshot) {
        String commit = snapshot.getFileName().toString();
        if (!commit.matches("[0-9a-f]{40}")) {
            return snapshot;
        }
        try {
            fetchSentenceTransformers(new ModelResolver.HubId(id.repo(), commit), HubCache.repoFolder(hub.cache(), id), snapshot);
        } catch (HubFailures.Unreachable | HubFailures.Refused e) {
            listener.log("using the cached " + id + " without its sentence-transformers files, if it has any: " + e.getMessage());
        }
        return snapshot;
    }

    /** sentence_bert_config.json, config_sentence_transformers.json, modules.json and what its modules have the loader read. */
    private void fetchSentenceTransformers(ModelResolver.HubId pinned, Path repo, Path snapshot) {
        for (String file : SENTENCE_TRANSFORMERS_FILES) {
            fetchIfPresent(pinned, repo, snapshot, file);
        }
        Path modules = snapshot.resolve("modules.json");
        if (Files.isRegularFile(modules)) {
            for (String file : HubCache.moduleFiles(modules)) {
                fetchIfPresent(pinned, repo, snapshot, file);
            }
        }
    }

    /**
     * Downloads {@code file} unless the snapshot has it; false when the hub does not have it, which is recorded so that
     * the next run need not ask (a commit's files never change).
     */
    private boolean fetchIfPresent(ModelResolver.HubId pinned, Path repo, Path snapshot, String file) {
        if (Files.isRegularFile(snapshot.resolve(file))) {
            return true;
        }
        if (HubCache.knownAbsent(snapshot, file)) {
            return false;
        }
        Metadata meta = head(pinned, pinned.revision(), file);
        if (meta == null) {
            Path record = HubFiles.inside(HubCache.absences(snapshot), file);
            try {
                Files.createDirectories(record.getParent());
                if (!Files.exists(record)) {
                    Files.createFile(record);
                }
            } catch (IOException e) {
                throw new LoaderException("cannot write to the Hugging Face cache " + repo + ": " + e.getMessage(), e);
            }
            return false;
        }
        save(repo, snapshot, file, meta);
        return true;
    }

    /** The file's address on the hub, each part of its path escaped. */
    private URI resolveUri(String repo, String revision, String file) {
        StringBuilder path = new StringBuilder();
        for (String segment : file.split("/", -1)) {
            path.append('/').append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return URI.create(hub.endpoint() + "/" + repo + "/resolve/" + URLEncoder.encode(revision, StandardCharsets.UTF_8) + path);
    }

    private HttpRequest.Builder request(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("User-Agent", "vectorbert; java/" + Runtime.version().feature());
        if (hub.token() != null && Objects.equals(uri.getHost(), hub.endpoint().getHost())
                && uri.getPort() == hub.endpoint().getPort()) {
            b.header("Authorization", "Bearer " + hub.token());
        }
        return b;
    }

    /** The file's metadata, or null when the hub says it does not exist. */
    private Metadata head(ModelResolver.HubId id, String revision, String file) {
        URI uri = resolveUri(id.repo(), revision, file);
        for (int hop = 0; hop < MAX_REDIRECTS; hop++) {
            HttpResponse<Void> r = send(request(uri).method("HEAD", HttpRequest.BodyPublishers.noBody())
                    .header("Accept-Encoding", "identity").timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.discarding(), uri);
            int status = r.statusCode();
            if (isRedirect(status)) {
                URI next = uri.resolve(r.headers().firstValue("Location").orElseThrow(
                        () -> new LoaderException("the hub redirected " + file + " without a Location")));
                if (Objects.equals(next.getHost(), uri.getHost()) && next.getPort() == uri.getPort()) {
                    uri = next; // the hub's own redirect, e.g. a renamed repository: its answer is further on
                    continue;
                }
                return metadata(r, next);
            }
            if (status == 200) {
                return metadata(r, uri);
            }
            if (status == 404) {
                return null;
            }
            if (status == 401 || status == 403) {
                // The hub answers 401 for repositories it will not show, whether private or missing.
                if (file.equals("config.json")) {
                    return null;
                }
                throw new HubFailures.Refused("the hub refused " + file + " of " + id.repo() + " (HTTP " + status
                        + "): set HF_TOKEN to a token that may read it");
            }
            throw new LoaderException("the hub answered HTTP " + status + " for " + uri);
        }
        throw new LoaderException("too many redirects for " + resolveUri(id.repo(), revision, file));
    }

    private static boolean isRedirect(int status) {
        return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
    }

    private static Metadata metadata(HttpResponse<?> r, URI location) {
        var h = r.headers();
        String etag = h.firstValue("X-Linked-Etag").or(() -> h.firstValue("ETag")).orElse(null);
        if (etag == null) {
            throw new LoaderException("the hub gave no ETag for " + r.uri() + "; is HF_ENDPOINT a Hugging Face hub?");
        }
        etag = etag.replaceFirst("^W/", "").replace("\"", "");
        if (!etag.matches("[A-Za-z0-9._-]+")) {
            throw new LoaderException("the hub gave an unusable ETag '" + etag + "' for " + r.uri());
        }
        long size;
        try {
            size = h.firstValue("X-Linked-Size").or(() -> h.firstValue("Content-Length")).map(Long::parseLong).orElse(-1L);
        } catch (NumberFormatException e) {
            throw new LoaderException("the hub gave an unreadable size for " + r.uri());
        }
        return new Metadata(h.firstValue("X-Repo-Commit").orElse(null), etag, size, location);
    }

    /** Makes {@code blobs/ETAG} whole and checked, then links {@code snapshots/COMMIT/FILE} to it. */
    private void save(Path repo, Path snapshot, String file, Metadata meta) {
        Path blob = repo.resolve("blobs").resolve(meta.etag());
        try {
            Files.createDirectories(blob.getParent());
            Path incomplete = blob.resolveSibling(meta.etag() + ".incomplete");
            // One writer per blob: a second process waits here, then finds the blob done. The lock file stays,
            // as deleting it would let a third process lock a fresh file while the second holds the old one.
            try (FileChannel lockFile = FileChannel.open(blob.resolveSibling(meta.etag() + ".lock"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                lockFile.lock();   // released when the channel closes
                if (!Files.isRegularFile(blob)) {
                    downloadWithRetries(file, meta, incomplete);
                    HubFiles.check(file, meta.size(), meta.etag(), incomplete);
                    Files.move(incomplete, blob, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
            }
            HubFiles.link(HubFiles.inside(snapshot, file), blob);
        } catch (IOException e) {
            throw new LoaderException("cannot write " + file + " into the Hugging Face cache " + repo + ": " + e.getMessage(), e);
        }
    }

    private void downloadWithRetries(String file, Metadata meta, Path incomplete) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                download(file, meta, incomplete);
                return;
            } catch (IOException e) {
                long kept = Files.exists(incomplete) ? Files.size(incomplete) : 0;
                if (attempt == ATTEMPTS) {
                    throw new LoaderException("downloading " + file + " failed " + ATTEMPTS + " times (" + describe(e)
                            + "); run again to resume from the " + kept + " bytes kept");
                }
                listener.log("downloading " + file + " was interrupted at " + kept + " bytes (" + describe(e) + "); resuming");
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new LoaderException("interrupted while downloading " + file);
                }
            }
        }
    }

    private static String describe(IOException e) {
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /** One GET into {@code incomplete}, resuming from its length; throws IOException when the connection drops. */
    private void download(String file, Metadata meta, Path incomplete) throws IOException {
        long have = Files.exists(incomplete) ? Files.size(incomplete) : 0;
        if (meta.size() >= 0 && have == meta.size()) {
            return;
        }
        if (meta.size() >= 0 && have > meta.size()) {
            Files.delete(incomplete);
            have = 0;
        }
        URI uri = meta.location();
        for (int hop = 0; hop < MAX_REDIRECTS; hop++) {
            HttpRequest.Builder b = request(uri).GET();
            if (have > 0) {
                b.header("Range", "bytes=" + have + "-");
            }
            HttpResponse<InputStream> r = sendForStream(b.build(), uri);
            int status = r.statusCode();
            if (isRedirect(status)) {
                r.body().close();
                uri = uri.resolve(r.headers().firstValue("Location").orElseThrow(
                        () -> new LoaderException("the hub redirected " + file + " without a Location")));
                continue;
            }
            boolean append;
            if (status == 206 && r.headers().firstValue("Content-Range").orElse("").startsWith("bytes " + have + "-")) {
                append = true;
            } else if (status == 200) {
                append = false; // the server ignored the Range: start over
                have = 0;
            } else {
                r.body().close();
                throw new LoaderException("the hub answered HTTP " + status + " for " + file + " (" + uri + ")");
            }
            if (append) {
                listener.log("resuming " + file + " at " + have + " bytes");
            }
            try (InputStream in = r.body();
                 OutputStream out = append
                         ? Files.newOutputStream(incomplete, StandardOpenOption.CREATE, StandardOpenOption.APPEND)
                         : Files.newOutputStream(incomplete)) {
                byte[] buffer = new byte[1 << 16];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    out.write(buffer, 0, n);
                    have += n;
                    listener.progress("downloading " + file, have, meta.size());
                }
            }
            if (meta.size() >= 0 && have < meta.size()) {
                throw new IOException("connection closed after " + have + " of " + meta.size() + " bytes");
            }
            return;
        }
        throw new LoaderException("too many redirects downloading " + file);
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, URI uri) {
        try {
            return client.send(request, handler);
        } catch (IOException e) {
            throw new HubFailures.Unreachable("cannot reach " + uri.getScheme() + "://" + uri.getAuthority() + " (" + describe(e)
                    + "); if you are offline, set HF_HUB_OFFLINE=1 and use a cached or local model");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LoaderException("interrupted while asking " + uri);
        }
    }

    /** Like {@link #send} but a failure to connect is an IOException, so the caller's retries cover it. */
    private HttpResponse<InputStream> sendForStream(HttpRequest request, URI uri) throws IOException {
        try {
            return client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LoaderException("interrupted while downloading " + uri);
        }
    }
}
